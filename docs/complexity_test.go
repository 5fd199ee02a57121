package docs

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxComplexity is the most cyclomatic complexity a function of the tree
// may have without saying why.
const maxComplexity = 25

// exemptMarker starts the comment, on the line just before a function's
// `func`, that exempts it from maxComplexity and says why (generated or
// table code).
const exemptMarker = "// complexity:"

var complexityOver = flag.Int("complexity.over", maxComplexity, "TestComplexity: list every function over this complexity (to compare with gocyclo -over N)")

// funcComplexity is one function's cyclomatic complexity and where it is.
type funcComplexity struct {
	complexity int
	pkg, name  string
	pos        token.Position
	exempt     string // the why of its exemptMarker comment, or ""
}

// String prints the function the way gocyclo does: complexity, package,
// function and file:line:col.
func (f funcComplexity) String() string {
	return fmt.Sprintf("%d %s %s %s:%d:%d", f.complexity, f.pkg, f.name, f.pos.Filename, f.pos.Line, f.pos.Column)
}

// TestComplexity fails on every function of the repository (tests included;
// .ci/, node_modules and .git left out) over cyclomatic complexity 25,
// unless the line before its `func` is a `// complexity: <why>` comment.
// The count is gocyclo's: 1, plus one per if, for, range, case clause
// other than default, select clause other than default, && and ||,
// function literals counted in the function that holds them.
// `go test ./docs -run TestComplexity -complexity.over 20 -v` lists every
// function over 20, to compare with `gocyclo -over 20 .`.
func TestComplexity(t *testing.T) {
	funcs, err := repoComplexity("..")
	if err != nil {
		t.Fatal(err)
	}
	if len(funcs) < 500 {
		t.Fatalf("counted %d functions: the walk missed the tree", len(funcs))
	}
	for _, f := range funcs {
		if f.complexity <= *complexityOver {
			continue
		}
		if *complexityOver != maxComplexity {
			t.Log(f)
			continue
		}
		if f.exempt == "" {
			t.Errorf("%s: complexity %d is over %d: split it, or say why it is table or generated code in a %q comment on the line before its func", f, f.complexity, maxComplexity, exemptMarker)
		}
	}
}

// repoComplexity counts every function of every .go file under root,
// sorted by complexity, highest first, then by position.
func repoComplexity(root string) ([]funcComplexity, error) {
	var out []funcComplexity
	err := walkGo(root, func(path string) error {
		fc, err := fileComplexity(root, path)
		out = append(out, fc...)
		return err
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].complexity != out[j].complexity {
			return out[i].complexity > out[j].complexity
		}
		if out[i].pos.Filename != out[j].pos.Filename {
			return out[i].pos.Filename < out[j].pos.Filename
		}
		return out[i].pos.Line < out[j].pos.Line
	})
	return out, err
}

// fileComplexity counts the functions of one file, naming the file
// relative to root.
func fileComplexity(root, path string) ([]funcComplexity, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rel, _ := filepath.Rel(root, path)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.ToSlash(rel), src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	exempt := exemptions(fset, f)
	var out []funcComplexity
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok {
			continue
		}
		pos := fset.Position(fn.Pos())
		out = append(out, funcComplexity{
			complexity: complexity(fn),
			pkg:        f.Name.Name,
			name:       funcName(fn),
			pos:        pos,
			exempt:     exempt[pos.Line-1],
		})
	}
	return out, nil
}

// exemptions maps the line of each `// complexity: <why>` comment of f to
// its why.
func exemptions(fset *token.FileSet, f *ast.File) map[int]string {
	out := map[int]string{}
	for _, g := range f.Comments {
		for _, c := range g.List {
			if why, ok := strings.CutPrefix(c.Text, exemptMarker); ok && strings.TrimSpace(why) != "" {
				out[fset.Position(c.Pos()).Line] = strings.TrimSpace(why)
			}
		}
	}
	return out
}

// funcName names a function as gocyclo does: `name`, or `(T).name` and
// `(*T).name` for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	return "(" + recvType(fn.Recv.List[0].Type) + ")." + fn.Name.Name
}

// recvType prints a receiver's type: T, *T, with type parameters left out.
func recvType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return "*" + recvType(t.X)
	case *ast.IndexExpr:
		return recvType(t.X)
	case *ast.IndexListExpr:
		return recvType(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// complexity is the cyclomatic complexity of fn: 1 plus one per decision
// point anywhere in it, function literals included.
func complexity(fn *ast.FuncDecl) int {
	n := 1
	ast.Inspect(fn, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil {
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}

// TestComplexityCounts holds the counter to gocyclo's rules on functions
// whose count is known.
func TestComplexityCounts(t *testing.T) {
	src := `package p

func straight() {}

func branches(a, b bool, xs []int, c chan int) {
	if a && b || !a {
	}
	for i := 0; i < 1; i++ {
	}
	for range xs {
	}
	switch {
	case a:
	case b:
	default:
	}
	select {
	case <-c:
	default:
	}
	f := func() {
		if a {
		}
	}
	_ = f
}

type T[K any] struct{}

// complexity: a table, one case per row.
func (t *T[K]) table(k int) {
	switch k {
	case 1, 2:
	}
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	exempt := exemptions(fset, f)
	want := map[string]int{"straight": 1, "branches": 10, "(*T).table": 2}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := funcName(fn)
		if got := complexity(fn); got != want[name] {
			t.Errorf("%s: complexity %d, want %d", name, got, want[name])
		}
		if got := exempt[fset.Position(fn.Pos()).Line-1]; (got != "") != (name == "(*T).table") {
			t.Errorf("%s: exemption %q", name, got)
		}
	}
}

// walkGo calls visit with every .go file under root (tests included),
// leaving out .git, .ci and node_modules.
func walkGo(root string, visit func(path string) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".ci", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		return visit(path)
	})
}
