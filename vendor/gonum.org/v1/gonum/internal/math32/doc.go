// Copyright ©2017 The Gonum Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package math32 provides float32 versions of standard library math package
// routines used by gonum/blas/native.
package math32 // import "gonum.org/v1/gonum/internal/math32"
