package spoolfile

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestCreateLeavesNoName: over drawn patterns and contents, a spool is
// written and read back whole while its directory holds no name of it,
// and closing it leaves the directory empty; both ways, Create's (on
// Linux a file of no name) and the named file removed at once.
func TestCreateLeavesNoName(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("an open file cannot be removed on Windows: Close removes it")
	}
	for _, c := range []struct {
		name   string
		create func(string) (*File, error)
	}{{"Create", Create}, {"createNamed", createNamed}} {
		t.Run(c.name, func(t *testing.T) { leavesNoName(t, c.create) })
	}
}

func leavesNoName(t *testing.T, create func(string) (*File, error)) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	r := rand.New(rand.NewPCG(40, 4))
	empty := func(what string) {
		t.Helper()
		names, err := os.ReadDir(tmp)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			t.Errorf("%s: %s left in the temporary directory", what, n.Name())
		}
	}
	for i := range 200 {
		pattern := fmt.Sprintf("mcptest-%d-*.json", i)
		if r.IntN(4) == 0 {
			pattern = "mcptest-spool"
		}
		f, err := create(pattern)
		if err != nil {
			t.Fatal(err)
		}
		empty("open " + pattern)
		data := make([]byte, r.IntN(1<<16))
		for k := range data {
			data[k] = byte(r.Uint32())
		}
		if _, err := f.Write(data); err != nil {
			t.Fatal(err)
		}
		back := make([]byte, len(data))
		if _, err := f.ReadAt(back, 0); len(data) > 0 && err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back, data) {
			t.Fatalf("%s: read back %d bytes unlike the %d written", pattern, len(back), len(data))
		}
		if err := f.Close(); err != nil {
			t.Fatalf("close %s: %v", pattern, err)
		}
		empty("closed " + pattern)
	}
}

// TestCreateRefusesMissingDir: without a temporary directory, Create
// gives os.CreateTemp's error, not a file.
func TestCreateRefusesMissingDir(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "gone"))
	if f, err := Create("mcptest-*.json"); err == nil {
		f.Close()
		t.Fatal("Create in a missing directory: no error")
	}
}

// TestEverySpoolIsUnlinked holds every file mcptest creates in the
// temporary directory to this package: os.CreateTemp is called in no
// other package's code but internal/safefile's, which creates its file in
// the output's own directory and renames it over the output. A spool made
// any other way is left behind by a killed process.
func TestEverySpoolIsUnlinked(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"internal/spoolfile": true, "internal/safefile": true}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		osName := ""
		for _, imp := range f.Imports {
			if imp.Path.Value == `"os"` {
				osName = "os"
				if imp.Name != nil {
					osName = imp.Name.Name
				}
			}
		}
		if osName == "" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "CreateTemp" {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == osName && !allowed[filepath.ToSlash(rel)] {
				t.Errorf("%s: os.CreateTemp: create a spool with spoolfile.Create (a killed process leaves no file)", path)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files under %s: not the repository", files, root)
	}
}
