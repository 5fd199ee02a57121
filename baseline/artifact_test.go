package baseline

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
)

type entry struct {
	name string
	data []byte
	mode uint32 // unix mode bits in the external attributes; 0 for a file
}

func makeZip(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.CreatorVersion = 3 << 8 // unix
			h.ExternalAttrs = e.mode << 16
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadArtifactEntry(t *testing.T) {
	good := []byte(`{"schema_version": 1}`)
	got, err := ReadArtifactEntry(makeZip(t, entry{name: "mcptest-report.json", data: good}, entry{name: "other.txt", data: []byte("x")}), "mcptest-report.json", 1<<20)
	if err != nil || !bytes.Equal(got, good) {
		t.Fatalf("good archive: %q, %v", got, err)
	}
	bomb := bytes.Repeat([]byte{'0'}, 50<<20) // deflates to ~50 KB
	for _, c := range []struct {
		name string
		zip  []byte
		want string
	}{
		{"dotdot", makeZip(t, entry{name: "../mcptest-report.json", data: good}), "climbs out"},
		{"dotdot inside", makeZip(t, entry{name: "a/../../mcptest-report.json", data: good}), "climbs out"},
		{"absolute", makeZip(t, entry{name: "/etc/passwd", data: good}), "absolute"},
		{"backslash", makeZip(t, entry{name: `..\mcptest-report.json`, data: good}), "absolute or non-portable"},
		{"drive", makeZip(t, entry{name: "C:/x", data: good}), "absolute or non-portable"},
		{"symlink", makeZip(t, entry{name: "mcptest-report.json", data: []byte("/etc/passwd"), mode: 0o120777}), "not a regular file"},
		{"oversized", makeZip(t, entry{name: "mcptest-report.json", data: bytes.Repeat([]byte("x"), 2<<20)}), "over the"},
		{"bomb", makeZip(t, entry{name: "mcptest-report.json", data: bomb}), "over the"},
		{"missing", makeZip(t, entry{name: "report.json", data: good}), "no entry"},
		{"twice", makeZip(t, entry{name: "mcptest-report.json", data: good}, entry{name: "./mcptest-report.json", data: good}), "twice"},
		{"not a zip", []byte("PK\x03\x04 nope"), "not a zip"},
	} {
		_, err := ReadArtifactEntry(c.zip, "mcptest-report.json", 1<<20)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// TestReadArtifactEntryLyingSize: an entry whose header understates its
// size is still stopped at the cap.
func TestReadArtifactEntryLyingSize(t *testing.T) {
	data := makeZip(t, entry{name: "mcptest-report.json", data: bytes.Repeat([]byte("y"), 4096)})
	// Patch the declared uncompressed size (central directory and local
	// header) down to 10 bytes.
	patched := bytes.ReplaceAll(data, []byte{0x00, 0x10, 0x00, 0x00}, []byte{0x0a, 0x00, 0x00, 0x00})
	if bytes.Equal(patched, data) {
		t.Fatal("the declared size was not patched")
	}
	_, err := ReadArtifactEntry(patched, "mcptest-report.json", 100)
	if err == nil || strings.Contains(err.Error(), "declares") {
		t.Errorf("a lying entry: %v; want it stopped while reading", err)
	}
}

func FuzzReadArtifactEntry(f *testing.F) {
	f.Add(makeZip(f, entry{name: "mcptest-report.json", data: []byte(`{}`)}))
	f.Add(makeZip(f, entry{name: "../x", data: []byte(`{}`)}))
	f.Add(makeZip(f, entry{name: "mcptest-report.json", data: []byte("l"), mode: 0o120777}))
	f.Add(makeZip(f, entry{name: "../" + strings.Repeat("a", 1000) + "\n::error::x", data: []byte(`{}`)}))
	f.Add(makeZip(f, entry{name: "mcptest-report.json", data: bytes.Repeat([]byte{0}, 8192)}))
	lying := makeZip(f, entry{name: "mcptest-report.json", data: bytes.Repeat([]byte("y"), 4096)})
	f.Add(bytes.ReplaceAll(lying, []byte{0x00, 0x10, 0x00, 0x00}, []byte{0x0a, 0x00, 0x00, 0x00}))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := ReadArtifactEntry(data, "mcptest-report.json", 4096)
		if err == nil && len(out) > 4096 {
			t.Fatalf("read %d bytes over the cap", len(out))
		}
		if err != nil && (len(err.Error()) > 400 || strings.ContainsAny(err.Error(), "\n\r")) {
			t.Fatalf("a message of %d bytes or with a line break: %q", len(err.Error()), err)
		}
	})
}

func withPath(r *listedRun, p string) *listedRun {
	r.Path = &p
	return r
}

func TestRejectRun(t *testing.T) {
	run := func(event, repo, branch, status, conclusion string) *listedRun {
		return &listedRun{WorkflowRun: github.WorkflowRun{Event: &event, HeadRepository: &github.Repository{FullName: &repo}, HeadBranch: &branch, Status: &status, Conclusion: &conclusion}}
	}
	for _, c := range []struct {
		run  *listedRun
		want string
	}{
		{run("push", "acme/agents", "main", "completed", "success"), ""},
		{run("schedule", "acme/agents", "main", "completed", "success"), ""},
		{run("workflow_dispatch", "acme/agents", "main", "completed", "success"), ""},
		{run("pull_request", "acme/agents", "main", "completed", "success"), "event"},
		{run("pull_request_target", "acme/agents", "main", "completed", "success"), "event"},
		{run("push", "mallory/agents", "main", "completed", "success"), "head repository"},
		{run("push", "acme/agents", "feature", "completed", "success"), "not the default branch"},
		{run("push", "acme/agents", "main", "completed", "failure"), "did not succeed"},
		{run("push", "acme/agents", "main", "in_progress", ""), "did not succeed"},
		{withPath(run("push", "acme/agents", "main", "completed", "success"), ".github/workflows/other.yml"), "not mcptest-baseline.yml"},
		{withPath(run("push", "acme/agents", "main", "completed", "success"), ".github/workflows/mcptest-baseline.yml@refs/heads/main"), ""},
		{withPath(run("push", "acme/agents", "main", "completed", "success"), ".github/workflows/mcptest-baseline.yml"), ""},
	} {
		got := rejectRun(c.run, "main", "acme/agents", "mcptest-baseline.yml")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s %s %s %s/%s: %q, want %q", c.run.GetEvent(), c.run.GetHeadRepository().GetFullName(), c.run.GetHeadBranch(), c.run.GetStatus(), c.run.GetConclusion(), got, c.want)
		}
	}
}

