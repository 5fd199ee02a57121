package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptest/mcptest/internal/diag"
)

// An inline suite of the front door resolves its paths against the
// workspace root; every other suite against its own directory.
func TestSuiteDir(t *testing.T) {
	for in, want := range map[string]string{
		"suite.yml":                         ".",
		"examples/quickstart/suite.yml":     "examples/quickstart",
		".mcptest/inline/01ABC.yml":         ".",
		"ws/.mcptest/inline/01ABC.yml":      "ws",
		"/abs/ws/.mcptest/inline/01ABC.yml": "/abs/ws",
		"ws/inline/suite.yml":               "ws/inline",
	} {
		if got := suiteDir(in); got != want {
			t.Errorf("suiteDir(%q) = %q, want %q", in, got, want)
		}
	}
}

// fifo makes a named pipe in a temporary directory. Its cleanup opens the
// pipe for writing and closes it, so a reader blocked on it (the bug a test
// looks for) gets end of file instead of hanging the test binary.
func fifo(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(p, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return p
}

// within runs f and fails the test when it has not returned after d.
func within[T any](t *testing.T, d time.Duration, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("still blocked after %v", d)
	}
	var zero T
	return zero
}

// loadError loads path and returns its only diag error, failing the test
// when there is anything else.
func loadError(t *testing.T, path string) *diag.Error {
	t.Helper()
	err := within(t, 5*time.Second, func() error { _, err := LoadSuite(path); return err })
	var l diag.List
	if !errors.As(err, &l) || len(l) != 1 {
		t.Fatalf("LoadSuite(%s) = %v, want one diag error", path, err)
	}
	return l[0]
}

// A suite path that names a pipe, a device or a file over the limit is
// refused from its stat, before a byte is read: a FIFO without a writer
// used to block the run forever, /dev/zero to fill the memory.
func TestLoadSuiteRefusesWhatItCannotRead(t *testing.T) {
	if e := loadError(t, fifo(t, "suite.yml")); !strings.HasSuffix(e.Error(), ": is a named pipe (FIFO), not a regular file [suite]") {
		t.Errorf("FIFO: %v", e)
	}
	if _, err := os.Stat("/dev/null"); err == nil {
		if e := loadError(t, "/dev/null"); e.Error() != "/dev/null: is a device, not a regular file [suite]" {
			t.Errorf("device: %v", e)
		}
	}
	big := filepath.Join(t.TempDir(), "suite.yml")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 1536<<20); err != nil {
		t.Skip("no sparse files here:", err)
	}
	want := big + ": the file is 1.5 GiB, over the 32 MiB limit for a suite [suite]"
	if e := loadError(t, big); e.Error() != want {
		t.Errorf("sparse file:\n got %v\nwant %s", e, want)
	}
	if e := loadError(t, t.TempDir()); !strings.Contains(e.Message, "is a directory: expected a suite file such as") {
		t.Errorf("directory: %v", e)
	}
	if e := loadError(t, filepath.Join(t.TempDir(), "nope.yml")); !strings.Contains(e.Message, "no such file") {
		t.Errorf("missing: %v", e)
	}
}

// A file named as a suite that is none (a shadow file, a JSON key) is
// refused with errors that ask the printer not to echo its lines; a suite's
// own errors keep theirs.
func TestNotASuiteShowsNothingOfIt(t *testing.T) {
	for name, data := range map[string]string{
		"shadow":   "root:$6$Zk3salt$9hGfQhash:20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n",
		"key file": `{"token": "ghp_0123456789abcdefghijklmnopqrstuvwxyz"}`,
		"list":     "- a\n- b\n",
	} {
		_, err := ParseSuite("f.yml", []byte(data))
		var l diag.List
		if !errors.As(err, &l) || len(l) == 0 {
			t.Fatalf("%s: %v", name, err)
		}
		for _, e := range l {
			if !e.HideSource || strings.Contains(e.Message, "ghp_") || strings.Contains(e.Message, "$6$") {
				t.Errorf("%s: %v (HideSource %v)", name, e, e.HideSource)
			}
		}
	}
	_, err := ParseSuite("f.yml", []byte("agents:\n  - name: x\n    cassete: c.json\n"))
	var l diag.List
	if !errors.As(err, &l) || l[0].HideSource {
		t.Errorf("a suite's error hides its source: %v", err)
	}
}

