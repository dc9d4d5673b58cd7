// Command pathcount follows one call of a function through berth's own code and counts how many
// files it visits and how many times it comes back to a file it had left: how straight a path
// reads. It runs a test with every function of pkg/ and internal/ instrumented (in an -overlay, the
// tree is untouched), records each entry and exit on the goroutine that first enters the function,
// from that entry to its return, and prints the path as the files it steps through.
//
//	go run -mod=vendor ./hack/pathcount -pkg ./pkg/gang -run 'TestPreFilterScansNodesOutsideTheManagersLock$' -func '(*Gang).PreFilter'
//
// A "return" is each step into a file that the path was in before: back to a caller's file after a
// callee in another, or a callback into a file already left. Calls into vendored code are not
// followed; calls from it back into berth are.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	pkg := flag.String("pkg", "./pkg/gang", "package whose test to run")
	run := flag.String("run", "", "-run pattern of the test")
	fn := flag.String("func", "(*Gang).PreFilter", "function whose first call to follow")
	steps := flag.Bool("v", false, "print each step")
	only := flag.String("only", "pkg/gang/,pkg/gangcore/", "comma-separated path prefixes of the files also counted on their own, calls elsewhere taken as staying in the caller's file")
	flag.Parse()
	tmp, err := os.MkdirTemp("", "pathcount")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	overlay, err := instrument(tmp)
	if err != nil {
		log.Fatal(err)
	}
	trace := filepath.Join(tmp, "trace")
	cmd := exec.Command("go", "test", "-mod=vendor", "-trimpath", "-overlay="+overlay, "-count=1", "-run", *run, *pkg)
	cmd.Env = append(os.Environ(), "BERTH_PATHTRACE="+trace)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatal(err)
	}
	path, err := follow(trace, *fn)
	if err != nil {
		log.Fatal(err)
	}
	files, returns := count(path)
	if *steps {
		for _, s := range path {
			fmt.Println(s)
		}
	}
	fmt.Printf("%s: %d steps between files, %d files visited, %d returns to a file already left\n", *fn, len(path)-1, files, returns)
	if *only != "" {
		within := keep(path, strings.Split(*only, ","))
		files, returns := count(within)
		fmt.Printf("  within %s: %d steps between files, %d files visited, %d returns to a file already left\n", *only, len(within)-1, files, returns)
	}
}

// instrument writes a copy of each non-test file of pkg/ and internal/ that records its functions'
// entries and exits, and a helper per package, and returns the overlay that builds with them on
// top of hack/patches/overlay.json.
func instrument(tmp string) (string, error) {
	var ov struct{ Replace map[string]string }
	b, err := os.ReadFile("hack/patches/overlay.json")
	if err != nil {
		return "", err
	}
	if err := json.Unmarshal(b, &ov); err != nil {
		return "", err
	}
	pkgs := map[string]string{} // dir -> package name
	for _, root := range []string{"pkg", "internal"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "testdata") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out, name, err := instrumentFile(path, src)
			if err != nil || out == nil {
				return err
			}
			copyPath := filepath.Join(tmp, strings.ReplaceAll(path, "/", "_"))
			if err := os.WriteFile(copyPath, out, 0o644); err != nil {
				return err
			}
			abs, _ := filepath.Abs(copyPath)
			ov.Replace[path] = abs
			pkgs[filepath.Dir(path)] = name
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	for dir, name := range pkgs {
		helper := filepath.Join(tmp, strings.ReplaceAll(dir, "/", "_")+"_zz_pathtrace.go")
		if err := os.WriteFile(helper, []byte(fmt.Sprintf(helperSrc, name)), 0o644); err != nil {
			return "", err
		}
		ov.Replace[filepath.Join(dir, "zz_pathtrace.go")] = helper
	}
	out := filepath.Join(tmp, "overlay.json")
	b, _ = json.Marshal(ov)
	return out, os.WriteFile(out, b, 0o644)
}

