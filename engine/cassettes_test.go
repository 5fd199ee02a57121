package engine

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/engine/cassette/gen"
	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/engine/report"
)

// runErrors loads the suite at path and runs it, returning the input
// errors of the run; it fails the test when the run does not stop within
// five seconds or gives anything else.
func runErrors(t *testing.T, path string) diag.List {
	t.Helper()
	s, err := LoadSuite(path)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	err = within(t, 5*time.Second, func() error { _, err := Run(s, Options{}); return err })
	var l diag.List
	if !errors.As(err, &l) {
		t.Fatalf("run: %v, want input errors", err)
	}
	return l
}

const oneCassetteSuite = `agents:
  - name: reads c.json
    cassette: c.json
    expect:
      - target: final_response
        matcher: { contains: done }
`

// A cassette that names a pipe or a device is refused before a byte is
// read: a FIFO without a writer used to block the run forever, and
// `cassette: /dev/zero` to fill the memory (the test names /dev/null, which
// is refused the same way and cannot hurt when the check regresses).
func TestCassetteNotRegularIsRefused(t *testing.T) {
	p := fifo(t, "c.json")
	suite := filepath.Join(filepath.Dir(p), "suite.yml")
	if err := os.WriteFile(suite, []byte(oneCassetteSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	l := runErrors(t, suite)
	if len(l) != 1 || !strings.HasSuffix(l[0].Error(), "c.json: is a named pipe (FIFO), not a regular file [cassette]") {
		t.Errorf("errors: %v", l)
	}
	if _, err := os.Stat("/dev/null"); err != nil {
		return
	}
	dev := strings.Replace(oneCassetteSuite, "cassette: c.json", "cassette: /dev/null", 1)
	if err := os.WriteFile(suite, []byte(dev), 0o644); err != nil {
		t.Fatal(err)
	}
	l = runErrors(t, suite)
	if len(l) != 1 || l[0].Error() != "/dev/null: is a device, not a regular file [cassette]" {
		t.Errorf("errors: %v", l)
	}
}

// A cassette over the 64 MiB limit is refused from its size before it is
// read: a sparse file of 200 MiB costs no memory to refuse.
func TestCassetteTooLargeIsRefusedBeforeReading(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "c.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 200<<20); err != nil {
		t.Skip("no sparse files here:", err)
	}
	suite := filepath.Join(dir, "suite.yml")
	if err := os.WriteFile(suite, []byte(oneCassetteSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	l := runErrors(t, suite)
	runtime.ReadMemStats(&after)
	want := filepath.ToSlash(big) + ": the file is 200 MiB, over the 64 MiB limit for a cassette: split the runs over several files [cassette]"
	if len(l) != 1 || l[0].Error() != want {
		t.Errorf("errors:\n%v\nwant\n%s", l, want)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
		t.Errorf("refusing the file allocated %d MiB: it was read", n>>20)
	}
}

// A cassette of many short calls is replayed run by run: the heap stays
// within 4 times the file's size (a 53 MB cassette of 1,000,000 calls used
// to take 1.2 GB, its whole tree decoded into generic values first). Here
// 500,000 calls, 26 MB.
func TestLargeCassetteMemoryIsBounded(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "c.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := gen.ManyCalls(f, 500, 1000); err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	f.Close()
	suite := filepath.Join(dir, "suite.yml")
	if err := os.WriteFile(suite, []byte(oneCassetteSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	stop := gen.HeapPeak()
	env, err := Run(s, Options{})
	peak := stop()
	if err != nil || env.Verdict != report.Pass || env.Cases[0].Runs != 500 {
		t.Fatalf("run: %v, %+v", err, env)
	}
	if ratio := float64(peak) / float64(fi.Size()); ratio > 4 {
		t.Errorf("replaying a %d MB cassette took %d MB of heap, %.1f times its size: more than 4", fi.Size()>>20, peak>>20, ratio)
	} else {
		t.Logf("peak heap %.1f MB for a %.1f MB cassette (%.2fx)", float64(peak)/(1<<20), float64(fi.Size())/(1<<20), ratio)
	}
}
