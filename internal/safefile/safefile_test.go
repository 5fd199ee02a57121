package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFileLimits(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok")
	if err := os.WriteFile(ok, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(ok, 5); err != nil || string(data) != "12345" {
		t.Fatalf("at the limit: %q %v", data, err)
	}
	_, err := ReadFile(ok, 4)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 5 || tl.Limit != 4 {
		t.Fatalf("over the limit: %v", err)
	}
	if !IsLimit(err) {
		t.Fatal("IsLimit(too large) = false")
	}

	// A sparse file is refused from its stat, before any byte is read.
	sparse := filepath.Join(dir, "sparse")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		t.Skip("no sparse files here:", err)
	}
	f.Close()
	_, err = ReadFile(sparse, 64<<20)
	if !errors.As(err, &tl) || tl.Size != 1<<40 {
		t.Fatalf("sparse: %v", err)
	}
	if !strings.Contains(err.Error(), "1024 GiB") || !strings.Contains(err.Error(), "64 MiB limit") {
		t.Fatalf("message: %v", err)
	}

	_, err = ReadFile(dir, 10)
	var nr *NotRegularError
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "a directory") {
		t.Fatalf("directory: %v", err)
	}
}

func TestReadFileRefusesFIFOAndDevices(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile(fifo, 1<<20); done <- err }()
	select {
	case err := <-done:
		if !strings.Contains(err.Error(), "named pipe") {
			t.Fatalf("fifo: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO with no writer hung")
	}
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		if _, err := os.Stat(dev); err != nil {
			continue
		}
		_, err := ReadFile(dev, 1<<20)
		if !strings.Contains(err.Error(), "a device") {
			t.Fatalf("%s: %v", dev, err)
		}
	}
}

func TestReadAll(t *testing.T) {
	if _, err := ReadAll("stdin", strings.NewReader("abcdef"), 5); !IsLimit(err) {
		t.Fatalf("over: %v", err)
	}
	if b, err := ReadAll("stdin", strings.NewReader("abcde"), 5); err != nil || string(b) != "abcde" {
		t.Fatalf("at: %q %v", b, err)
	}
}

