package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestNoMatchReasonDropped: no code of the tree outside its tests calls
// a matcher's Match (or a trajectory step's MatchArgs) and drops the
// reason it words, as in `ok, _ := m.Match(v, true)`. A check whose
// reason nobody reads asks Holds (HoldsArgs), which words none: each
// dropped reason was garbage made once a run or once a call (a 20-step
// trajectory paired over 200,000 calls built 24 MB of them). The test
// reads the source, so a new caller is held to it as it is written; a
// package's own Match (path.Match, filepath.Match) is not a matcher's,
// and a call that must drop it says why on the line before, in a
// comment starting reasonMarker.
func TestNoMatchReasonDropped(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	err := walkGo("..", func(path string) error {
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		files++
		lines := strings.Split(string(src), "\n")
		packages := importNames(f)
		ast.Inspect(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok {
				return true
			}
			line := fset.Position(as.Pos()).Line
			if name := droppedReason(as, packages); name != "" && (line < 2 || !strings.HasPrefix(strings.TrimSpace(lines[line-2]), reasonMarker)) {
				t.Errorf("%s: the reason of %s is dropped: ask Holds (HoldsArgs), which words none", fset.Position(as.Pos()), name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 200 {
		t.Fatalf("read %d files: the walk missed the tree", files)
	}
}

// reasonMarker starts the comment, on the line just before, of a call
// that drops a matcher's reason and says why.
const reasonMarker = "// reason dropped:"

// droppedReason is the name of the method, Match or MatchArgs, whose call
// as assigns to two names, the second the blank one; "" for any other
// assignment, and for a function of one of the file's packages.
func droppedReason(as *ast.AssignStmt, packages map[string]bool) string {
	if len(as.Lhs) != 2 || len(as.Rhs) != 1 {
		return ""
	}
	if blank, ok := as.Lhs[1].(*ast.Ident); !ok || blank.Name != "_" {
		return ""
	}
	call, ok := as.Rhs[0].(*ast.CallExpr)
	if !ok {
		return ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Match" && sel.Sel.Name != "MatchArgs" {
		return ""
	}
	if pkg, ok := sel.X.(*ast.Ident); ok && packages[pkg.Name] {
		return ""
	}
	return sel.Sel.Name
}

// importNames are the names f's imports are known by.
func importNames(f *ast.File) map[string]bool {
	names := map[string]bool{}
	for _, imp := range f.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = true
	}
	return names
}
