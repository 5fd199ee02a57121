package engine

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
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

// A recorded model name is untrusted text: one with a newline or a bidi
// override (a hostile Claude Code init event here) is written to the
// envelope escaped, so the envelope mcptest writes is one it reads back
// (report, --compare, merge and the cache used to refuse it).
func TestRecordedModelWithControlsKeepsTheEnvelopeReadable(t *testing.T) {
	session := `{"type":"system","subtype":"init","session_id":"s","model":"claude\u202e\n::warning::x","tools":["Bash"]}
{"type":"result","subtype":"success","session_id":"s","result":"done"}
`
	s := writeSuite(t, `
agents:
  - name: a
    cassette: session.jsonl
    expect:
      - final_response: { contains: done }
`, map[string]string{"session.jsonl": session})
	env := run(t, s, Options{})
	if err := env.Check(); err != nil {
		t.Fatalf("the envelope written does not read back: %v", err)
	}
	if got, want := env.Cases[0].Model, `claude\u202e\n::warning::x`; got != want {
		t.Errorf("model %q, want %q", got, want)
	}
}

// A JSON Lines file of responses from two models prices each line's run at
// its own model's rates: the gpt-4o-mini line was priced at gpt-4o's, the
// first line's, so the pair cost $0.025 instead of $0.01325.
func TestEachLineIsPricedAtItsOwnModel(t *testing.T) {
	line := func(model string) string {
		return `{"object": "chat.completion", "model": "` + model + `", "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok",
 "tool_calls": [{"id": "c", "type": "function", "function": {"name": "t", "arguments": "{}"}}]}}], "usage": {"prompt_tokens": 1000, "completion_tokens": 1000}}`
	}
	s := writeSuite(t, `
agents:
  - name: a
    runs: 2
    cassette: m.jsonl
    token_efficiency:
      classes: [{name: t, members: [t]}]
`, map[string]string{"m.jsonl": strings.ReplaceAll(line("gpt-4o"), "\n", "") + "\n" + strings.ReplaceAll(line("gpt-4o-mini"), "\n", "") + "\n"})
	env := run(t, s, Options{})
	c := env.Cases[0]
	// gpt-4o: 1000 × $2.5e-6 + 1000 × $10e-6 = $0.0125; gpt-4o-mini: 1000 ×
	// $0.15e-6 + 1000 × $0.6e-6 = $0.00075.
	if got := c.Targets["token_efficiency.cost"]; got != 0.01325 || c.PricedRuns != 2 || c.Model != "gpt-4o" {
		t.Errorf("cost %v, priced runs %d, model %q; want 0.01325, 2, gpt-4o", got, c.PricedRuns, c.Model)
	}
}
