package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// snapshotDist is where `goreleaser release --snapshot --clean` writes (.ci/run
// builds it before go test).
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

// TestReleaseSnapshot reads the goreleaser snapshot's checksums.txt and
// verifies every archive: one per release target, each matching its
// checksum and holding the mcptest binary and the LICENSE. .ci/run builds the
// snapshot first; without it the test skips (under CI=true it fails).
func TestReleaseSnapshot(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(snapshotDist, "checksums.txt"))
	if err != nil {
		msg := fmt.Sprintf("no goreleaser snapshot in dist/ (%v); build it with: go run github.com/goreleaser/goreleaser/v2@v2.15.1 release --snapshot --clean --skip=docker,sbom,publish", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true: .ci/run builds it, so its absence is a failure)")
		}
		t.Skip(msg)
	}
	sums := readChecksums(t, data)
	version := snapshotVersion(t, sums)
	for _, tg := range releaseTargets {
		name := archiveName(version, tg.os, tg.arch)
		want, ok := sums[name]
		if !ok {
			t.Errorf("checksums.txt lists no %s", name)
			continue
		}
		b, err := os.ReadFile(filepath.Join(snapshotDist, name))
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
}

func newFakeRelease(t *testing.T) fakeRelease {
	t.Helper()
	if data, err := os.ReadFile(filepath.Join(snapshotDist, "checksums.txt")); err == nil {
		sums := readChecksums(t, data)
		r := fakeRelease{tag: "v" + snapshotVersion(t, sums), files: map[string][]byte{"checksums.txt": data}}
		for name := range sums {
			if b, err := os.ReadFile(filepath.Join(snapshotDist, name)); err == nil {
				r.files[name] = b
			}
		}
		return r
	}
	r := fakeRelease{tag: "v1.2.3", files: map[string][]byte{}}
	var sums strings.Builder
	for _, tg := range releaseTargets {
		name := archiveName("1.2.3", tg.os, tg.arch)
		b := buildArchive(t, name, tg.os)
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
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for n, body := range files {
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg})
		io.WriteString(tw, body)
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// serve answers as GitHub would for mcptest/mcptest: the releases list
// under /api and the release assets under /dl.
func (r fakeRelease) serve(t *testing.T, tamper string) *httptest.Server {
	t.Helper()
	list := fmt.Sprintf(`[{"tag_name": "v2.0.0"}, {"tag_name": "v1.3.0-rc.1"}, {"tag_name": %q}, {"tag_name": "v1.0.0"}]`, r.tag)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch {
		case req.URL.Path == "/api/repos/mcptest/mcptest/releases":
			io.WriteString(w, list)
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
	}))
	t.Cleanup(srv.Close)
	return srv
}

// resolveScript runs .github/action/resolve.sh STEP with env against srv
// and returns the outputs it wrote, its combined output and exit code.
func resolveScript(t *testing.T, srv *httptest.Server, step string, env map[string]string) (map[string]string, string, int) {
	t.Helper()
	bash := checker(t, "bash", "bash", "apt-get install bash")
	checker(t, "curl", "curl", "apt-get install curl")
	dir := t.TempDir()
	outFile := filepath.Join(dir, "output")
	cmd := exec.Command(bash, "../../.github/action/resolve.sh", step)
	cmd.Env = append(os.Environ(), "GITHUB_OUTPUT="+outFile, "RUNNER_TOOL_CACHE="+filepath.Join(dir, "cache"),
		"MCPTEST_API_URL="+srv.URL+"/api", "MCPTEST_DOWNLOAD_URL="+srv.URL+"/dl", "MCPTEST_REPO=mcptest/mcptest")
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
	major := "v" + strings.SplitN(version, ".", 2)[0]
	if out, log, _ := resolveScript(t, srv, "resolve", with("MCPTEST_VERSION", major)); out["tag"] != rel.tag && !strings.Contains(rel.tag, "-") {
		t.Errorf("ref %s: tag %q, want the newest %s.x release %s\n%s", major, out["tag"], major, rel.tag, log)
	}
	for _, ref := range []string{"main", "", "3f2c1a9e"} {
		if out, log, code := resolveScript(t, srv, "resolve", with("MCPTEST_VERSION", ref)); code != 0 || out["source"] != "true" {
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
