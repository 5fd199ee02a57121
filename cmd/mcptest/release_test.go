package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/baseline/ghapitest"
)

// snapshotDist is where a full `goreleaser release --snapshot --clean`
// writes.
const snapshotDist = "../../dist"

// releaseTargets are the platforms .goreleaser.yaml builds, as goreleaser
// and the Action's resolver name them.
var releaseTargets = []struct{ runnerOS, runnerArch, os, arch string }{
	{"Linux", "X64", "linux", "amd64"},
	{"Linux", "ARM64", "linux", "arm64"},
	{"macOS", "X64", "darwin", "amd64"},
	{"macOS", "ARM64", "darwin", "arm64"},
	{"Windows", "X64", "windows", "amd64"},
	{"Windows", "ARM64", "windows", "arm64"},
}

// archiveName is the name .goreleaser.yaml's name_template gives.
func archiveName(version, goos, arch string) string {
	ext := "tar.gz"
	if goos == "windows" {
		ext = "zip"
	}
	return fmt.Sprintf("mcptest_%s_%s_%s.%s", version, goos, arch, ext)
}

// readChecksums parses a goreleaser checksums.txt: "HEX  NAME" per line.
func readChecksums(t *testing.T, data []byte) map[string]string {
	t.Helper()
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 || len(f[0]) != 64 {
			t.Fatalf("checksums.txt: malformed line %q", sc.Text())
		}
		sums[f[1]] = f[0]
	}
	return sums
}

// snapshotTargets are the platforms the test's snapshot builds: one
// tar.gz and one zip target. The six of .goreleaser.yaml take more than
// four minutes on CI's two cores; the release workflow builds them all.
var snapshotTargets = map[string][]string{"goos": {"linux", "windows"}, "goarch": {"amd64", "arm64"}}

// buildSnapshot runs `goreleaser release --snapshot` (pinned v2.15.1) on
// .goreleaser.yaml with only the linux/amd64 and windows/arm64 targets,
// without publishing, image or SBOM, into a temporary dist directory.
func buildSnapshot(t *testing.T) string {
	t.Helper()
	snapshotOnce.Do(func() { snapshotDir, snapshotErr = runSnapshot() })
	if snapshotErr != nil {
		t.Fatal(snapshotErr)
	}
	return snapshotDir
}

// The snapshot is built once per test binary, for TestReleaseSnapshot and
// TestActionResolver.
var (
	snapshotOnce sync.Once
	snapshotDir  string
	snapshotErr  error
)

func runSnapshot() (string, error) {
	data, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		return "", err
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp("", "mcptest-snapshot")
	if err != nil {
		return "", err
	}
	dist := filepath.Join(tmp, "dist")
	cfg["dist"] = dist
	build := cfg["builds"].([]any)[0].(map[string]any)
	build["goos"], build["goarch"] = snapshotTargets["goos"], snapshotTargets["goarch"]
	build["ignore"] = []map[string]string{{"goos": "linux", "goarch": "arm64"}, {"goos": "windows", "goarch": "amd64"}}
	out, _ := yaml.Marshal(cfg)
	conf := filepath.Join(tmp, "goreleaser.yaml")
	if err := os.WriteFile(conf, out, 0o644); err != nil {
		return "", err
	}
	cmd := exec.Command("go", "run", "github.com/goreleaser/goreleaser/v2@v2.15.1", "release", "--snapshot", "--clean",
		"--skip=docker,sbom,publish,validate", "--config", conf)
	cmd.Dir = "../.."
	if log, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("goreleaser release --snapshot: %v\n%s", err, log)
	}
	return dist, nil
}

// TestReleaseSnapshot builds a goreleaser snapshot of .goreleaser.yaml
// (with MCPTEST_SNAPSHOT=1, as .ci/run sets; else it reads a dist/ left by
// a full `goreleaser release --snapshot`), reads its checksums.txt and
// verifies every archive: each matches its checksum and holds the mcptest
// binary, the LICENSE and the README, and the binary reports the snapshot's
// version.
func TestReleaseSnapshot(t *testing.T) {
	dist := snapshotDist
	if os.Getenv("MCPTEST_SNAPSHOT") == "1" {
		dist = buildSnapshot(t)
	}
	data, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		msg := fmt.Sprintf("no goreleaser snapshot (%v): MCPTEST_SNAPSHOT=1 go test ./cmd/mcptest -run TestReleaseSnapshot builds one", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true: .ci/run sets MCPTEST_SNAPSHOT=1, so its absence is a failure)")
		}
		t.Skip(msg)
	}
	sums := readChecksums(t, data)
	version := snapshotVersion(t, sums)
	checked := 0
	for _, tg := range releaseTargets {
		name := archiveName(version, tg.os, tg.arch)
		want, ok := sums[name]
		if !ok {
			continue
		}
		checked++
		b, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Error(err)
			continue
		}
		if got := sha256Hex(b); got != want {
			t.Errorf("%s: sha256 %s, checksums.txt says %s", name, got, want)
		}
		files := archiveFiles(t, name, b)
		bin := "mcptest"
		if tg.os == "windows" {
			bin = "mcptest.exe"
		}
		for _, f := range []string{bin, "LICENSE", "README.md"} {
			if !files[f] {
				t.Errorf("%s holds no %s: %v", name, f, files)
			}
		}
	}
	if checked != len(sums) || checked == 0 {
		t.Errorf("checksums.txt lists %d files, %d of them release archives: %v", len(sums), checked, sums)
	}
	if os.Getenv("MCPTEST_SNAPSHOT") == "1" && checked != 2 {
		t.Errorf("the snapshot built %d archives, want linux/amd64 and windows/arm64", checked)
	}
	checkSnapshotBinary(t, dist, version, sums)
}

