package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"
)

// Report is anything this package reports: printed as a table, or as JSON or YAML of its fields.
type Report interface {
	WriteTable(w io.Writer, wide bool) error
}

// Warner is a Report that could not read everything it covers and says what it left out, as kubectl
// warns on standard error: the rest of the report stands.
type Warner interface {
	Warnings() []string
}

// Formats are the values of kubectl's -o flag that Print accepts; "" is the table.
var Formats = []string{"wide", "json", "yaml"}

// Print writes r in format: "" or "wide" as a table, "json" or "yaml" as the report's fields.
func Print(w io.Writer, r Report, format string) error {
	switch format {
	case "", "wide":
		return r.WriteTable(w, format == "wide")
	case "json":
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case "yaml":
		b, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return fmt.Errorf("unknown output format %q: use one of %s", format, strings.Join(Formats, ", "))
}

// Table writes rows under a header, aligned as kubectl aligns its tables.
func Table(w io.Writer, header []string, rows [][]string) error {
	t := newTable(w, header...)
	for _, r := range rows {
		t.row(r...)
	}
	return t.flush()
}

// table aligns columns as kubectl aligns its tables. Every row has every cell, empty or not, so
// that a column stays aligned past rows that leave it empty; the padding this leaves at the ends
// of lines is cut when the table is written.
type table struct {
	w   io.Writer
	buf bytes.Buffer
	tw  *tabwriter.Writer
}

func newTable(w io.Writer, header ...string) *table {
	t := &table{w: w}
	t.tw = tabwriter.NewWriter(&t.buf, 0, 4, 3, ' ', 0)
	t.row(header...)
	return t
}

func (t *table) row(cells ...string) {
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() error {
	if err := t.tw.Flush(); err != nil {
		return err
	}
	for _, line := range strings.SplitAfter(t.buf.String(), "\n") {
		if line == "" {
			continue
		}
		if _, err := io.WriteString(t.w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

func writeProblems(w io.Writer, problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(w, "\nCould not account for everything:\n"); err != nil {
		return err
	}
	for _, p := range problems {
		if _, err := fmt.Fprintf(w, "  %s\n", p); err != nil {
			return err
		}
	}
	return nil
}

// orNone is what kubectl shows for an empty field.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
