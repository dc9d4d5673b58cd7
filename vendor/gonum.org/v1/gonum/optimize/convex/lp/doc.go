// Copyright ©2017 The Gonum Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package lp implements routines to solve linear programming problems.
package lp // import "gonum.org/v1/gonum/optimize/convex/lp"
