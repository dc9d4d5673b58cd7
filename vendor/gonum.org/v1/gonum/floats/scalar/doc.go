// Copyright ©2017 The Gonum Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package scalar provides a set of helper routines for dealing with float64 values.
package scalar // import "gonum.org/v1/gonum/floats/scalar"
