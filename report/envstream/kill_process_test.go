package envstream

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/report/envgen"
)

// TestKilledLeavesNoSpoolProcess kills the built binary with SIGKILL
// while it holds a file of its TMPDIR open (its spool, seen in
// /proc/PID/fd), in a `report
// --compare` in markdown (its listed cases' spool; json spools nothing:
// it is written as it is computed) and in a `report merge`, and finds
// nothing left in its TMPDIR: the spools' names are removed as they are
// created (spoolfile.Create), so no exit path has to remove them.
func TestKilledLeavesNoSpoolProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the open spool is seen in /proc")
	}
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	shards, err := envgen.WriteSuite(dir, 20000, millionShards)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"compare markdown", []string{"report", "baseline.json", "--compare", "baseline.json", "--format", "markdown", "--fail-on", "none", "--output", "c.md"}},
		{"merge", append([]string{"report", "merge", "--output", "m.json"}, shards...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command(bin, c.args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			fds := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "fd")
			seen := ""
			for seen == "" {
				select {
				case err := <-exited:
					t.Fatalf("%v exited (%v) before its spool was seen open", c.args, err)
				default:
				}
				ents, _ := os.ReadDir(fds)
				for _, e := range ents {
					if target, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && strings.HasPrefix(target, tmp+"/") {
						seen = target
					}
				}
				if seen == "" {
					time.Sleep(200 * time.Microsecond)
				}
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			<-exited
			t.Logf("killed with %s open", seen)
			names, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				t.Errorf("%s: killed, it left %s in its TMPDIR", c.name, n.Name())
			}
		})
	}
}
