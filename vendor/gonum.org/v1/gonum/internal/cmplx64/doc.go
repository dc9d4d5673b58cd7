// Copyright ©2017 The Gonum Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package cmplx64 provides complex64 versions of standard library math/cmplx
// package routines used by gonum/blas.
package cmplx64 // import "gonum.org/v1/gonum/internal/cmplx64"