// TestYAMLErrorsArePositioned: every error of a suite that is not valid
// YAML names a line and column: a control character or a byte that is not
// UTF-8 where it stands, a problem on the first line (yaml.v3 names no
// line for it), a nesting over the depth limit where it is crossed.
func TestYAMLErrorsArePositioned(t *testing.T) {
	for _, tt := range []struct{ name, data, want string }{
		{"control character first", "\x01agents: []\n", "f.yml:1:1: invalid YAML: the control character U+0001"},
		{"DEL", "agents:\n  - name: a\x7fb\n", "f.yml:2:12: invalid YAML: the control character U+007F"},
		{"U+FFFE", "agents:\n  - name: \xef\xbf\xbe\n", "f.yml:2:11: invalid YAML: the control character U+FFFE"},
		{"NUL after multi-byte characters", "agents:\n  - name: 日本\x00\n", "f.yml:2:13: invalid YAML: the control character U+0000"},
		{"not UTF-8 after a byte order mark", "\xef\xbb\xbfagents: \xff\n", "f.yml:1:9: invalid YAML: invalid UTF-8: the byte 0xff"},
		{"cut UTF-8 character", "agents: \xe6\x97", "f.yml:1:9: invalid YAML: invalid UTF-8: the byte 0xe6"},
		{"first line", "agents: b: c\n", "f.yml:1:1: invalid YAML: mapping values are not allowed in this context"},
		{"first line after a byte order mark", "\xef\xbb\xbfagents: [a, b\n", "f.yml:1:1: invalid YAML: did not find expected ',' or ']'"},
		{"depth", "agents:\n  - " + strings.Repeat("[", 10001), "f.yml:2:10005: invalid YAML: exceeded max depth of 10000"},
		{"long key", "agents:\n  - name: a\n    " + strings.Repeat("k", 2000) + ": 1\n", "f.yml:3:5: invalid YAML: could not find expected ':' (a mapping key may be at most 1024 characters long)"},
	} {
		_, err := ParseSuite("f.yml", []byte(tt.data))
		var l diag.List
		if !errors.As(err, &l) || len(l) != 1 || !strings.HasPrefix(l[0].Error(), tt.want) {
			t.Errorf("%s: %v\nwant %s…", tt.name, err, tt.want)
		}
	}
	// What YAML allows stays allowed: tabs in values, U+0085, U+FEFF inside
	// the text, characters beyond the BMP.
	ok := "agents:\n  - name: \"a\tb\xc2\x85c\xef\xbb\xbfd😀\"\n    cassette: c.json\n"
	if _, err := ParseSuite("f.yml", []byte(ok)); err != nil && strings.Contains(err.Error(), "invalid YAML") {
		t.Errorf("refused text YAML allows: %v", err)
	}
}

// TestIntegerFields: an integer field takes a whole number in its range,
// however it is written, and refuses anything else where it stands (1e300
// and 2^63-1 used to become runs: 1).
func TestIntegerFields(t *testing.T) {
	suite := func(runs string) string {
		return "agents:\n  - name: x\n    cassette: c.json\n    runs: " + runs + "\n"
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"mcptest_cassette": 1, "runs": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]int{"3": 3, "3.0": 3, "0x10": 16, "1e2": 100, "0": 1, "1000000": 1000000, "1_000": 1000} {
		s, err := ParseSuite(filepath.Join(dir, "suite.yml"), []byte(suite(in)))
		if err != nil || s.Cases[0].Runs != want {
			t.Errorf("runs: %s: %v, want %d", in, err, want)
			continue
		}
	}
	for in, want := range map[string]string{
		"1e300":                      "suite.yml:4:11: runs: 1e300 is not an integer between 0 and 1000000 [suite]",
		"9223372036854775807":        "suite.yml:4:11: runs: 9223372036854775807 is not an integer between 0 and 1000000 [suite]",
		"99999999999999999999999999": "suite.yml:4:11: runs: 99999999999999999999999999 is not an integer between 0 and 1000000 [suite]",
		"1000001":                    "suite.yml:4:11: runs: 1000001 is not an integer between 0 and 1000000 [suite]",
		"2.5":                        "suite.yml:4:11: agents[0].runs: expected an integer, got the number 2.5 [schema]",
	} {
		_, err := ParseSuite(filepath.Join(dir, "suite.yml"), []byte(suite(in)))
		if err == nil || !strings.HasPrefix(strings.TrimPrefix(err.Error(), filepath.ToSlash(dir)+"/"), want) {
			t.Errorf("runs: %s: %v\nwant %s", in, err, want)
		}
	}
}