func TestWriteFileRenames(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, 0o644, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("fill error: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Fatalf("a failed write changed the file: %q", b)
	}
	if err := WriteFile(p, []byte("new content"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new content" {
		t.Fatalf("content %q", b)
	}
	if fi, _ := os.Stat(p); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

func TestReadOwnFileRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(outside, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(dir, "own.json")
	if err := os.WriteFile(own, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadOwnFile(own, 10); err != nil || string(data) != "{}" {
		t.Fatalf("own file: %q %v", data, err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(outside, link); err != nil {
		t.Skip("symlink:", err)
	}
	if data, err := ReadFile(link, 10); err != nil || string(data) != "{}" {
		t.Fatalf("ReadFile follows a link: %q %v", data, err)
	}
	_, err := ReadOwnFile(link, 10)
	var nr *NotRegularError
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "a symbolic link") {
		t.Fatalf("link: %v", err)
	}
	if _, err := ReadOwnFile(own, 1); !IsLimit(err) {
		t.Fatalf("over the limit: %v", err)
	}
}

func TestWriteOutput(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "report.html")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "latest.html")
	if err := os.Symlink("report.html", link); err != nil {
		t.Skip("symlink:", err)
	}
	if err := WriteOutput(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("the link's target holds %q", b)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if err := WriteOutput(dir, []byte("x"), 0o644); !IsLimit(err) {
		t.Fatalf("a directory: %v", err)
	}
	if _, err := os.Stat(os.DevNull); err == nil {
		if err := WriteOutput(os.DevNull, []byte("x"), 0o644); err != nil {
			t.Fatalf("%s: %v", os.DevNull, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if IsTemp(e.Name()) {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// TestWriteHasNoNameWhileFilling: while fill writes, the directory holds
// no temporary file where the system makes files of no name (Linux), and
// one IsTemp knows elsewhere; once written, the output alone, of its mode;
// a fill that fails leaves nothing.
func TestWriteHasNoNameWhileFilling(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.json")
	probe, unnamed := createUnnamed(dir, "probe")
	if unnamed {
		probe.Close()
	}
	t.Logf("files of no name: %v", unnamed)
	err := Write(p, 0o640, func(w io.Writer) error {
		entries, _ := os.ReadDir(dir)
		switch {
		case unnamed && len(entries) != 0:
			t.Errorf("a file of no name, yet the directory holds %v", entries)
		case !unnamed && (len(entries) != 1 || !IsTemp(entries[0].Name())):
			t.Errorf("IsTemp does not know the temporary file: %v", entries)
		}
		_, err := io.WriteString(w, "done")
		return err
	})
	entries, _ := os.ReadDir(dir)
	data, _ := os.ReadFile(p)
	fi, serr := os.Stat(p)
	if err != nil || serr != nil || len(entries) != 1 || string(data) != "done" || fi.Mode().Perm() != 0o640 {
		t.Fatalf("written: %v, %v, %v, %q, %v", err, serr, entries, data, fi)
	}
	if err := Write(filepath.Join(dir, "other.json"), 0o644, func(w io.Writer) error {
		io.WriteString(w, "half")
		return errors.New("failed")
	}); err == nil {
		t.Fatal("a fill that failed wrote")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("a fill that failed left %v", entries)
	}
}

// TestWriteUnlinkedIsCopied: where a file of no name cannot be linked
// (no /proc), Write copies it to a named temporary file renamed over the
// output: the same content and mode, nothing left beside it.
func TestWriteUnlinkedIsCopied(t *testing.T) {
	dir := t.TempDir()
	if f, ok := createUnnamed(dir, "probe"); !ok {
		t.Skip("no file of no name here")
	} else {
		f.Close()
	}
	defer func(l func(*os.File, string) error) { linkFile = l }(linkFile)
	linkFile = func(*os.File, string) error { return errors.New("no /proc") }
	p := filepath.Join(dir, "out.json")
	want := strings.Repeat("0123456789", 50000)
	if err := Write(p, 0o640, func(w io.Writer) error { _, err := io.WriteString(w, want); return err }); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	fi, err := os.Stat(p)
	entries, _ := os.ReadDir(dir)
	if err != nil || string(data) != want || fi.Mode().Perm() != 0o640 || len(entries) != 1 {
		t.Fatalf("copied: %v, %d bytes, %v, %v", err, len(data), fi, entries)
	}
}

func TestIsTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.json")
	writeNamed(dir, "run.json", p, 0o644, func(w io.Writer) error {
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 || !IsTemp(entries[0].Name()) {
			t.Errorf("IsTemp does not know the temporary file: %v", entries)
		}
		return nil
	})
	for _, name := range []string{"run.json", ".hidden", "x.tmp-1"} {
		if IsTemp(name) {
			t.Errorf("IsTemp(%q) = true", name)
		}
	}
}

func TestWriteErrorNamesTheTarget(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.html")
	err := Write(p, 0o644, func(w io.Writer) error {
		f := w.(*os.File)
		f.Close()
		_, err := f.Write([]byte("x"))
		return err
	})
	if err == nil || !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), ".tmp-") {
		t.Fatalf("error %v: want it to name %s, not the temporary file", err, p)
	}
}

// The In variants stay inside their root: a symbolic link to outside is
// refused for reading and writing alike, a FIFO inside is refused without
// hanging, and a link at the written name is replaced, never followed.
func TestInRootStaysInside(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or unprivileged symbolic links")
	}
	dir, outside, root := linkedRoot(t)
	checkReadsInRoot(t, root, outside)
	checkWritesInRoot(t, root, dir, outside)
}

// linkedRoot makes a root directory holding links out of it (abs.json,
// rel.json, out), a file in.json with a link alias.json to it, and a FIFO
// fifo.json, beside an outside directory holding secret.json. It returns
// the root's path, the outside directory and the open root.
func linkedRoot(t *testing.T) (dir, outside string, root *os.Root) {
	t.Helper()
	outside = t.TempDir()
	secret := filepath.Join(outside, "secret.json")
	if err := os.WriteFile(secret, []byte(`{"secret":true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	for link, to := range map[string]string{"abs.json": secret, "rel.json": "../" + filepath.Base(outside) + "/secret.json", "out": outside, "alias.json": "in.json"} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "in.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return dir, outside, root
}

// checkReadsInRoot: ReadFileIn refuses every way out of the root, follows
// a link that stays inside, and refuses a FIFO without waiting on it.
func checkReadsInRoot(t *testing.T, root *os.Root, outside string) {
	t.Helper()
	for _, name := range []string{"abs.json", "rel.json", "out/secret.json", "../" + filepath.Base(outside) + "/secret.json"} {
		if data, err := ReadFileIn(root, name, 1<<20); err == nil || !strings.Contains(err.Error(), "escapes") {
			t.Errorf("ReadFileIn(%s) = %q, %v; want a refusal", name, data, err)
		}
	}
	if data, err := ReadFileIn(root, "alias.json", 1<<20); err != nil || string(data) != "{}" {
		t.Errorf("a link inside the root: %q %v", data, err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFileIn(root, "fifo.json", 1<<20); done <- err }()
	select {
	case err := <-done:
		if !strings.Contains(fmt.Sprint(err), "named pipe") {
			t.Errorf("fifo: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO inside the root hung")
	}
}

// checkWritesInRoot: WriteFileIn never writes through a link to outside,
// replaces a link at the written name with a regular file, and leaves no
// temporary file behind.
func checkWritesInRoot(t *testing.T, root *os.Root, dir, outside string) {
	t.Helper()
	if err := WriteFileIn(root, "out/new.json", []byte("x"), 0o644); err == nil {
		t.Error("WriteFileIn through a link to outside succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "new.json")); err == nil {
		t.Error("WriteFileIn wrote outside the root")
	}
	if err := WriteFileIn(root, "abs.json", []byte("replaced"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "secret.json")); string(data) != `{"secret":true}` {
		t.Errorf("WriteFileIn followed a link at the name: the outside file holds %q", data)
	}
	fi, err := os.Lstat(filepath.Join(dir, "abs.json"))
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
		t.Errorf("abs.json after WriteFileIn: %v %v", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{
		0:               "0 bytes",
		1<<20 - 1:       "1048575 bytes",
		1 << 20:         "1 MiB",
		64<<20 + 1:      "64.0 MiB",
		1536 << 20:      "1.5 GiB",
		1 << 30:         "1 GiB",
		1<<30 - 1:       "1024.0 MiB",
		3<<30 + 300<<20: "3.3 GiB",
	} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestWriteOutputCreatesParents: an --output path in a directory that does
// not exist yet (.mcptest/ on a fresh checkout) is written, its parents
// created.
func TestWriteOutputCreatesParents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reports", "html", "run.html")
	if err := WriteOutput(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "x" {
		t.Errorf("read back %q, %v", data, err)
	}
}

// TestResolve: every spelling of one file resolves to one path: through a
// link to the file, a link to its directory, a dangling link (where a
// write would go), a missing file under a linked directory, ./ and ../.
func TestResolve(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(real)
	want = filepath.Join(want, "a.json")
	links := filepath.Join(dir, "links")
	os.Mkdir(links, 0o755)
	for _, l := range [][2]string{{"../real/a.json", "links/file"}, {"real", "dirlink"}, {"../dirlink/a.json", "links/chain"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Skip("symlink:", err)
		}
	}
	t.Chdir(dir)
	check := func(state string) {
		for _, p := range []string{"real/a.json", "./real/../real/a.json", "links/file", "dirlink/a.json", "links/chain", filepath.Join(dir, "links", "file")} {
			if got := Resolve(p); got != want {
				t.Errorf("%s: Resolve(%q) = %q, want %q", state, p, got, want)
			}
		}
	}
	check("before the file exists")
	os.WriteFile(filepath.Join(real, "a.json"), []byte("{}"), 0o644)
	check("once it exists")
}
