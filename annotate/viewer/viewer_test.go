package viewer

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/internal/diag"
)

// The ids of the two stored runs: older sorts first.
const (
	older = "01M84QFR5RWDJ0P7H1J4SAKGPB"
	newer = "01M84QFR5RWDJ0P7H1J4SAKGPC"
)

// testStore stores the baseline example's envelope under two run ids and
// a file that is not an envelope under a third, newest of all.
func testStore(t *testing.T) (Store, string) {
	t.Helper()
	data, err := os.ReadFile("../../examples/baseline/baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, id := range []string{older, newer} {
		env := bytes.Replace(data, []byte(older), []byte(id), 1)
		if err := os.WriteFile(filepath.Join(dir, id+".json"), env, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "01M84QFR5RWDJ0P7H1J4SAKGPD.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	return Store{Runs: func() (string, error) { return dir, nil }}, dir
}

// TestPick: RUN.json as given, a stored run by id, else the newest file
// named like a run (readable or not, as view reads it next); every wrong
// choice is a *diag.InputError.
func TestPick(t *testing.T) {
	store, dir := testStore(t)
	if p, note, err := store.Pick([]string{"run.json"}, false, ""); p != "run.json" || note != "" || err != nil {
		t.Errorf("RUN.json: %q %q %v", p, note, err)
	}
	if p, _, err := store.Pick(nil, false, older); p != filepath.Join(dir, older+".json") || err != nil {
		t.Errorf("--run: %q %v", p, err)
	}
	if p, note, err := store.Pick(nil, true, ""); !strings.HasSuffix(p, "SAKGPD.json") || !strings.Contains(note, "the newest stored run, 01M84QFR5RWDJ0P7H1J4SAKGPD") || err != nil {
		t.Errorf("--latest: %q %q %v", p, note, err)
	}
	empty := Store{Runs: func() (string, error) { return t.TempDir(), nil }}
	for _, tt := range []struct {
		store  Store
		args   []string
		latest bool
		id     string
		want   string
	}{
		{store, []string{"a", "b"}, false, "", "view takes one run envelope"},
		{store, []string{"a"}, true, "", "give one of RUN.json, --latest and --run ID"},
		{store, nil, false, "../../../etc/passwd", "expected a run id"},
		{store, nil, false, "01AAAAAAAAAAAAAAAAAAAAAAAA", "no such run in"},
		{empty, nil, false, "", "no stored run in"},
	} {
		_, _, err := tt.store.Pick(tt.args, tt.latest, tt.id)
		var ie *diag.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Pick(%q, %v, %q): %v, want an InputError saying %q", tt.args, tt.latest, tt.id, err, tt.want)
		}
	}
	if _, _, err := (Store{}).Pick(nil, true, ""); err == nil {
		t.Error("a Store without Runs picked a run")
	}
}

// TestPages: the run list newest first (a stored file that is not an
// envelope left out), a stored run's report, a comparison, a case's
// history; an id that is not a stored run is a 404, whatever it names.
func TestPages(t *testing.T) {
	store, _ := testStore(t)
	h := Handler([]byte("report"), []byte("snapshot"), []byte("{}"), store.Pages())
	get := func(path string) (int, string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+path, nil))
		return w.Code, w.Body.String()
	}
	code, page := get("/runs")
	if i, j := strings.Index(page, newer), strings.Index(page, older); code != 200 || i < 0 || j < 0 || i > j {
		t.Errorf("/runs: %d, want %s listed before %s", code, newer, older)
	}
	if code, page := get("/run/" + older); code != 200 || !strings.Contains(page, `id="run-verdict"`) {
		t.Errorf("/run/ID: %d", code)
	}
	if code, page := get("/compare?base=" + older + "&head=" + newer); code != 200 || !strings.Contains(page, `id="comparison"`) {
		t.Errorf("/compare: %d", code)
	}
	name := "research-agent picks search then fetch"
	if code, page := get("/case?name=" + url.QueryEscape(name)); code != 200 || strings.Count(page, `<a class="to-run" href="/run/`) != 2 {
		t.Errorf("/case: %d, want the case in 2 runs", code)
	}
	for _, p := range []string{"/run/NOTANID", "/run/01AAAAAAAAAAAAAAAAAAAAAAAA", "/run/01M84QFR5RWDJ0P7H1J4SAKGPD", "/run/..%2f..%2fetc%2fpasswd", "/compare?base=x&head=y", "/case", "/nope"} {
		if code, _ := get(p); code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, code)
		}
	}
}

