package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cli"
	"gopkg.in/yaml.v3"
)

// dockerfileBuild is the go build of a Dockerfile's RUN line: its
// environment assignments and go build's arguments, ${ARG}s replaced by
// args.
func dockerfileBuild(t *testing.T, path string, args map[string]string) (env, argv []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	var run string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "RUN ") && strings.Contains(line, "go build") {
			run = strings.TrimPrefix(line, "RUN ")
		}
	}
	if run == "" {
		t.Fatalf("%s: no RUN line runs go build", path)
	}
	run = regexp.MustCompile(`\$\{(\w+)\}`).ReplaceAllStringFunc(run, func(m string) string { return args[m[2:len(m)-1]] })
	words := shellWords(t, run)
	i := slices.Index(words, "go")
	if i < 0 || i+1 >= len(words) || words[i+1] != "build" {
		t.Fatalf("%s: the RUN line is not [VAR=value...] go build ...: %q", path, run)
	}
	return words[:i], words[i+2:]
}

// shellWords splits a command line as sh does for the quoting a Dockerfile's
// go build uses (cli.SplitWords, as the Action's args input).
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	words, err := cli.SplitWords(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return words
}

// buildSettings is `go version -m`'s build lines of bin, without the VCS
// stamp (a Docker context has no .git; the release's checkout has) and
// without the output path.
func buildSettings(t *testing.T, bin string) []string {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "build" || strings.HasPrefix(f[1], "vcs") || strings.HasPrefix(f[1], "-buildvcs") {
			continue
		}
		keep = append(keep, strings.Join(f[1:], " "))
	}
	return keep
}

// TestDockerfileBuildsTheReleaseBinary: the root Dockerfile's go build,
// run as its RUN line says (its environment, flags and ldflags, the build
// arguments given), makes the binary the release build of .goreleaser.yaml
// makes for linux: the same build settings (`go version -m`, VCS stamp
// aside) and the same `--version`; the README's `docker run` lines work
// with it as the image runs them (readmeImageCommands). Both images start the CLI, with
// `action` as the command when none is given, on the same pinned base.
func TestDockerfileBuildsTheReleaseBinary(t *testing.T) {
	longTest(t) // it builds mcptest twice
	if runtime.GOOS != "linux" {
		t.Skip("the images are linux binaries")
	}
	const sha, when, version = "0123456789abcdef0123456789abcdef01234567", "2026-11-23T10:00:00Z", "1.2.3"
	root, _ := filepath.Abs("../..")
	dir := t.TempDir()

	env, argv := dockerfileBuild(t, filepath.Join(root, "Dockerfile"), map[string]string{"VERSION": version, "COMMIT": sha, "DATE": when})
	o := slices.Index(argv, "-o")
	if o < 0 || o+1 >= len(argv) {
		t.Fatalf("the Dockerfile's go build names no -o: %q", argv)
	}
	docker := filepath.Join(dir, "docker")
	argv[o+1] = docker
	cmd := exec.Command("go", append([]string{"build"}, argv...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the Dockerfile's go build %q: %v\n%s", argv, err, out)
	}

	var cfg struct {
		Builds []struct {
			Main    string   `yaml:"main"`
			Env     []string `yaml:"env"`
			Flags   []string `yaml:"flags"`
			Ldflags []string `yaml:"ldflags"`
		} `yaml:"builds"`
	}
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil || len(cfg.Builds) != 1 {
		t.Fatalf(".goreleaser.yaml: %v, %d builds", err, len(cfg.Builds))
	}
	b := cfg.Builds[0]
	tmpl := strings.NewReplacer("{{ .Version }}", version, "{{ .FullCommit }}", sha, "{{ .CommitDate }}", when)
	release := filepath.Join(dir, "release")
	rargv := append([]string{"build"}, b.Flags...)
	rargv = append(rargv, "-ldflags="+tmpl.Replace(strings.Join(b.Ldflags, " ")), "-o", release, b.Main)
	cmd = exec.Command("go", rargv...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), append(b.Env, "GOOS=linux")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the release build %q: %v\n%s", rargv, err, out)
	}

	if d, r := buildSettings(t, docker), buildSettings(t, release); !slices.Equal(d, r) {
		t.Errorf("the Dockerfile's binary is built otherwise than the release's:\n%s\n--- release\n%s", strings.Join(d, "\n"), strings.Join(r, "\n"))
	}
	dv, err1 := exec.Command(docker, "--version").Output()
	rv, err2 := exec.Command(release, "--version").Output()
	if err1 != nil || err2 != nil || string(dv) != string(rv) || !strings.Contains(string(dv), sha) {
		t.Errorf("--version: the Dockerfile's %q (%v), the release's %q (%v)", dv, err1, rv, err2)
	}

	readmeImageCommands(t, root, docker, version)

	base := regexp.MustCompile(`(?m)^FROM (gcr\.io/distroless/\S+)`)
	var bases []string
	for _, f := range []string{"Dockerfile", "release.Dockerfile"} {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if !strings.Contains(text, "\nENTRYPOINT [\"/mcptest\"]\nCMD [\"action\"]\n") {
			t.Errorf("%s: the image does not start the CLI with action as its default command", f)
		}
		m := base.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("%s: no distroless base", f)
		}
		bases = append(bases, m[1])
	}
	if bases[0] != bases[1] {
		t.Errorf("the two images' bases differ: %v", bases)
	}
}

// readmeImageCommands runs the README's `docker run` lines with the
// Dockerfile's binary as the image runs it: the image's entrypoint with the
// line's arguments after the image name, in the mounted directory (-w; a
// copy of the quickstart, whose suite is suite.yml) and with only the
// environment a distroless image has (its PATH, a HOME). Each exits 0 and
// says what the README promises.
func readmeImageCommands(t *testing.T, root, bin, version string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	if err := os.CopyFS(work, os.DirFS(filepath.Join(root, "examples", "quickstart"))); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"--version": version, "validate": "suite.yml: valid", "run": "3 passed, 0 failed"}
	seen := 0
	for _, l := range strings.Split(string(readme), "\n") {
		if !strings.HasPrefix(l, "docker run ") {
			continue
		}
		words := strings.Fields(l)
		at := slices.IndexFunc(words, func(w string) bool { return strings.HasPrefix(w, "ghcr.io/mcptest/mcptest:") })
		if at < 0 || at+1 >= len(words) {
			t.Errorf("README: %q names no image and arguments", l)
			continue
		}
		args := words[at+1:]
		cmd := exec.Command(bin, args...)
		cmd.Dir = work
		cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), want[args[0]]) || want[args[0]] == "" {
			t.Errorf("README %q as the image runs it: %v, want %q in\n%s", l, err, want[args[0]], out)
		}
		seen++
	}
	if seen != len(want) {
		t.Errorf("README shows %d docker run lines, want %d (--version, validate, run)", seen, len(want))
	}
}
