package safefile

import (
	"errors"
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