// TestHandler: the run's routes with their types and the protective
// headers; a foreign Host (DNS rebinding) is refused, and so is every
// method but GET and HEAD.
func TestHandler(t *testing.T) {
	h := Handler([]byte("<p>report"), []byte("<p>snapshot"), []byte("{}"), http.NotFoundHandler())
	for _, tt := range []struct {
		method, host, path string
		code               int
		body, ctype        string
	}{
		{"GET", "127.0.0.1:8080", "/", 200, "<p>report", "text/html; charset=utf-8"},
		{"GET", "localhost", "/snapshot", 200, "<p>snapshot", "text/html; charset=utf-8"},
		{"HEAD", "[::1]:9", "/run.json", 200, "", "application/json"},
		{"GET", "attacker.example", "/", http.StatusForbidden, "", ""},
		{"GET", "127.0.0.1.attacker.example", "/", http.StatusForbidden, "", ""},
		{"POST", "127.0.0.1", "/", http.StatusMethodNotAllowed, "", ""},
	} {
		r := httptest.NewRequest(tt.method, "http://x"+tt.path, nil)
		r.Host = tt.host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tt.code || tt.body != "" && w.Body.String() != tt.body || tt.ctype != "" && w.Header().Get("Content-Type") != tt.ctype {
			t.Errorf("%s %s%s: %d %q %q", tt.method, tt.host, tt.path, w.Code, w.Body.String(), w.Header().Get("Content-Type"))
		}
		if tt.code == 200 && (w.Header().Get("X-Content-Type-Options") != "nosniff" || w.Header().Get("Cache-Control") != "no-store" || w.Header().Get("Referrer-Policy") != "no-referrer") {
			t.Errorf("%s: headers %v", tt.path, w.Header())
		}
	}
}

// TestRun serves a stored run until its context ends, after writing the
// snapshot viewer, whose address carries the run's page; an address that is
// not loopback is refused before anything listens.
func TestRun(t *testing.T) {
	store, dir := testStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb bytes.Buffer
	listening := make(chan string, 1)
	snapshot := filepath.Join(t.TempDir(), "viewer.html")
	o := Options{Args: []string{filepath.Join(dir, older+".json")}, Addr: "127.0.0.1:0", Snapshot: snapshot,
		Context:   func() (context.Context, context.CancelFunc) { return ctx, cancel },
		Listening: func(base string) { listening <- base }, Stdout: &out, Stderr: &errb}
	done := make(chan error, 1)
	go func() { done <- Run(store, o) }()
	base := <-listening
	resp, err := http.Get(base + "/runs")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), newer) {
		t.Errorf("/runs: %d", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if page, err := os.ReadFile(snapshot); err != nil || !bytes.Equal(page, annotate.SnapshotPage()) {
		t.Errorf("the snapshot viewer was not written: %v", err)
	}
	lines := strings.Split(out.String(), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "snapshot: file://") || lines[1] != "report: "+base+"/" || !strings.HasPrefix(lines[2], "snapshot: "+base+"/snapshot#d") {
		t.Errorf("stdout:\n%s", out.String())
	}
	_, frag, _ := strings.Cut(lines[0], "#")
	if snap, err := annotate.ReadSnapshotFragment(frag); err != nil || snap.RunID != older || !strings.Contains(snap.Page, older) {
		t.Errorf("the snapshot address does not carry the run's page: %v", err)
	}
	o.Addr, o.Snapshot = "0.0.0.0:0", ""
	var ie *diag.InputError
	if err := Run(store, o); !errors.As(err, &ie) || !strings.Contains(err.Error(), "loopback address only") {
		t.Errorf("--addr 0.0.0.0:0: %v", err)
	}
}
