package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCPUProfileEnv: MCPTEST_CPUPROFILE makes the built binary write a
// CPU profile of the command (gzip-compressed pprof, which `go tool pprof`
// reads) and changes nothing else: the command's output and exit status
// are those of a run without it; a path that cannot be created is named on
// stderr and the command still runs.
func TestCPUProfileEnv(t *testing.T) {
	bin := mcptestBin(t)
	suite := filepath.Join("..", "..", "examples", "selection-f1", "suite.yml")
	run := func(env ...string) (string, string, int) {
		cmd := exec.Command(bin, "validate", "--config", suite)
		cmd.Env = append(os.Environ(), env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := 0
		if err := cmd.Run(); err != nil {
			exit, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			code = exit.ExitCode()
		}
		return stdout.String(), stderr.String(), code
	}
	wantOut, wantErr, wantCode := run("MCPTEST_CPUPROFILE=")
	prof := filepath.Join(t.TempDir(), "cpu.out")
	out, errOut, code := run("MCPTEST_CPUPROFILE=" + prof)
	if out != wantOut || errOut != wantErr || code != wantCode {
		t.Errorf("with a profile: exit %d, stdout %q, stderr %q; without: exit %d, stdout %q, stderr %q", code, out, errOut, wantCode, wantOut, wantErr)
	}
	data, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 20 || data[0] != 0x1f || data[1] != 0x8b {
		t.Errorf("the profile is %d bytes, not gzip-compressed pprof", len(data))
	}
	out, errOut, code = run("MCPTEST_CPUPROFILE=" + filepath.Join(t.TempDir(), "missing", "cpu.out"))
	if out != wantOut || code != wantCode || !bytes.Contains([]byte(errOut), []byte("MCPTEST_CPUPROFILE")) {
		t.Errorf("an unwritable profile path: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
