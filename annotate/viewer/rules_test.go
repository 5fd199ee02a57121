package viewer

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// recordedMarker is the tool the test's Recorded reads from every case's
// "recordings": a page that shows it read the case's timelines again.
const recordedMarker = "tool-read-again-from-the-recording"

var _ annotate.Recorded = markRecorded

// markRecorded is an annotate.Recorded that gives every case one run
// calling recordedMarker.
func markRecorded(string, *report.CaseResult) ([]report.RunEvidence, string) {
	return []report.RunEvidence{{Run: 1, Turns: []report.TurnEvidence{{Calls: []report.CallEvidence{{Tool: recordedMarker, Arguments: "{}", Result: "ok"}}}}}}, ""
}

// TestPagesReadRecordings: every page view serves of a run (the run's own
// report at /, a stored run at /run/ID, a comparison at /compare) reads
// the timelines of a case whose envelope holds none again through the
// store's Recorded, as `mcptest report` does; a store without one shows
// what the envelope holds.
func TestPagesReadRecordings(t *testing.T) {
	plain, dir := testStore(t)
	env, err := baseline.ReadFile(dir+"/"+older+".json", "", report.Read)
	if err != nil {
		t.Fatal(err)
	}
	reread := 0
	for _, c := range env.Cases {
		if len(c.Evidence) == 0 && c.Cassettes != nil {
			reread++
		}
	}
	if reread == 0 {
		t.Fatal("no case of the stored run has its timelines read again: the test shows nothing")
	}
	for _, tc := range []struct {
		name  string
		store Store
		want  bool
	}{
		{"with Recorded", Store{Runs: plain.Runs, Recorded: markRecorded}, true},
		{"without", plain, false},
	} {
		v, err := New(env, tc.store)
		if err != nil {
			t.Fatal(err)
		}
		ln, err := v.Listen("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln.Close()
		for _, path := range []string{"/", "/run/" + older, "/compare?base=" + older + "&head=" + newer} {
			w := httptest.NewRecorder()
			v.handler.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+path, nil))
			if w.Code != http.StatusOK {
				t.Fatalf("%s: %s: %d", tc.name, path, w.Code)
			}
			if got := strings.Contains(w.Body.String(), recordedMarker); got != tc.want {
				t.Errorf("%s: %s shows the timelines read again: %v, want %v", tc.name, path, got, tc.want)
			}
		}
	}
}

// TestNoServeRule: --no-serve writes the snapshot viewer and its address
// and serves nothing; without --snapshot it is refused before anything is
// read, an input error.
func TestNoServeRule(t *testing.T) {
	store, dir := testStore(t)
	run := filepath.Join(dir, older+".json")
	var out bytes.Buffer
	listened := false
	o := Options{Args: []string{run}, NoServe: true, Addr: "127.0.0.1:0", Stdout: &out,
		Listening: func(string) { listened = true },
		// Should it serve, it stops at once.
		Context: func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}}
	var ie *diag.InputError
	if err := Run(store, o); !errors.As(err, &ie) || !strings.Contains(err.Error(), "--no-serve goes with --snapshot FILE") || out.Len() > 0 {
		t.Errorf("--no-serve without --snapshot: %v, stdout %q", err, out.String())
	}
	o.Snapshot = filepath.Join(t.TempDir(), "viewer.html")
	if err := Run(store, o); err != nil {
		t.Fatalf("--no-serve --snapshot: %v", err)
	}
	if listened || !strings.HasPrefix(out.String(), "snapshot: file://") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("--no-serve --snapshot: listened %v, stdout %.200q; want the snapshot's address alone", listened, out.String())
	}
	if _, err := os.Stat(o.Snapshot); err != nil {
		t.Errorf("no snapshot viewer written: %v", err)
	}
	o.NoServe, o.Snapshot = false, ""
	o.Addr = "0.0.0.0:0" // refused before it listens: the run is served otherwise
	if err := Run(store, o); !errors.As(err, &ie) {
		t.Errorf("serving without --no-serve: %v, want the loopback refusal", err)
	}
}

// TestRunSaysWhichRun: --latest says on stderr which stored run it picked
// (a nil Stderr discards it), a run named by its file says nothing.
func TestRunSaysWhichRun(t *testing.T) {
	store, dir := testStore(t)
	var errb bytes.Buffer
	o := Options{Latest: true, NoServe: true, Snapshot: filepath.Join(t.TempDir(), "viewer.html"), Stderr: &errb}
	// The newest stored file is not an envelope: Run names it, then
	// refuses it.
	if err := Run(store, o); err == nil || !strings.Contains(errb.String(), "mcptest: the newest stored run, 01M84QFR5RWDJ0P7H1J4SAKGPD") {
		t.Errorf("--latest: %v, stderr %q; want the run it picked named", err, errb.String())
	}
	o.Stderr = nil
	if err := Run(store, o); err == nil {
		t.Error("--latest with no Stderr: the file that is not an envelope was read")
	}
	errb.Reset()
	o.Latest, o.Args, o.Stderr = false, []string{filepath.Join(dir, older+".json")}, &errb
	if err := Run(store, o); err != nil || errb.Len() > 0 {
		t.Errorf("RUN.json: %v, stderr %q; want nothing said", err, errb.String())
	}
}

// TestLatestPicksOnlyStoredRuns: --latest picks the newest regular file
// named <run id>.json, passing over what sorts after it and is not one (a
// directory so named, a file without .json, another .json, another file),
// down to the first entry of the store.
func TestLatestPicksOnlyStoredRuns(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, older+".json")
	data, err := os.ReadFile("../../examples/baseline/baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{older + ".json": string(data), "01M84QFR5RWDJ0P7H1J4SAKGPF": "{}", "notes.json": "{}", "zzz.txt": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "01M84QFR5RWDJ0P7H1J4SAKGPE.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	store := Store{Runs: func() (string, error) { return dir, nil }}
	if p, note, err := store.Pick(nil, true, ""); p != run || !strings.HasSuffix(note, older) || err != nil {
		t.Errorf("--latest: %q %q %v; want %s", p, note, err, run)
	}
}

// TestCompareNeedsBothAndCaseIn: /compare with one id that is not a stored
// run is a 404 whichever side it is; a run's case is the one of that name,
// none when the run lacks it.
func TestCompareNeedsBothAndCaseIn(t *testing.T) {
	store, dir := testStore(t)
	h := store.Pages()
	for _, q := range []string{"base=" + older + "&head=NOTANID", "base=NOTANID&head=" + older} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/compare?"+q, nil))
		if w.Code != http.StatusNotFound {
			t.Errorf("/compare?%s: %d, want 404", q, w.Code)
		}
	}
	env, err := baseline.ReadFile(filepath.Join(dir, older+".json"), "", report.Read)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range env.Cases {
		if in := caseIn(env, c.Name); in.Case != c {
			t.Errorf("caseIn(%q) is %v", c.Name, in.Case)
		}
	}
	if in := caseIn(env, "no such case"); in.Case != nil {
		t.Errorf("caseIn of a case the run lacks: %q", in.Case.Name)
	}
}