// instrumentFile inserts a deferred trace call after the opening brace of every function body,
// on the same line, so line numbers stay. It returns nil for files of no package of interest.
func instrumentFile(path string, src []byte) ([]byte, string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, "", err
	}
	if f.Name.Name == "main" || strings.Contains(string(src[:f.Package]), "go:build ignore") {
		return nil, "", nil
	}
	type insert struct {
		at   int
		text string
	}
	var inserts []insert
	add := func(body *ast.BlockStmt, name string) {
		if body != nil {
			inserts = append(inserts, insert{fset.Position(body.Lbrace).Offset + 1, fmt.Sprintf("defer berthPathTrace(%q, %q)();", path, name)})
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			add(n.Body, funcName(n))
		case *ast.FuncLit:
			add(n.Body, fmt.Sprintf("func literal at line %d", fset.Position(n.Pos()).Line))
		}
		return true
	})
	var out strings.Builder
	last := 0
	for _, in := range inserts { // ast.Inspect visits in source order
		out.Write(src[last:in.at])
		out.WriteString(in.text)
		last = in.at
	}
	out.Write(src[last:])
	return []byte(out.String()), f.Name.Name, nil
}

func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	star := ""
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = "*", s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return fmt.Sprintf("(%s%s).%s", star, id.Name, d.Name.Name)
	}
	return d.Name.Name
}

const helperSrc = `package %s

import (
	"os"
	"runtime"
	"strings"
	"sync"
)

var berthPathTraceOut struct {
	once sync.Once
	f    *os.File
}

// berthPathTrace appends an entry line now and an exit line when the returned func runs, each
// with the goroutine's id; O_APPEND keeps each line whole across packages and goroutines.
func berthPathTrace(file, fn string) func() {
	berthPathTraceOut.once.Do(func() {
		if p := os.Getenv("BERTH_PATHTRACE"); p != "" {
			berthPathTraceOut.f, _ = os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		}
	})
	f := berthPathTraceOut.f
	if f == nil {
		return func() {}
	}
	var buf [64]byte
	gid := strings.Fields(string(buf[:runtime.Stack(buf[:], false)]))[1]
	f.WriteString(gid + " > " + file + " " + fn + "\n")
	return func() { f.WriteString(gid + " < " + file + " " + fn + "\n") }
}
`

// follow returns the files the first call of fn steps through, one entry per change of file,
// each "file function". It walks the call tree, not the calls: a function called again from the
// same caller's frame (a loop over nodes or pods) is followed once, so the path says how the code
// is laid out, not how large the cluster was.
func follow(trace, fn string) ([]string, error) {
	f, err := os.Open(trace)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	type frame struct {
		file   string
		called map[string]bool
	}
	gid := ""
	var stack []frame
	var path []string
	step := func(file, where string) {
		if len(path) == 0 || !strings.HasPrefix(path[len(path)-1], file+"  ") {
			path = append(path, file+"  "+where)
		}
	}
	skip := 0 // depth inside a call already followed from the same frame
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), " ", 4)
		if len(parts) != 4 {
			continue
		}
		g, dir, file, name := parts[0], parts[1], parts[2], parts[3]
		if gid == "" {
			if dir != ">" || name != fn {
				continue
			}
			gid = g
		}
		if g != gid {
			continue
		}
		switch {
		case dir == ">" && skip > 0:
			skip++
		case dir == ">":
			if n := len(stack); n > 0 {
				if stack[n-1].called[file+" "+name] {
					skip = 1
					continue
				}
				stack[n-1].called[file+" "+name] = true
			}
			stack = append(stack, frame{file: file, called: map[string]bool{}})
			step(file, name)
		case skip > 0:
			skip--
		default:
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return path, nil
			}
			step(stack[len(stack)-1].file, "(back from "+name+")")
		}
	}
	if gid == "" {
		return nil, fmt.Errorf("the test never called %s", fn)
	}
	return path, fmt.Errorf("the trace ended inside %s", fn)
}

// keep returns path with only the steps into files under prefixes, a step into the same file as
// the one before dropped.
func keep(path, prefixes []string) []string {
	var out []string
	last := ""
	for _, s := range path {
		file, _, _ := strings.Cut(s, "  ")
		if file == last || !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(file, p) }) {
			continue
		}
		out = append(out, s)
		last = file
	}
	return out
}

// count returns how many files path visits and how many of its steps go back to a file it had
// been in.
func count(path []string) (files, returns int) {
	seen := map[string]bool{}
	for _, s := range path {
		file, _, _ := strings.Cut(s, "  ")
		if seen[file] {
			returns++
		}
		seen[file] = true
	}
	return len(seen), returns
}
