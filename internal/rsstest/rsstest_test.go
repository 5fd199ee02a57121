//go:build linux

package rsstest

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

// allocEnv, set for the test binary, makes it a command that touches that
// many MiB and exits with code 3.
const allocEnv = "MCPTEST_TEST_ALLOC_MIB"

func TestMain(m *testing.M) {
	Serve()
	if n, err := strconv.Atoi(os.Getenv(allocEnv)); err == nil {
		b := make([]byte, n<<20)
		for i := range b {
			b[i] = byte(i)
		}
		os.Exit(3 + int(b[len(b)/2]&0))
	}
	os.Exit(m.Run())
}

// TestRunReportsTheChildsOwnPeak: a test holding 256 MiB measures a command
// that touches 32 MiB. Started straight from the test, the kernel reports
// the test's peak for it; from the launcher, its own 32 MiB and a floor,
// with its exit code.
func TestRunReportsTheChildsOwnPeak(t *testing.T) {
	held := make([]byte, 256<<20)
	for i := range held {
		held[i] = 1
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	command := func() *exec.Cmd {
		cmd := exec.Command(self, "-test.run=^$")
		cmd.Env = append(os.Environ(), allocEnv+"=32")
		return cmd
	}

	direct := command()
	_ = direct.Run()
	directPeak := direct.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	if directPeak < 256<<20 {
		// The kernel no longer carries the parent's peak into a child:
		// the launcher is not needed, but still right.
		t.Logf("started straight from the test: peak %d MiB", directPeak>>20)
	}

	u, err := Run(t, command())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("straight from the test: %d MiB; from the launcher: %d MiB, %v wall, %v CPU", directPeak>>20, u.Peak>>20, u.Wall, u.CPU)
	if u.Code != 3 {
		t.Errorf("exit code %d, want 3", u.Code)
	}
	if u.Peak < 32<<20 || u.Peak > 96<<20 {
		t.Errorf("peak %d MiB, want the command's 32 MiB and a floor under 64", u.Peak>>20)
	}
	if u.Wall <= 0 || u.CPU <= 0 {
		t.Errorf("wall %v, CPU %v: not measured", u.Wall, u.CPU)
	}
	held[len(held)-1] = 2
}

// TestRunCommandThatCannotStart: a command that cannot start is an error
// of Run, not a usage.
func TestRunCommandThatCannotStart(t *testing.T) {
	u, err := Run(t, exec.Command("/nonexistent/mcptest"))
	if err == nil {
		t.Fatalf("a command that cannot start measured as %+v", u)
	}
}