// checkSnapshotBinary runs the linux/amd64 binary of the snapshot, when
// this machine can, and checks the version the ldflags set.
func checkSnapshotBinary(t *testing.T, dist, version string, sums map[string]string) {
	t.Helper()
	name := archiveName(version, "linux", "amd64")
	if _, ok := sums[name]; !ok || runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return
	}
	dir := t.TempDir()
	if out, err := exec.Command("tar", "-xzf", filepath.Join(dist, name), "-C", dir).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(dir, "mcptest"), "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "mcptest "+version+"\n") {
		t.Errorf("the snapshot binary says %q (%v), want version %s", out, err, version)
	}
}

// snapshotVersion reads the version from the archive names.
func snapshotVersion(t *testing.T, sums map[string]string) string {
	t.Helper()
	re := regexp.MustCompile(`^mcptest_(.+)_linux_amd64\.tar\.gz$`)
	for name := range sums {
		if m := re.FindStringSubmatch(name); m != nil {
			return m[1]
		}
	}
	t.Fatalf("checksums.txt names no linux/amd64 archive: %v", sums)
	return ""
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// archiveFiles lists the regular files of a tar.gz or zip archive.
func archiveFiles(t *testing.T, name string, b []byte) map[string]bool {
	t.Helper()
	files := map[string]bool{}
	if strings.HasSuffix(name, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range zr.File {
			files[f.Name] = true
		}
		return files
	}
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files[h.Name] = h.Typeflag == tar.TypeReg
	}
}

// fakeRelease is a release served by a local stand-in for GitHub's API and
// download host: the goreleaser snapshot when dist/ holds one, else archives
// built here in the same layout.
type fakeRelease struct {
	tag   string
	files map[string][]byte // name -> bytes, checksums.txt included
	// sha is the commit the release's tag points at: the repository's tag
	// list names it, with the floating v1 tag, a prerelease tag, and more
	// than a page of older tags before them.
	sha string
	// requests records the API requests served, "path?query".
	requests *requestLog
}

// requestLog is the API requests a fake release served.
type requestLog struct {
	sync.Mutex
	list []string
}

func (l *requestLog) add(r string) {
	l.Lock()
	defer l.Unlock()
	l.list = append(l.list, r)
}

