//go:build unix

package safefile

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// TestReadRawIsReadWith draws directories of entries of every kind a
// reader meets (regular files of drawn sizes on both sides of the limit,
// empty ones, FIFOs, directories, links to each, dangling links, missing
// names, a name under a file) and reads each with readRaw, the read
// without an *os.File, and with readWith through openPath, the read it
// replaced, into arrays of drawn capacities: the bytes, the size handed
// to sized, and the error (its words and its type) must be the same.
func TestReadRawIsReadWith(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 3))
	kinds := map[string]int{}
	for range 30 {
		dir := t.TempDir()
		limit := int64(1 + rng.IntN(4096))
		var names []string
		for i := range 12 {
			name := filepath.Join(dir, "e"+string(rune('a'+i)))
			kinds[drawEntry(t, rng, dir, name, limit)]++
			names = append(names, name)
		}
		names = append(names, filepath.Join(dir, "missing"), filepath.Join(names[0], "under"))
		for _, name := range names {
			var bufA, bufB []byte
			if c := rng.IntN(3); c > 0 {
				bufA, bufB = make([]byte, 0, c*int(limit)/2), make([]byte, 0, c*int(limit)/2)
			}
			var sizeA, sizeB []int64
			got, errA := readRaw(name, limit, bufA, func(n int64) { sizeA = append(sizeA, n) })
			want, errB := readWith(name, limit, bufB, func(n int64) { sizeB = append(sizeB, n) },
				func() (*os.File, fs.FileInfo, error) { return openPath(name, limit) })
			if !bytes.Equal(got, want) || (got == nil) != (want == nil) {
				t.Fatalf("%s: read %d bytes, the os read %d", name, len(got), len(want))
			}
			if !reflect.DeepEqual(sizeA, sizeB) {
				t.Fatalf("%s: sized got %v, the os read %v", name, sizeA, sizeB)
			}
			if (errA == nil) != (errB == nil) || errA != nil && (errA.Error() != errB.Error() || reflect.TypeOf(errA) != reflect.TypeOf(errB) || IsLimit(errA) != IsLimit(errB)) {
				t.Fatalf("%s: error %v (%T), the os read %v (%T)", name, errA, errA, errB, errB)
			}
			var pe *fs.PathError
			if errors.As(errB, &pe) && !errors.As(errA, &pe) {
				t.Fatalf("%s: %v is no *fs.PathError", name, errA)
			}
		}
	}
	for _, k := range []string{"file", "empty", "over", "fifo", "dir", "link", "dangling"} {
		if kinds[k] == 0 {
			t.Errorf("no %s drawn: %v", k, kinds)
		}
	}
}

// drawEntry makes one entry at name and says its kind.
func drawEntry(t *testing.T, rng *rand.Rand, dir, name string, limit int64) string {
	t.Helper()
	var err error
	kind := []string{"file", "file", "file", "empty", "over", "fifo", "dir", "link", "dangling"}[rng.IntN(9)]
	switch kind {
	case "file", "over", "empty":
		n := rng.Int64N(limit + 1)
		if kind == "over" {
			n = limit + 1 + rng.Int64N(2*limit)
		} else if kind == "empty" {
			n = 0
		}
		err = os.WriteFile(name, []byte(strings.Repeat("x", int(n))), 0o644)
	case "fifo":
		err = syscall.Mkfifo(name, 0o644)
	case "dir":
		err = os.Mkdir(name, 0o755)
	case "link":
		target := filepath.Join(dir, "target-"+filepath.Base(name))
		if err = os.WriteFile(target, []byte("linked"), 0o644); err == nil {
			err = os.Symlink(target, name)
		}
	case "dangling":
		err = os.Symlink(filepath.Join(dir, "nowhere"), name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return kind
}

// TestOpenRawTakesRegularFiles draws entries of every kind (with a file
// of exactly the limit each time) and holds openRaw to what it says: a
// regular file of at most limit bytes is kept as a descriptor (ok, no
// *os.File, its size), anything else that opens is handed over as an
// *os.File named by the path, a failed open is an *fs.PathError, and fd
// is -1 unless ok.
func TestOpenRawTakesRegularFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 7))
	ways := map[string]int{}
	for range 20 {
		dir := t.TempDir()
		limit := int64(1 + rng.IntN(64))
		exact := filepath.Join(dir, "exact")
		if err := os.WriteFile(exact, []byte(strings.Repeat("x", int(limit))), 0o644); err != nil {
			t.Fatal(err)
		}
		names := []string{exact, filepath.Join(dir, "missing"), filepath.Join(exact, "under")}
		for i := range 8 {
			name := filepath.Join(dir, "e"+string(rune('a'+i)))
			drawEntry(t, rng, dir, name, limit)
			names = append(names, name)
		}
		for _, name := range names {
			ways[checkOpenRaw(t, name, limit)]++
		}
	}
	for _, w := range []string{"failed", "kept", "handed"} {
		if ways[w] == 0 {
			t.Errorf("none %s: %v", w, ways)
		}
	}
}

// checkOpenRaw opens name with openRaw, checks what it gave against the
// entry's stat, closes what it opened and says which way it went.
func checkOpenRaw(t *testing.T, name string, limit int64) string {
	t.Helper()
	st, statErr := os.Stat(name)
	fd, size, f, ok, err := openRaw(name, limit)
	var pe *fs.PathError
	switch {
	case statErr != nil:
		if err == nil || !errors.As(err, &pe) || pe.Path != name || ok || f != nil || fd != -1 {
			t.Fatalf("%s (%v): openRaw gave fd %d, file %v, ok %v, error %v", name, statErr, fd, f, ok, err)
		}
		return "failed"
	case st.Mode().IsRegular() && st.Size() <= limit:
		if err != nil || !ok || f != nil || fd < 0 || size != st.Size() {
			t.Fatalf("%s (%d bytes, limit %d): openRaw gave fd %d, size %d, file %v, ok %v, error %v", name, st.Size(), limit, fd, size, f, ok, err)
		}
		syscall.Close(fd)
		return "kept"
	}
	if err != nil || ok || f == nil || f.Name() != name || fd != -1 {
		t.Fatalf("%s (%v, limit %d): openRaw gave fd %d, file %v, ok %v, error %v", name, st.Mode(), limit, fd, f, ok, err)
	}
	f.Close()
	return "handed"
}