// TestReadArtifactEntryNames: an entry name is untrusted. Every message
// that names one quotes it (no line break, escape or control character
// gets through) and clips it, so a name of kilobytes stays a short line.
func TestReadArtifactEntryNames(t *testing.T) {
	long := strings.Repeat("a", 10000) + "\n::error::pwned\x1b[31m"
	for _, c := range []struct {
		name string
		zip  []byte
	}{
		{"climbs", makeZip(t, entry{name: "../" + long, data: []byte("{}")})},
		{"absolute", makeZip(t, entry{name: "/" + long, data: []byte("{}")})},
		{"link", makeZip(t, entry{name: long, data: []byte("x"), mode: 0o120777})},
		{"declares", makeZip(t, entry{name: long, data: bytes.Repeat([]byte("x"), 200)})},
	} {
		_, err := ReadArtifactEntry(c.zip, "mcptest-report.json", 100)
		if err == nil {
			t.Fatalf("%s: accepted", c.name)
		}
		msg := err.Error()
		if len(msg) > 300 || strings.ContainsAny(msg, "\n\r\x1b") || !strings.Contains(msg, `aaaa"... (10`) {
			t.Errorf("%s: %d bytes: %q; want a short line with the name quoted and clipped", c.name, len(msg), msg)
		}
	}
}
