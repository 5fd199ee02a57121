//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The recipes of the recording pages run as written. A page marks a shell
// block to run with the info string `sh recipe`, and a file the recipes
// after it read with `yaml file=NAME` (or json): TestDocRecipes writes the
// files and runs the recipes in page order, each with `sh -e` in one
// directory per page where the page's npm packages are installed (so `npx
// -y PACKAGE` finds them, offline), the built mcptest first on PATH. A recipe
// exits 0, or the code its last line states as `# exit N`. A recipe of
// docs/frameworks.md fenced `sh recipe set=SET/FRAMEWORK` (newest/ai-sdk)
// runs instead in a directory of its own, with the framework scripts and
// the packages .ci/run installed for that set at the versions published
// when it ran (.ci/node-frameworks-latest, found through
// MCPTEST_FRAMEWORKS_LATEST): the recipe of a framework's newest major is
// checked against the newest release.

// recipePages are the pages whose recipes run, each with the npm packages
// installed in its directory and the least number of recipes it holds.
var recipePages = []struct {
	page       string
	frameworks bool
	min        int
}{
	{page: "cassettes.md", min: 3},
	{page: "live.md", min: 3},
	{page: "frameworks.md", frameworks: true, min: 1},
}

// recipeBlock is a fenced block of a page: its info string, the 1-based
// line of its first line, and its text.
type recipeBlock struct {
	info string
	line int
	body string
}

// infoBlocks returns the fenced blocks of a Markdown page with their info
// strings.
func infoBlocks(data string) []recipeBlock {
	var out []recipeBlock
	var cur *recipeBlock
	for i, l := range strings.Split(data, "\n") {
		fence, isFence := strings.CutPrefix(strings.TrimLeft(l, " "), "```")
		switch {
		case !isFence:
			if cur != nil {
				cur.body += l + "\n"
			}
		case cur == nil:
			cur = &recipeBlock{info: strings.TrimSpace(fence), line: i + 2}
		default:
			out = append(out, *cur)
			cur = nil
		}
	}
	return out
}

// recipeExit is the exit code a recipe states on its last line (`# exit
// N`), else 0.
func recipeExit(body string) int {
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	_, comment, ok := strings.Cut(lines[len(lines)-1], " # exit ")
	var code int
	if ok {
		fmt.Sscanf(comment, "%d", &code)
	}
	return code
}

// TestDocRecipes runs the recipes of docs/cassettes.md, docs/live.md and
// docs/frameworks.md against the pinned npm servers (see above).
func TestDocRecipes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the recipes start the binary, node and real servers")
	}
	everythingBin(t)
	bin := t.TempDir()
	if err := os.Symlink(processBin(t), filepath.Join(bin, "mcptest")); err != nil {
		t.Fatal(err)
	}
	for _, p := range recipePages {
		t.Run(p.page, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", "docs", p.page))
			if err != nil {
				t.Fatal(err)
			}
			dir := recipeDir(t, p.frameworks)
			n := 0
			for _, b := range infoBlocks(string(data)) {
				at := fmt.Sprintf("docs/%s:%d", p.page, b.line)
				if name, ok := strings.CutPrefix(b.info, "yaml file="); ok {
					write(t, filepath.Join(dir, name), []byte(b.body))
				} else if name, ok := strings.CutPrefix(b.info, "json file="); ok {
					write(t, filepath.Join(dir, name), []byte(b.body))
				} else if b.info == "sh recipe" {
					n++
					runRecipe(t, at, dir, bin, b.body)
				} else if set, ok := strings.CutPrefix(b.info, "sh recipe set="); ok {
					n++
					if dir := latestRecipeDir(t, set); dir != "" {
						runRecipe(t, at+" ("+set+": "+latestVersions(t, set)+")", dir, bin, b.body)
					}
				}
			}
			if n < p.min {
				t.Errorf("docs/%s holds %d recipes (```sh recipe), want at least %d", p.page, n, p.min)
			}
		})
	}
}

