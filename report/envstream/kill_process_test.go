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
// --compare` in markdown (its listed cases' spool), and finds nothing
// left in its TMPDIR: the spools' names are removed as they are created
// (spoolfile.Create), so no exit path has to remove them. `report
// --compare` in json and `report merge --output` spool nothing: each
// writes its output into the file renamed over it (safefile.Write), of
// no name while it is written where the file system makes one (Linux);
// killed while it holds that file open, each leaves its TMPDIR empty,
// its output as it was and, that file of no name, nothing beside it.
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
	if err := os.WriteFile(filepath.Join(dir, "m.json"), []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		// open is the start of the path of the file the process is
		// killed holding open: in its TMPDIR when empty.
		open string
	}{
		{"compare json", []string{"report", "baseline.json", "--compare", "baseline.json", "--format", "json", "--fail-on", "none", "--output", "m.json"}, dir + "/#"},
		{"compare markdown", []string{"report", "baseline.json", "--compare", "baseline.json", "--format", "markdown", "--fail-on", "none", "--output", "m.json"}, ""},
		{"merge", append([]string{"report", "merge", "--output", "m.json"}, shards...), dir + "/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			open := c.open
			if open == "" {
				open = tmp + "/"
			}
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
					if target, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && strings.HasPrefix(target, open) && !strings.Contains(target, "shard-") {
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
			if data, err := os.ReadFile(filepath.Join(dir, "m.json")); err != nil || string(data) != "before\n" {
				t.Errorf("%s: killed, its output is %.40q (%v)", c.name, data, err)
			}
			if c.open == "" || !strings.HasSuffix(seen, "(deleted)") {
				return // a named temporary file, where the file system makes none of no name
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("%s: killed, it left %s beside its output", c.name, e.Name())
				}
			}
		})
	}
}
