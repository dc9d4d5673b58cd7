// Copyright ©2018 The Gonum Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package lapack provides interfaces for the LAPACK linear algebra standard.
package lapack // import "gonum.org/v1/gonum/lapack"
