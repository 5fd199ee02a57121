package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// liveBenchServers are the three reference servers pinned in .ci/node.
func liveBenchServers(b *testing.B) []struct {
	name string
	argv []string
} {
	return []struct {
		name string
		argv []string
	}{
		{"everything", []string{ciNodeBin(b, "mcp-server-everything")}},
		{"filesystem", []string{ciNodeBin(b, "mcp-server-filesystem"), b.TempDir()}},
		{"memory", []string{ciNodeBin(b, "mcp-server-memory")}},
	}
}

// liveBenchCommands are the commands that read a live target's catalog.
var liveBenchCommands = [][]string{
	{"tools"}, {"resources"}, {"prompts"}, {"capabilities"}, {"security"},
	{"doctor"}, {"doctor", "--lint-descriptions"}, {"generate", "suite"}, {"generate", "conformance"},
}

// BenchmarkLiveCommands times every live command of the built binary
// against each reference server over stdio (ns/op), and, interleaved with
// it so both see the same machine load, the baseline (bare-ns/op): a bare
// client of the official Go SDK (no capabilities) that starts the server,
// initializes, lists the tools and kills the process, the time the server
// needs. x-bare is the median over the iterations of the command's time
// over the bare client's just before it (the target is at most 1.2): a
// load spike on a shared machine moves one pair, not the figure.
// x-bare-min is the fastest command over the fastest bare client: load
// only adds time, so the fastest runs are the nearest to an idle machine.
// Run it with
//
//	go test ./cmd/mcptest -run '^$' -bench BenchmarkLiveCommands -benchtime 9x -timeout 60m
//
// MCPTEST_BENCH_BIN names another mcptest binary to time instead of this
// tree's, to compare two builds.
func BenchmarkLiveCommands(b *testing.B) {
	bin := os.Getenv("MCPTEST_BENCH_BIN")
	if bin == "" {
		bin = mcptestBin(b)
	}
	env := append(os.Environ(), "MEMORY_FILE_PATH="+filepath.Join(b.TempDir(), "memory.jsonl"))
	for _, srv := range liveBenchServers(b) {
		for _, args := range liveBenchCommands {
			b.Run(srv.name+"/"+strings.Join(args, "_"), func(b *testing.B) {
				var bare, bareCPU, cmdCPU time.Duration
				minBare, minTook := time.Duration(1<<62), time.Duration(1<<62)
				ratios := make([]float64, 0, b.N)
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					base, baseCPU := bareProbe(b, srv.argv, env)
					b.StartTimer()
					took, cpu := runLive(b, bin, args, srv.argv, env)
					bare, bareCPU, cmdCPU = bare+base, bareCPU+baseCPU, cmdCPU+cpu
					minBare, minTook = min(minBare, base), min(minTook, took)
					ratios = append(ratios, float64(took)/float64(base))
				}
				b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "bare-ns/op")
				b.ReportMetric(float64(cmdCPU.Milliseconds())/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(bareCPU.Milliseconds())/float64(b.N), "bare-cpu-ms/op")
				sort.Float64s(ratios)
				b.ReportMetric(ratios[len(ratios)/2], "x-bare")
				b.ReportMetric(float64(minTook)/float64(minBare), "x-bare-min")
			})
		}
	}
}

// runLive runs one live command of the binary against a stdio server and
// returns how long it took and the CPU time of the command and the server.
func runLive(b *testing.B, bin string, args, server, env []string) (time.Duration, time.Duration) {
	cmd := exec.Command(bin, append(append(append([]string(nil), args...), "--"), server...)...)
	cmd.Env = env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	var ee *exec.ExitError
	// security exits 1 when it has findings.
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == ExitFail) {
		b.Fatalf("mcptest %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return took, cpuTime(cmd)
}

// cpuTime is the user and system time of a finished process and of the
// children it waited for.
func cpuTime(cmd *exec.Cmd) time.Duration {
	if cmd.ProcessState == nil {
		return 0
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// bareProbe is the baseline: the SDK client with no capabilities starts
// the server, initializes, lists the tools, and kills the server. It
// returns how long that took and the server's CPU time.
func bareProbe(b *testing.B, argv, env []string) (time.Duration, time.Duration) {
	start := time.Now()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	client := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "v1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	_ = cmd.Process.Kill()
	_ = cs.Close()
	return time.Since(start), cpuTime(cmd)
}
