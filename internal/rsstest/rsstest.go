package rsstest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Env, set for a test binary, makes it a launcher: it runs its arguments
// and writes what the run cost to the file Env names.
const Env = "MCPTEST_TEST_LAUNCH"

// Usage is what one run of a command cost.
type Usage struct {
	// Code is the command's exit code (-1 when a signal ended it).
	Code int
	// Wall is the time from the command's start to its end, measured in
	// the launcher, so the launcher's own start is not counted.
	Wall time.Duration
	// CPU is the command's user and system time.
	CPU time.Duration
	// Peak is the command's peak resident set, in bytes.
	Peak int64
}

// Serve makes the process a launcher when Env is set: it runs its
// arguments with its own standard streams, writes their usage to the file
// Env names and exits. Otherwise it returns at once. Call it first in a
// test package's TestMain.
func Serve() {
	report := os.Getenv(Env)
	if report == "" {
		return
	}
	os.Unsetenv(Env)
	os.Exit(launch(report, os.Args[1:]))
}

// launch runs argv and writes its usage to report; 125 when it could not
// be started or the report not written.
func launch(report string, argv []string) int {
	if len(argv) == 0 {
		return 125
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	_ = cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		return 125
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	line := fmt.Sprintf("%d %d %d %d\n", cmd.ProcessState.ExitCode(), wall.Nanoseconds(), ru.Utime.Nano()+ru.Stime.Nano(), ru.Maxrss*1024)
	if err := os.WriteFile(report, []byte(line), 0o644); err != nil {
		return 125
	}
	return 0
}

// Run runs cmd from a fresh launcher (see the package comment) and returns
// its usage. cmd is set up as for Run of os/exec (Path, Args, Dir, Env,
// Stdin, Stdout, Stderr); its Env, or the test's environment when it is
// nil, is passed on to the command. An error is the launcher's: the
// command could not be started. A command that ran and failed is a Usage
// with its Code.
func Run(tb testing.TB, cmd *exec.Cmd) (Usage, error) {
	tb.Helper()
	self, err := os.Executable()
	if err != nil {
		return Usage{}, err
	}
	report := filepath.Join(tb.TempDir(), "rusage")
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	launcher := exec.Command(self, append([]string{cmd.Path}, cmd.Args[1:]...)...)
	launcher.Dir, launcher.Stdin, launcher.Stdout, launcher.Stderr = cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr
	launcher.Env = append(env[:len(env):len(env)], Env+"="+report)
	runErr := launcher.Run()
	data, err := os.ReadFile(report)
	if err != nil {
		return Usage{}, fmt.Errorf("the launcher reported nothing (%v): %w", runErr, err)
	}
	var u Usage
	var wall, cpu int64
	if _, err := fmt.Sscan(string(data), &u.Code, &wall, &cpu, &u.Peak); err != nil {
		return Usage{}, fmt.Errorf("launcher report %q: %w", data, err)
	}
	u.Wall, u.CPU = time.Duration(wall), time.Duration(cpu)
	return u, nil
}