// TestLoadLargePlainSuite: the size of a suite is bounded by its bytes,
// not by a count of values: 50,000 cases load (8,000 used to be refused
// as "a recursive or exploding alias").
func TestLoadLargePlainSuite(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"mcptest_cassette": "1", "runs": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("agents:\n")
	const n = 50_000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - name: case %d\n    prompt: hi\n    cassette: c.json\n    expect:\n      - calls: {\">=\": 1}\n", i)
	}
	if b.Len() > MaxSuiteBytes {
		t.Fatalf("the suite is %d bytes, over the limit", b.Len())
	}
	start := time.Now()
	s, err := ParseSuite(filepath.Join(dir, "suite.yml"), []byte(b.String()))
	if err != nil {
		t.Fatalf("%.500v", err)
	}
	if len(s.Cases) != n {
		t.Errorf("%d cases, want %d", len(s.Cases), n)
	}
	t.Logf("%d cases (%d KiB) loaded in %v", n, b.Len()>>10, time.Since(start))
}

// TestLoadAliasBomb: a suite whose aliases expand a billion-fold is
// refused quickly, with a positioned error.
func TestLoadAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("x-l0: &l0 [a, a, a, a, a, a, a, a, a, a]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "x-l%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	b.WriteString("agents:\n  - name: a\n    prompt: *l9\n")
	start := time.Now()
	_, err := ParseSuite("bomb.yml", []byte(b.String()))
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	var l diag.List
	if !errors.As(err, &l) || len(l) != 1 || l[0].Pos.Line < 1 || !strings.Contains(l[0].Message, "expand the suite to over 100000 values (an alias bomb?)") {
		t.Errorf("got %v", err)
	}
}

// TestLoadLongSuiteErrors: a suite over 1 MiB, whose tests: the reader
// parses item by item, reports its problems at the lines of the file,
// and a syntax error as the whole-file parse words it.
func TestLoadLongSuiteErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"mcptest_cassette": "1", "runs": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 4000
	suite := func(item func(i int) string) []byte {
		var b strings.Builder
		b.WriteString("# long\ntests:\n")
		for i := range n {
			b.WriteString(item(i))
		}
		if b.Len() < 1<<20 {
			t.Fatalf("the suite is %d bytes, under 1 MiB", b.Len())
		}
		return []byte(b.String())
	}
	plain := func(i int) string {
		return fmt.Sprintf("  - name: case %d %s\n    type: agent\n    cassette: c.json\n    expect:\n      - calls: {\">=\": 1}\n", i, strings.Repeat("x", 200))
	}
	for _, tt := range []struct {
		name string
		item func(i int) string
		want []string
	}{
		{"values", func(i int) string {
			switch i {
			case 2500:
				return plain(i) + "    type: agent\n"
			case 3999:
				return plain(i) + "    expct: 1\n"
			}
			return plain(i)
		}, []string{
			fmt.Sprintf("suite.yml:%d:5: key \"type\" is repeated: it was already set at line %d", 3+5*2500+5, 3+5*2500+1),
		}},
		{"schema", func(i int) string {
			if i == 3999 {
				return plain(i) + "    expct: 1\n"
			}
			return plain(i)
		}, []string{fmt.Sprintf("suite.yml:%d:5: unexpected key \"expct\"", 3+5*3999+5)}},
		{"syntax", func(i int) string {
			if i == 1000 {
				return "  - name: \"case\n"
			}
			return plain(i)
		}, []string{"suite.yml:5008:1: invalid YAML: did not find expected comment or line break"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSuite(filepath.Join(dir, "suite.yml"), suite(tt.item))
			for _, w := range tt.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("got %.600v\nwant %s", err, w)
				}
			}
		})
	}
}
