package demo

import (
	"fmt"
	"io"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-sched/berth/internal/inspect"
)

// Section is one scenario's part of the report.
type Section struct {
	Name  string
	Title string
	// Pods are the scenario's pods as the API showed them once the scheduler had settled.
	Pods []v1.Pod
	// Checks are the scenario's expectations and whether they held.
	Checks []Check

	text strings.Builder
}

// Check is one expectation of a scenario, judged by what the API shows.
type Check struct {
	Expected string
	// Got says what was seen, whether or not it met the expectation.
	Got string
	OK  bool
}

func (s *Section) printf(format string, args ...any) {
	fmt.Fprintf(&s.text, format, args...)
}

// table prints rows under a header, as kubectl berth prints its tables.
func (s *Section) table(header []string, rows [][]string) {
	s.report(func(w io.Writer) error { return inspect.Table(w, header, rows) })
}

// report prints what write writes, indented under the section's text. A report written to
// memory cannot fail.
func (s *Section) report(write func(io.Writer) error) {
	var b strings.Builder
	_ = write(&b)
	s.printf("%s\n", indent(b.String(), "  "))
}

// whyWaiting prints the scheduler's own reason for each waiting pod.
func (s *Section) whyWaiting(waiting []v1.Pod) {
	if len(waiting) == 0 {
		s.printf("\nNo pod waits.\n")
		return
	}
	s.printf("\nWhy they wait, in the scheduler's words (condition PodScheduled=False, reason Unschedulable):\n")
	for i := range waiting {
		s.printf("  %s: %s\n", waiting[i].Name, unschedulable(&waiting[i]).Message)
	}
}

// expect records an expectation and prints whether it held.
func (s *Section) expect(expected string, ok bool, got string) {
	s.Checks = append(s.Checks, Check{Expected: expected, Got: got, OK: ok})
	if ok {
		s.printf("expected: %s -- got it: %s\n", expected, got)
	} else {
		s.printf("expected: %s -- CONTRADICTED: %s\n", expected, got)
	}
}

func indent(s, by string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return by + strings.Join(lines, "\n"+by)
}
