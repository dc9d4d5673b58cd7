/*
   Copyright The containerd Authors.

   Licensed under the Apache License, Version 2.0 (the "License");
   you may not use this file except in compliance with the License.
   You may obtain a copy of the License at

       http://www.apache.org/licenses/LICENSE-2.0

   Unless required by applicable law or agreed to in writing, software
   distributed under the License is distributed on an "AS IS" BASIS,
   WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
   See the License for the specific language governing permissions and
   limitations under the License.
*/

package errorutil

import (
	"errors"
	"fmt"
	"strings"
)

// Aggregate combines a list of errors into a single new error.
func Aggregate(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	default:
		points := make([]string, len(errs)+1)
		points[0] = fmt.Sprintf("%d error(s) occurred:", len(errs))
		for i, err := range errs {
			points[i+1] = fmt.Sprintf("* %s", err)
		}
		return errors.New(strings.Join(points, "\n\t"))
	}
}