// count counts the requests whose path starts with prefix.
func (l *requestLog) count(prefix string) int {
	l.Lock()
	defer l.Unlock()
	n := 0
	for _, r := range l.list {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

// commitOf is a 40-hex commit SHA made from a word, for the tag list.
func commitOf(word string) string {
	return sha256Hex([]byte(word))[:40]
}

func newFakeRelease(t *testing.T) fakeRelease {
	t.Helper()
	dist := snapshotDist
	if os.Getenv("MCPTEST_SNAPSHOT") == "1" {
		dist = buildSnapshot(t)
	}
	version, real := "1.2.3", map[string][]byte{}
	if data, err := os.ReadFile(filepath.Join(dist, "checksums.txt")); err == nil {
		sums := readChecksums(t, data)
		version = snapshotVersion(t, sums)
		for name, sum := range sums {
			b, err := os.ReadFile(filepath.Join(dist, name))
			if err != nil || sha256Hex(b) != sum {
				t.Fatalf("snapshot archive %s: %v (or its checksum differs)", name, err)
			}
			real[name] = b
		}
	}
	// The snapshot's archives where it built them, archives in its layout
	// for the other targets, and one checksums.txt over them all.
	r := fakeRelease{tag: "v" + version, files: map[string][]byte{}, sha: commitOf("release " + version), requests: &requestLog{}}
	var sums strings.Builder
	for _, tg := range releaseTargets {
		name := archiveName(version, tg.os, tg.arch)
		b, ok := real[name]
		if !ok {
			b = buildArchive(t, name, tg.os)
		}
		r.files[name] = b
		fmt.Fprintf(&sums, "%s  %s\n", sha256Hex(b), name)
	}
	r.files["checksums.txt"] = []byte(sums.String())
	return r
}

// buildArchive writes an archive in goreleaser's layout: the binary, the
// LICENSE and the README at its root.
func buildArchive(t *testing.T, name, goos string) []byte {
	t.Helper()
	bin := "mcptest"
	if goos == "windows" {
		bin = "mcptest.exe"
	}
	files := map[string]string{bin: "#!/bin/sh\necho mcptest " + goos + "\n", "LICENSE": "Apache-2.0\n", "README.md": "mcptest\n"}
	var buf bytes.Buffer
	if strings.HasSuffix(name, ".zip") {
		zw := zip.NewWriter(&buf)
		for n, body := range files {
			w, _ := zw.Create(n)
			io.WriteString(w, body)
		}
		zw.Close()
		return buf.Bytes()
	}
	// The fastest level: resolve.sh unpacks with tar whatever the level,
	// and the binary is tens of megabytes.
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	for n, body := range files {
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg})
		io.WriteString(tw, body)
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// tagList is the repository's tags as GET /repos/{owner}/{repo}/tags
// gives them: 150 older releases, then the release's own tag, the
// floating v1 and, for a plain vX.Y.Z release, a prerelease at its commit
// that the plain tag wins over (a snapshot's tag is itself a prerelease,
// so it gets none), so the release's tag is on the second page of 100.
func (r fakeRelease) tagList() []map[string]any {
	tag := func(name, sha string) map[string]any {
		return map[string]any{"name": name, "node_id": "MDM6UmVmcmVmcy90YWdzL" + name,
			"zipball_url": "https://api.github.com/repos/mcptest/mcptest/zipball/" + name,
			"tarball_url": "https://api.github.com/repos/mcptest/mcptest/tarball/" + name,
			"commit":      map[string]any{"sha": sha, "url": "https://api.github.com/repos/mcptest/mcptest/commits/" + sha}}
	}
	var list []map[string]any
	for i := 150; i > 0; i-- {
		name := fmt.Sprintf("v0.%d.%d", i/10, i%10)
		list = append(list, tag(name, commitOf(name)))
	}
	if !strings.Contains(r.tag, "-") {
		list = append(list, tag(r.tag+"-rc.1", r.sha))
	}
	return append(list, tag("v1", r.sha), tag(r.tag, r.sha))
}

// checkAPIRequest holds a request to the API stand-in to GitHub's REST
// description (baseline/ghapitest's Spec.Check) and to the headers GitHub
// asks for; it fails the test otherwise. Without the description (not
// installed) the request is not checked, unless CI=true.
func checkAPIRequest(t *testing.T, req *http.Request) {
	t.Helper()
	spec, err := ghapitest.Load()
	switch {
	case err != nil && os.Getenv("CI") == "true":
		t.Errorf("GitHub's OpenAPI description is not available (%v): run npm ci --prefix .ci/node-action", err)
	case err == nil:
		if _, _, err := spec.Check(req.Method, strings.TrimPrefix(req.URL.EscapedPath(), "/api"), req.URL.Query(), nil); err != nil {
			t.Errorf("resolve.sh: %v", err)
		}
	}
	if req.Header.Get("Accept") != "application/vnd.github+json" || req.Header.Get("X-GitHub-Api-Version") == "" {
		t.Errorf("resolve.sh: %s %s without GitHub's media type and API version headers", req.Method, req.URL)
	}
}

// serveTags answers one page of the tag list, checked against the
// description's answer schema when it is installed.
func (r fakeRelease) serveTags(t *testing.T, w http.ResponseWriter, req *http.Request) {
	all := r.tagList()
	per, _ := strconv.Atoi(req.URL.Query().Get("per_page"))
	page, _ := strconv.Atoi(req.URL.Query().Get("page"))
	if per <= 0 || per > 100 {
		per = 30
	}
	page = max(page, 1)
	lo, hi := min((page-1)*per, len(all)), min(page*per, len(all))
	body, _ := json.Marshal(all[lo:hi])
	if spec, err := ghapitest.Load(); err == nil {
		if err := spec.CheckResponse("repos/list-tags", 200, body); err != nil {
			t.Errorf("the stand-in's tag list does not match GitHub's description: %v", err)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

// serve answers as GitHub would for mcptest/mcptest: the releases and tag
// lists under /api and the release assets under /dl.
func (r fakeRelease) serve(t *testing.T, tamper string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(r.handler(t, tamper))
	t.Cleanup(srv.Close)
	return srv
}

// handler is serve's handler.
func (r fakeRelease) handler(t *testing.T, tamper string) http.Handler {
	// Newest first, as GitHub lists releases.
	list := fmt.Sprintf(`[{"tag_name": %q}, {"tag_name": "v2.0.0"}, {"tag_name": "v1.3.0-rc.1"}, {"tag_name": "v1.2.3"},
		{"tag_name": "v1.2.2"}, {"tag_name":"v1.0.0"}]`, r.tag)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		// The token goes to the API only, never to the download host.
		auth := req.Header.Get("Authorization")
		if strings.HasPrefix(req.URL.Path, "/api/") {
			checkAPIRequest(t, req)
		}
		if r.requests != nil {
			r.requests.add(req.URL.Path + "?" + req.URL.RawQuery)
		}
		switch {
		case strings.HasPrefix(req.URL.Path, "/api/") && auth != "Bearer ghs_resolver":
			http.Error(w, "no token", http.StatusUnauthorized)
		case strings.HasPrefix(req.URL.Path, "/dl/") && auth != "":
			http.Error(w, "a token was sent to the download host", http.StatusForbidden)
		case req.URL.Path == "/api/repos/mcptest/mcptest/releases":
			io.WriteString(w, list)
		case req.URL.Path == "/api/repos/mcptest/mcptest/tags":
			r.serveTags(t, w, req)
		case strings.HasPrefix(req.URL.Path, "/dl/mcptest/mcptest/releases/download/"+r.tag+"/"):
			name := filepath.Base(req.URL.Path)
			b, ok := r.files[name]
			if !ok {
				http.NotFound(w, req)
				return
			}
			if name == tamper {
				b = append(bytes.Clone(b), 0)
			}
			w.Write(b)
		default:
			http.NotFound(w, req)
		}
	})
}

// resolveScript runs .github/action/resolve.sh STEP with env against srv
// (nil: env gives MCPTEST_API_URL and MCPTEST_DOWNLOAD_URL) and returns the outputs it wrote, its combined output and exit code.
func resolveScript(t *testing.T, srv *httptest.Server, step string, env map[string]string) (map[string]string, string, int) {
	t.Helper()
	bash := checker(t, "bash", "bash", "apt-get install bash")
	checker(t, "curl", "curl", "apt-get install curl")
	dir := t.TempDir()
	outFile := filepath.Join(dir, "output")
	cmd := exec.Command(bash, "../../.github/action/resolve.sh", step)
	cmd.Env = append(os.Environ(), "GITHUB_OUTPUT="+outFile, "RUNNER_TOOL_CACHE="+filepath.Join(dir, "cache"),
		"MCPTEST_REPO=mcptest/mcptest", "MCPTEST_TOKEN=ghs_resolver",
		"MCPTEST_VERSION=", "MCPTEST_ACTION_REF=", "MCPTEST_ACTION_REPOSITORY=", "GITHUB_ACTION_PATH=")
	if srv != nil {
		cmd.Env = append(cmd.Env, "MCPTEST_API_URL="+srv.URL+"/api", "MCPTEST_DOWNLOAD_URL="+srv.URL+"/dl")
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{}
	data, _ := os.ReadFile(outFile)
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			outputs[k] = v
		}
	}
	return outputs, string(out), code
}

// TestActionResolver runs the Action's resolver against a local stand-in
// for GitHub: each runner gets its own archive, verified and unpacked; a
// major-version ref picks the newest release under it; a tampered archive
// is refused with exit 3; a ref that is no release, or a release without
// checksums.txt, falls back to the source build.
func TestActionResolver(t *testing.T) {
	rel := newFakeRelease(t)
	srv := rel.serve(t, "")
	version := strings.TrimPrefix(rel.tag, "v")
	for _, tg := range releaseTargets {
		env := map[string]string{"MCPTEST_VERSION": rel.tag, "RUNNER_OS": tg.runnerOS, "RUNNER_ARCH": tg.runnerArch}
		out, log, code := resolveScript(t, srv, "resolve", env)
		want := archiveName(version, tg.os, tg.arch)
		if code != 0 || out["source"] != "false" || out["archive"] != want || out["tag"] != rel.tag {
			t.Fatalf("%s/%s: resolve exit %d, outputs %v, want archive %s\n%s", tg.runnerOS, tg.runnerArch, code, out, want, log)
		}
		env["MCPTEST_TAG"], env["MCPTEST_ARCHIVE"], env["MCPTEST_DIR"] = out["tag"], out["archive"], out["dir"]
		fetched, log, code := resolveScript(t, srv, "fetch", env)
		if code != 0 || fetched["source"] != "false" {
			t.Fatalf("%s/%s: fetch exit %d, outputs %v\n%s", tg.runnerOS, tg.runnerArch, code, fetched, log)
		}
		bin := "mcptest"
		if tg.os == "windows" {
			bin += ".exe"
		}
		if _, err := os.Stat(filepath.Join(out["dir"], bin)); err != nil {
			t.Errorf("%s/%s: the binary was not unpacked: %v\n%s", tg.runnerOS, tg.runnerArch, err, log)
		}
	}

	linux := map[string]string{"RUNNER_OS": "Linux", "RUNNER_ARCH": "X64"}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for k, v := range linux {
			m[k] = v
		}
		return m
	}
	for ref, want := range map[string]string{"v1": "v1.2.3", "1": "v1.2.3", "v1.2": "v1.2.3", "v1.0": "v1.0.0", "v2": "v2.0.0"} {
		if out, log, _ := resolveScript(t, srv, "resolve", with("MCPTEST_VERSION", ref)); out["tag"] != want || out["source"] != "false" {
			t.Errorf("ref %s: outputs %v, want the newest release under it, %s (not a prerelease)\n%s", ref, out, want, log)
		}
	}
	// A commit SHA is never a release, even the commit a release's tag
	// points at: it builds from source at that commit.
	for _, ref := range []string{"main", "", "3f2c1a9e", commitOf("a branch head"), rel.sha} {
		if out, log, code := resolveScript(t, srv, "resolve", with("MCPTEST_ACTION_REF", ref)); code != 0 || out["source"] != "true" {
			t.Errorf("ref %q: exit %d, outputs %v; want the source build\n%s", ref, code, out, log)
		}
	}

	missing := with("MCPTEST_VERSION", "v9.9.9")
	out, _, _ := resolveScript(t, srv, "resolve", missing)
	missing["MCPTEST_TAG"], missing["MCPTEST_ARCHIVE"], missing["MCPTEST_DIR"] = out["tag"], out["archive"], out["dir"]
	if out, log, code := resolveScript(t, srv, "fetch", missing); code != 0 || out["source"] != "true" {
		t.Errorf("missing release: exit %d, outputs %v; want the source build\n%s", code, out, log)
	}

	name := archiveName(version, "linux", "amd64")
	bad := rel.serve(t, name)
	env := with("MCPTEST_VERSION", rel.tag)
	out, _, _ = resolveScript(t, bad, "resolve", env)
	env["MCPTEST_TAG"], env["MCPTEST_ARCHIVE"], env["MCPTEST_DIR"] = out["tag"], out["archive"], out["dir"]
	_, log, code := resolveScript(t, bad, "fetch", env)
	if code != ExitError || !strings.Contains(log, "::error") || !strings.Contains(log, "checksum mismatch for "+name) {
		t.Errorf("tampered archive: exit %d, want %d and a checksum mismatch error:\n%s", code, ExitError, log)
	}
	if _, err := os.Stat(filepath.Join(out["dir"], "mcptest")); err == nil {
		t.Errorf("tampered archive: the binary was unpacked anyway")
	}
}

// TestModulePath: go.mod's module path is the repository the releases and
// the Action come from, so `go install
// github.com/mcptest/mcptest/cmd/mcptest@latest` resolves from the module
// proxy, and the resolver downloads from the repository goreleaser
// publishes to.
func TestModulePath(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(mod)
	var cfg struct {
		Release struct {
			GitHub struct{ Owner, Name string } `yaml:"github"`
		} `yaml:"release"`
	}
	data, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil || yaml.Unmarshal(data, &cfg) != nil {
		t.Fatalf("read .goreleaser.yaml: %v", err)
	}
	repo := cfg.Release.GitHub.Owner + "/" + cfg.Release.GitHub.Name
	if m == nil || string(m[1]) != "github.com/"+repo {
		t.Errorf("go.mod's module is %q, the releases are published to github.com/%s", m, repo)
	}
	script, _ := os.ReadFile("../../.github/action/resolve.sh")
	if !strings.Contains(string(script), "repo=${MCPTEST_REPO:-"+repo+"}") {
		t.Errorf("resolve.sh does not default to the repository %s", repo)
	}
}

// runnerPlatform is how the runner names this machine's OS and
// architecture (RUNNER_OS, RUNNER_ARCH).
func runnerPlatform(t *testing.T) (runnerOS, runnerArch string) {
	t.Helper()
	for _, tg := range releaseTargets {
		if tg.os == runtime.GOOS && tg.arch == runtime.GOARCH {
			return tg.runnerOS, tg.runnerArch
		}
	}
	t.Skipf("no release target for %s/%s", runtime.GOOS, runtime.GOARCH)
	return "", ""
}

// builtRelease is release v1.4.2 in goreleaser's format for this machine:
// mcptest built with the version goreleaser's ldflags set, packed with
// the LICENSE and README under the archive name resolve.sh expects, and
// a checksums.txt over it.
func builtRelease(t *testing.T) fakeRelease {
	t.Helper()
	return builtReleaseAs(t, "1.4.2")
}

// builtReleaseAs is builtRelease for another version. The binary and its
// archive are made once per version and test binary (releaseFiles); each
// call gets its own request log.
func builtReleaseAs(t *testing.T, version string) fakeRelease {
	t.Helper()
	files := releaseFiles(t, version)
	own := make(map[string][]byte, len(files))
	for name, b := range files {
		own[name] = bytes.Clone(b)
	}
	return fakeRelease{tag: "v" + version, sha: commitOf("release " + version), requests: &requestLog{}, files: own}
}

// releases holds, per version, the release files builtReleaseAs serves:
// building and packing mcptest takes seconds of a busy machine, and
// several tests serve the same release.
var releases struct {
	sync.Mutex
	files map[string]map[string][]byte
	bins  map[string]string
}

// releaseBin is mcptest built as goreleaser builds a release of version
// (its version set by -ldflags), once per version and test binary.
func releaseBin(t *testing.T, version string) string {
	t.Helper()
	releases.Lock()
	defer releases.Unlock()
	if bin, ok := releases.bins[version]; ok {
		return bin
	}
	bin := filepath.Join(buildDir(t, "release"), "mcptest")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if out, err := exec.Command("go", "build", "-ldflags", "-X main.version="+version, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if releases.bins == nil {
		releases.bins = map[string]string{}
	}
	releases.bins[version] = bin
	return bin
}

// releaseFiles are the archive of releaseBin(version) with the LICENSE and
// README, under the name resolve.sh expects, and a checksums.txt over it.
func releaseFiles(t *testing.T, version string) map[string][]byte {
	t.Helper()
	bin := releaseBin(t, version)
	releases.Lock()
	defer releases.Unlock()
	if files, ok := releases.files[version]; ok {
		return files
	}
	files := map[string][]byte{}
	for _, f := range []string{bin, "../../LICENSE", "../../README.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(f)] = b
	}
	name := archiveName(version, runtime.GOOS, runtime.GOARCH)
	archive := packArchive(t, name, files)
	if releases.files == nil {
		releases.files = map[string]map[string][]byte{}
	}
	releases.files[version] = map[string][]byte{
		name: archive, "checksums.txt": []byte(fmt.Sprintf("%s  %s\n", sha256Hex(archive), name)),
	}
	return releases.files[version]
}

// packArchive packs files (name -> bytes, executable) as a tar.gz or zip.
func packArchive(t *testing.T, name string, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if strings.HasSuffix(name, ".zip") {
		zw := zip.NewWriter(&buf)
		for n, body := range files {
			w, err := zw.Create(n)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(body)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for n, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(body)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return buf.Bytes()
}

// TestActionResolverPinnedSHA needs no goreleaser snapshot: it serves a
// release in goreleaser's format (mcptest built here, its archive and
// checksums.txt) and runs resolve.sh as action.yml does. A 40-hex SHA is
// never a release: the tag list names release v1.4.2 at that commit, and
// still the SHA builds from source at that commit, with no API request; a
// SHA in the version input that is not the action's own ref exits 2.
// Without the version input, the action's own ref comes from
// github.action_ref, or from $GITHUB_ACTION_PATH when action_ref is empty
// or another action's (a composite nested in a composite). Every API
// request is checked against GitHub's description.
func TestActionResolverPinnedSHA(t *testing.T) {
	t.Parallel() // builds or runs the binary at scale: beside the other such tests
	rel := builtRelease(t)
	srv := rel.serve(t, "")
	runnerOS, runnerArch := runnerPlatform(t)
	actions := "/home/runner/work/_actions/"
	for _, tt := range []struct {
		name string
		env  map[string]string
		// tag is the release resolved, "" for the source build; repo the
		// repository resolved; code the exit code.
		tag, repo string
		code      int
	}{
		{"pinned SHA in the version input only", map[string]string{"MCPTEST_VERSION": rel.sha}, "", "mcptest/mcptest", ExitInput},
		{"pinned SHA in the version input, the action's ref", map[string]string{"MCPTEST_VERSION": rel.sha, "MCPTEST_ACTION_REF": rel.sha,
			"MCPTEST_ACTION_REPOSITORY": "mcptest/mcptest"}, "", "mcptest/mcptest", 0},
		{"a SHA in the version input, the action at v1", map[string]string{"MCPTEST_VERSION": rel.sha, "MCPTEST_ACTION_REF": "v1",
			"MCPTEST_ACTION_REPOSITORY": "mcptest/mcptest"}, "", "mcptest/mcptest", ExitInput},
		{"unknown SHA", map[string]string{"MCPTEST_ACTION_REF": commitOf("a branch head"), "MCPTEST_ACTION_REPOSITORY": "mcptest/mcptest"}, "", "mcptest/mcptest", 0},
		{"short SHA", map[string]string{"MCPTEST_VERSION": rel.sha[:12]}, "", "mcptest/mcptest", 0},
		{"action_ref is the SHA", map[string]string{"MCPTEST_ACTION_REF": rel.sha, "MCPTEST_ACTION_REPOSITORY": "mcptest/mcptest",
			"GITHUB_ACTION_PATH": actions + "mcptest/mcptest/" + rel.sha}, "", "mcptest/mcptest", 0},
		{"nested: action_ref empty", map[string]string{"MCPTEST_REPO": "", "GITHUB_ACTION_PATH": actions + "mcptest/mcptest/" + rel.sha}, "", "mcptest/mcptest", 0},
		{"nested: the outer action's ref", map[string]string{"MCPTEST_REPO": "", "MCPTEST_ACTION_REF": "v9", "MCPTEST_ACTION_REPOSITORY": "acme/outer",
			"GITHUB_ACTION_PATH": actions + "mcptest/mcptest/v1.4.2/"}, "v1.4.2", "mcptest/mcptest", 0},
		{"nested on Windows", map[string]string{"MCPTEST_REPO": "", "MCPTEST_ACTION_REF": "main", "MCPTEST_ACTION_REPOSITORY": "acme/outer",
			"GITHUB_ACTION_PATH": `D:\a\_actions\mcptest\mcptest\` + rel.sha}, "", "mcptest/mcptest", 0},
		{"a fork, from its path", map[string]string{"MCPTEST_REPO": "", "GITHUB_ACTION_PATH": actions + "acme/mcptest-fork/v1.4.2"}, "v1.4.2", "acme/mcptest-fork", 0},
		{"action_ref, no runner path (act)", map[string]string{"MCPTEST_ACTION_REF": "v1.4.2", "MCPTEST_ACTION_REPOSITORY": "mcptest/mcptest",
			"GITHUB_ACTION_PATH": "/root/.cache/act/mcptest-mcptest@v1.4.2"}, "v1.4.2", "mcptest/mcptest", 0},
		{"the version input, the repository of the path", map[string]string{"MCPTEST_REPO": "", "MCPTEST_VERSION": "v1.4.2", "MCPTEST_ACTION_REF": "v9",
			"MCPTEST_ACTION_REPOSITORY": "acme/outer", "GITHUB_ACTION_PATH": actions + "acme/mcptest-fork/main"}, "v1.4.2", "acme/mcptest-fork", 0},
		{"uses: ./", map[string]string{"MCPTEST_REPO": "", "GITHUB_ACTION_PATH": "/home/runner/work/agents/agents"}, "", "mcptest/mcptest", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"RUNNER_OS": runnerOS, "RUNNER_ARCH": runnerArch}
			for k, v := range tt.env {
				env[k] = v
			}
			out, log, code := resolveScript(t, srv, "resolve", env)
			if tt.code != 0 {
				if code != tt.code || !strings.Contains(log, "::error") || out["source"] != "" {
					t.Fatalf("resolve: exit %d, outputs %v; want exit %d with an ::error line\n%s", code, out, tt.code, log)
				}
				return
			}
			wantSource := map[bool]string{true: "true", false: "false"}[tt.tag == ""]
			if code != 0 || out["source"] != wantSource || out["tag"] != tt.tag || out["repo"] != tt.repo {
				t.Fatalf("resolve: exit %d, outputs %v; want tag %q of %s (source=%s)\n%s", code, out, tt.tag, tt.repo, wantSource, log)
			}
			if tt.tag == "" || tt.repo != "mcptest/mcptest" {
				return
			}
			for k, v := range map[string]string{"MCPTEST_REPO": out["repo"], "MCPTEST_TAG": out["tag"], "MCPTEST_ARCHIVE": out["archive"], "MCPTEST_DIR": out["dir"]} {
				env[k] = v
			}
			if fetched, log, code := resolveScript(t, srv, "fetch", env); code != 0 || fetched["source"] != "false" {
				t.Fatalf("fetch: exit %d, outputs %v\n%s", code, fetched, log)
			}
			got, err := exec.Command(filepath.Join(out["dir"], "mcptest"), "--version").CombinedOutput()
			if err != nil || !strings.HasPrefix(string(got), "mcptest 1.4.2\n") {
				t.Errorf("the unpacked binary says %q (%v), want mcptest 1.4.2", got, err)
			}
		})
	}
	// No row looks a SHA up: a tag names no code a SHA pin runs.
	if n := rel.requests.count("/api/repos/mcptest/mcptest/tags"); n != 0 {
		t.Errorf("%d tag list requests, want none: a SHA pin is never resolved through the tags", n)
	}
}

// TestActionPinnedSHAKeepsItsBytes: a workflow pins the action by the
// commit SHA of release v1.4.2, then someone pushes a new tag v1.9.0 to
// that same commit with a new release whose archive holds other bytes
// (published, with its own matching checksums.txt). The pinned workflow
// runs action.yml's steps as the runner does (the resolve step, the
// fetch step only when it says source=false, else the source build of the
// action's checkout at the SHA) before and after the new tag, and both
// times runs the same binary, built from the commit's source: the new
// release is never downloaded.
func TestActionPinnedSHAKeepsItsBytes(t *testing.T) {
	t.Parallel() // builds or runs the binary at scale: beside the other such tests
	longTest(t)  // builds mcptest again with other flags: about 20 to 40 s of two cores
	if runtime.GOOS == "windows" {
		t.Skip("the composite's build step is run with bash here")
	}
	old := builtRelease(t)
	// The checkout the runner makes of the action at the SHA: this tree.
	checkout, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	runnerOS, runnerArch := runnerPlatform(t)
	steps := actionSteps(t)
	run := func(rel fakeRelease) (digest, version string) {
		t.Helper()
		srv := rel.serve(t, "")
		tmp := t.TempDir()
		env := map[string]string{"RUNNER_OS": runnerOS, "RUNNER_ARCH": runnerArch, "MCPTEST_ACTION_REF": rel.sha,
			"MCPTEST_ACTION_REPOSITORY": "mcptest/mcptest", "GITHUB_ACTION_PATH": checkout}
		out, log, code := resolveScript(t, srv, "resolve", env)
		if code != 0 {
			t.Fatalf("resolve: exit %d\n%s", code, log)
		}
		bin := filepath.Join(out["dir"], "mcptest")
		if out["source"] != "true" {
			for k, v := range map[string]string{"MCPTEST_TAG": out["tag"], "MCPTEST_ARCHIVE": out["archive"], "MCPTEST_DIR": out["dir"]} {
				env[k] = v
			}
			if _, log, code := resolveScript(t, srv, "fetch", env); code != 0 {
				t.Fatalf("fetch: exit %d\n%s", code, log)
			}
		} else {
			cmd := exec.Command("bash", "-e", "-c", steps["build mcptest from source"])
			cmd.Dir = checkout
			cmd.Env = append(os.Environ(), "MCPTEST_DIR="+filepath.Join(tmp, "mcptest-source"), "MCPTEST_REF="+out["ref"], "RUNNER_OS="+runnerOS)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the source build step: %v\n%s", err, b)
			}
			bin = filepath.Join(tmp, "mcptest-source", "mcptest")
		}
		if n := rel.requests.count("/dl/"); n != 0 {
			t.Errorf("the pinned workflow downloaded %d release assets of %s", n, rel.tag)
		}
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatalf("no binary: %v\n%s", err, log)
		}
		v, _ := exec.Command(bin, "--version").CombinedOutput()
		return sha256Hex(b), string(v)
	}
	before, beforeVersion := run(old)
	moved := builtReleaseAs(t, "1.9.0")
	moved.sha = old.sha
	after, afterVersion := run(moved)
	if before != after || beforeVersion != afterVersion {
		t.Errorf("the SHA-pinned workflow ran other bytes once a new tag pointed at its commit: %s (%q) before, %s (%q) after", before, beforeVersion, after, afterVersion)
	}
	if strings.Contains(afterVersion, "1.9.0") || strings.Contains(afterVersion, "1.4.2") {
		t.Errorf("the SHA-pinned workflow ran a release: %q", afterVersion)
	}
}

// actionSteps is action.yml's steps' run: scripts by name.
func actionSteps(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Runs struct {
			Steps []struct{ Name, Run string }
		}
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range a.Runs.Steps {
		out[s.Name] = s.Run
	}
	if out["build mcptest from source"] == "" {
		t.Fatal("action.yml has no step \"build mcptest from source\"")
	}
	return out
}

// prefixPorts listens on two local ports whose URLs start alike as strings,
// http://127.0.0.1:P and http://127.0.0.1:P3 (P3 being P*10+3), and serves
// api on the first and dl on the second.
func prefixPorts(t *testing.T, api, dl http.Handler) (apiURL, dlURL string) {
	t.Helper()
	for p := 2000 + os.Getpid()%4000; p < 6553; p += 7 {
		la, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		ld, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p*10+3))
		if err != nil {
			la.Close()
			continue
		}
		for l, h := range map[net.Listener]http.Handler{la: api, ld: dl} {
			srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
			srv.Start()
			t.Cleanup(srv.Close)
		}
		return fmt.Sprintf("http://127.0.0.1:%d", p), fmt.Sprintf("http://127.0.0.1:%d", p*10+3)
	}
	t.Fatal("no two free ports P and P*10+3")
	return "", ""
}

// authSeen records the Authorization headers a server was sent.
type authSeen struct {
	sync.Mutex
	requests, withToken int
}

// under serves h with prefix put before every path, counting requests.
func (a *authSeen) under(prefix string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.Lock()
		a.requests++
		if r.Header.Get("Authorization") != "" {
			a.withToken++
		}
		a.Unlock()
		r.URL.Path = prefix + r.URL.Path
		h.ServeHTTP(w, r)
	})
}

// curlRecorder puts a curl first on PATH that appends its arguments, one
// a line, to the file it returns, then runs the real curl.
func curlRecorder(t *testing.T) (pathEnv, argvFile string) {
	t.Helper()
	real, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed: apt-get install curl")
	}
	dir := t.TempDir()
	argvFile = filepath.Join(dir, "argv")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >>'" + argvFile + "'; done\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "curl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH"), argvFile
}

// TestActionResolverTokenOrigin: the API at http://127.0.0.1:P and the
// download host at http://127.0.0.1:P3, whose URL starts with the API's as
// a string: the resolver sends the token to the API's origin only (every
// API request carries it, no download does), and never on curl's command
// line (a curl first on PATH records its arguments); a release whose
// archive matches its checksum but that tar refuses ends with an ::error
// line.
func TestActionResolverTokenOrigin(t *testing.T) {
	t.Parallel() // builds or runs the binary at scale: beside the other such tests
	if runtime.GOOS == "windows" {
		t.Skip("the recording curl is a shell script")
	}
	rel := builtRelease(t)
	runnerOS, runnerArch := runnerPlatform(t)
	var apiSeen, dlSeen authSeen
	h := rel.handler(t, "")
	apiURL, dlURL := prefixPorts(t, apiSeen.under("/api", h), dlSeen.under("/dl", h))
	if !strings.HasPrefix(dlURL, apiURL) {
		t.Fatalf("%s does not start with %s", dlURL, apiURL)
	}
	path, argv := curlRecorder(t)
	env := map[string]string{"RUNNER_OS": runnerOS, "RUNNER_ARCH": runnerArch, "MCPTEST_VERSION": "v1",
		"MCPTEST_API_URL": apiURL, "MCPTEST_DOWNLOAD_URL": dlURL, "PATH": path}
	out, log, code := resolveScript(t, nil, "resolve", env)
	if code != 0 || out["tag"] != rel.tag {
		t.Fatalf("resolve: exit %d, outputs %v\n%s", code, out, log)
	}
	for k, v := range map[string]string{"MCPTEST_TAG": out["tag"], "MCPTEST_ARCHIVE": out["archive"], "MCPTEST_DIR": out["dir"]} {
		env[k] = v
	}
	if fetched, log, code := resolveScript(t, nil, "fetch", env); code != 0 || fetched["source"] != "false" {
		t.Fatalf("fetch: exit %d, outputs %v\n%s", code, fetched, log)
	}
	if apiSeen.requests == 0 || apiSeen.withToken != apiSeen.requests {
		t.Errorf("the API at %s was sent the token on %d of %d requests, want all", apiURL, apiSeen.withToken, apiSeen.requests)
	}
	if dlSeen.requests != 2 || dlSeen.withToken != 0 {
		t.Errorf("the download host at %s was sent the token on %d of %d requests, want none of 2", dlURL, dlSeen.withToken, dlSeen.requests)
	}
	args, err := os.ReadFile(argv)
	if err != nil || !strings.Contains(string(args), apiURL+"/repos/") {
		t.Fatalf("the recording curl was not run: %v\n%s", err, args)
	}
	if strings.Contains(string(args), "ghs_resolver") {
		t.Errorf("the token is on curl's command line:\n%s", args)
	}

	// The archive is not a tar.gz, and checksums.txt says it is the one.
	bad := fakeRelease{tag: rel.tag, sha: rel.sha, requests: &requestLog{}, files: map[string][]byte{
		out["archive"]: []byte("not a tarball\n"), "checksums.txt": []byte(sha256Hex([]byte("not a tarball\n")) + "  " + out["archive"] + "\n")}}
	env["MCPTEST_DIR"] = filepath.Join(t.TempDir(), "unpacked")
	_, log, code = resolveScript(t, bad.serve(t, ""), "fetch", map[string]string{"MCPTEST_TAG": out["tag"], "MCPTEST_ARCHIVE": out["archive"],
		"MCPTEST_DIR": env["MCPTEST_DIR"], "RUNNER_OS": runnerOS, "RUNNER_ARCH": runnerArch})
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if code != 3 || !strings.HasPrefix(lines[len(lines)-1], "::error title=mcptest setup::could not unpack "+out["archive"]) {
		t.Errorf("a tar refusal: exit %d, want 3 and an ::error line last\n%s", code, log)
	}
}