// recipeDir is a page's working directory: the pinned servers of .ci/node
// installed in it, or for frameworks.md those of .ci/node-frameworks with
// the framework scripts beside them.
func recipeDir(t *testing.T, frameworks bool) string {
	t.Helper()
	if frameworks {
		_, modules := frameworkNode(t)
		return frameworkDir(t, modules)
	}
	dir := t.TempDir()
	modules, err := filepath.Abs(filepath.Join("..", "..", ".ci", "node", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// latestRecipeDir is the working directory of a recipe for set (newest/ai-sdk):
// the framework scripts, and the set's node_modules of
// MCPTEST_FRAMEWORKS_LATEST. Without it the recipe is not run ("", and a
// line in the log), under CI=true the test fails.
func latestRecipeDir(t *testing.T, set string) string {
	t.Helper()
	root := os.Getenv(frameworksLatestEnv)
	if root == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: .ci/run installs the newest frameworks and sets it", frameworksLatestEnv)
		}
		t.Logf("the %s recipe is not run: %s is not set; run `node .ci/node-frameworks-latest/install.mjs` and set it to .ci/node-frameworks-latest", set, frameworksLatestEnv)
		return ""
	}
	modules := filepath.Join(root, filepath.FromSlash(set), "node_modules")
	if _, err := os.Stat(modules); err != nil {
		t.Fatalf("the %s set is not installed under %s (%v): .ci/node-frameworks-latest/sets.json names the sets", set, root, err)
	}
	return frameworkDir(t, modules)
}

// latestVersions is what versions.json says the set installed.
func latestVersions(t *testing.T, set string) string {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(os.Getenv(frameworksLatestEnv), filepath.FromSlash(set), "versions.json"))
	return strings.Join(strings.Fields(strings.NewReplacer("{", "", "}", "", `"`, "", ",", "").Replace(string(data))), " ")
}

// runRecipe runs one recipe with `sh -e` in dir, the binary's directory
// first on PATH, npm offline, and checks its exit code.
func runRecipe(t *testing.T, at, dir, bin, body string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-e", "-c", body)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8",
		"npm_config_offline=true", "npm_config_update_notifier=false"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second // a server the recipe left running holds its output open
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the recipe left running, if it failed before stopping it
	code := cmd.ProcessState.ExitCode()
	t.Logf("%s: exit %d in %s", at, code, time.Since(start).Round(time.Millisecond))
	if want := recipeExit(body); code != want || ctx.Err() != nil {
		t.Errorf("%s: the recipe exited %d (%v), the page says %d:\n%s\n--- output\n%s", at, code, err, want, body, out.String())
	}
}

// TestRecordOnTerminal starts `mcptest record` by hand in a terminal (a
// pseudo-terminal of util-linux's script) and presses Enter: it answers,
// with exit 2, what docs/cassettes.md shows, and writes nothing.
func TestRecordOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	script, err := exec.LookPath("script")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("script (util-linux) is not installed: install util-linux (bsdutils on Debian and Ubuntu)")
		}
		t.Skip("script (util-linux) is not installed; install util-linux (bsdutils on Debian and Ubuntu)")
	}
	server := everythingBin(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-q", "-e", "-c", shellQuote(processBin(t))+" record --output rec.json -- "+shellQuote(server)+" stdio", "/dev/null")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8", "TERM=dumb"}
	cmd.Stdin = strings.NewReader("\n")
	out, _ := cmd.CombinedOutput()
	got := strings.TrimSpace(strings.ReplaceAll(string(out), "\r", ""))
	if code := cmd.ProcessState.ExitCode(); code != ExitInput {
		t.Errorf("record in a terminal: exit %d, want %d\n%s", code, ExitInput, got)
	}
	page, err := os.ReadFile("../../docs/cassettes.md")
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, b := range infoBlocks(string(page)) {
		if strings.HasPrefix(b.body, "mcptest: record is an MCP server on stdin") {
			want = strings.TrimSpace(b.body)
		}
	}
	if want == "" || got != want {
		t.Errorf("record in a terminal says\n%s\ndocs/cassettes.md shows\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "rec.json")); err == nil {
		t.Error("record in a terminal wrote rec.json")
	}
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
