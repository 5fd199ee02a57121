//go:build linux

package main

// Bounded work: every input a catalog, a recording or a server controls
// costs mcptest time and memory in proportion to its bytes, whatever its
// shape. The generator below makes hostile inputs nobody wrote (schemas of
// every costly kind with arguments made to hit them, long model names, a
// server that floods ask-backs) and runs the built binary on each, holding
// its CPU time and peak memory to a ceiling per input byte.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/internal/rsstest"
)

// floodServerEnv, set for the test binary, makes it a stdio MCP server
// whose one tool, on each call, sends N elicitation/create requests of
// SIZE bytes each, all at once ("N,SIZE"), reads what comes back, then
// answers the call.
const floodServerEnv = "MCPTEST_TEST_FLOOD_SERVER"

// runFloodServer is the server floodServerEnv starts.
func runFloodServer(spec string) int {
	nText, sizeText, _ := strings.Cut(spec, ",")
	n, _ := strconv.Atoi(nText)
	size, _ := strconv.Atoi(sizeText)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	lines := make(chan []byte, 64)
	go func() {
		in := bufio.NewReaderSize(os.Stdin, 1<<20)
		for {
			line, err := in.ReadBytes('\n')
			if len(line) > 0 {
				lines <- line
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	write := func(v any) {
		data, _ := json.Marshal(v)
		out.Write(append(data, '\n'))
		out.Flush()
	}
	message := strings.Repeat("Please confirm. ", size/16+1)[:size]
	for line := range lines {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil || req.Method == "" {
			continue
		}
		switch req.Method {
		case "initialize":
			write(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"protocolVersion": "2025-06-18",
				"capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "flood", "version": "1"}}})
		case "tools/list":
			write(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"tools": []any{
				map[string]any{"name": "ask", "description": "Asks the user many questions.", "inputSchema": map[string]any{"type": "object"}}}}})
		case "tools/call":
			for i := range n {
				write(map[string]any{"jsonrpc": "2.0", "id": "e" + strconv.Itoa(i), "method": "elicitation/create",
					"params": map[string]any{"message": message, "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}}})
			}
			write(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "asked"}}}})
		default:
			write(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{}})
		}
	}
	return 0
}

// usage is what one run of the binary cost: CPU seconds (user and system)
// and peak resident memory.
type usage struct {
	cpu  time.Duration
	peak int64 // bytes
	code int
	out  string
}

// runMeasured runs the built binary with args in dir and reads its
// resource use from the kernel, through the one launcher of the tests
// (rsstest.Run): the test process, which holds the generated inputs, would
// otherwise inflate the peak.
func runMeasured(t *testing.T, dir string, env []string, args ...string) usage {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(processBin(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = &out, &out
	u, err := rsstest.Run(t, cmd)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return usage{cpu: u.CPU, peak: u.Peak, code: u.Code, out: out.String()}
}

// The ceiling each generated input is held to: a fixed part (the binary
// starting, the embedded tables) and a part per input byte.
const (
	ceilingCPU         = 3 * time.Second
	ceilingCPUPerByte  = 2 * time.Microsecond
	ceilingPeak        = 160 << 20
	ceilingPeakPerByte = 24
)

// hostileSchema is one generated schema of a costly kind and arguments
// made to hit it.
type hostileSchema struct {
	kind   string
	schema any
	args   map[string]any
}

// generateSchemas makes n hostile schema and argument pairs from r: enums
// of many numbers against as many non-members, patterns with large
// programs against long strings, references that fan out exponentially,
// deep nesting, long member names against patternProperties, many
// required names, a large const, and uniqueItems over long arrays.
func generateSchemas(r *rand.Rand, n int) []hostileSchema {
	var out []hostileSchema
	for len(out) < n {
		size := 500 + r.IntN(4000)
		switch len(out) % 8 {
		case 0:
			enum := make([]any, size)
			bad := make([]any, size)
			for i := range enum {
				enum[i] = float64(i) * 1.5
				bad[i] = float64(size+i) + 0.25
			}
			out = append(out, hostileSchema{"enum", obj(map[string]any{"type": "array", "items": map[string]any{"enum": enum}}), map[string]any{"x": bad}})
		case 1:
			pat := strings.Repeat(`[\s\S]{`+strconv.Itoa(50+r.IntN(950))+`}`, 1+r.IntN(20))
			out = append(out, hostileSchema{"pattern", obj(map[string]any{"type": "string", "pattern": pat}), map[string]any{"x": strings.Repeat("a", size*200)}})
		case 2:
			depth := 20 + r.IntN(12)
			defs := map[string]any{}
			for i := range depth {
				next := map[string]any{"$ref": fmt.Sprintf("#/$defs/a%d", i+1)}
				defs[fmt.Sprintf("a%d", i)] = map[string]any{"anyOf": []any{next, next, next}[:2+r.IntN(2)]}
			}
			defs[fmt.Sprintf("a%d", depth)] = map[string]any{"type": "string"}
			s := obj(map[string]any{"$ref": "#/$defs/a0"})
			s["$defs"] = defs
			out = append(out, hostileSchema{"refs", s, map[string]any{"x": float64(r.IntN(100))}})
		case 3:
			var deep any = map[string]any{"type": "string"}
			for range 40 + r.IntN(200) {
				deep = map[string]any{"type": "object", "properties": map[string]any{"y": deep}}
			}
			out = append(out, hostileSchema{"nesting", obj(deep.(map[string]any)), map[string]any{"x": map[string]any{}}})
		case 4:
			members := map[string]any{}
			for i := range size / 50 {
				members[strings.Repeat("k", 20000)+strconv.Itoa(i)] = 1.0
			}
			s := map[string]any{"type": "object", "patternProperties": map[string]any{`^(k|kk)+\d$`: map[string]any{"type": "string"}}}
			out = append(out, hostileSchema{"patternProperties", obj(s), map[string]any{"x": members}})
		case 5:
			req := make([]any, size)
			for i := range req {
				req[i] = "p" + strconv.Itoa(i)
			}
			out = append(out, hostileSchema{"required", obj(map[string]any{"type": "object", "required": req}), map[string]any{"x": map[string]any{}}})
		case 6:
			big := make([]any, size)
			for i := range big {
				big[i] = []any{float64(i), "v"}
			}
			items := make([]any, size)
			for i := range items {
				items[i] = big
			}
			out = append(out, hostileSchema{"const", obj(map[string]any{"type": "array", "items": map[string]any{"const": big}}), map[string]any{"x": items[:min(len(items), 40)]}})
		case 7:
			arr := make([]any, size*10)
			for i := range arr {
				arr[i] = []any{float64(i)}
			}
			out = append(out, hostileSchema{"uniqueItems", obj(map[string]any{"type": "array", "uniqueItems": true}), map[string]any{"x": arr}})
		}
	}
	return out
}

// obj puts s under a tool's parameter x.
func obj(s map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"x": s}}
}

// writeSchemaCase writes a cassette whose catalog holds the schema and
// whose one run calls the tool with the arguments three times, and a suite
// that gates it; it returns the suite and the cassette's size.
func writeSchemaCase(t *testing.T, dir string, h hostileSchema) (string, int64) {
	t.Helper()
	call := map[string]any{"server": "s", "tool": "t", "arguments": h.args, "is_error": false,
		"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}}}
	c := map[string]any{"mcptest_cassette": 1, "agent": "a", "model": "claude-sonnet-4-5-20250929", "provider": "anthropic", "prompt": "p",
		"catalog": map[string]any{"s": map[string]any{"tools": []any{map[string]any{"name": "t", "description": "d", "inputSchema": h.schema}}}},
		"runs":    []any{map[string]any{"turns": []any{map[string]any{"calls": []any{call, call, call}, "final_response": "done"}}}}}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	suite := filepath.Join(dir, "suite.yml")
	os.WriteFile(suite, []byte("agents:\n  - name: hostile\n    cassette: c.json\n    arguments: {}\n"), 0o644)
	return suite, int64(len(data))
}

// checkCeiling fails when u is over the ceiling for an input of n bytes.
func checkCeiling(t *testing.T, what string, u usage, n int64) {
	t.Helper()
	cpu := ceilingCPU + time.Duration(n)*ceilingCPUPerByte
	peak := ceilingPeak + n*ceilingPeakPerByte
	t.Logf("%s: %d input bytes: %v CPU (ceiling %v), %d MiB peak (ceiling %d MiB), exit %d", what, n, u.cpu.Round(time.Millisecond), cpu, u.peak>>20, peak>>20, u.code)
	if u.cpu > cpu || u.peak > peak {
		t.Errorf("%s: %d input bytes took %v CPU and %d MiB, over the ceiling of %v and %d MiB\n%.2000s", what, n, u.cpu, u.peak>>20, cpu, peak>>20, u.out)
	}
}

// TestBoundedWorkGenerated runs the built binary on generated hostile
// inputs: for each schema kind a recording whose catalog holds the schema
// and whose calls' arguments hit it (the call is checked, or counted
// unchecked with its reason, never a stall), a recorded and a queried
// model name of many kilobytes (the did-you-mean), and a live test whose
// server floods 20,000 ask-backs of 50 KB. Each run's CPU time and peak
// memory are held to a ceiling per input byte.
func TestBoundedWorkGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 2))
	seen := map[string]bool{}
	for i, h := range generateSchemas(r, 16) {
		t.Run(fmt.Sprintf("%02d-%s", i, h.kind), func(t *testing.T) {
			dir := t.TempDir()
			suite, n := writeSchemaCase(t, dir, h)
			u := runMeasured(t, dir, nil, "run", "--config", suite)
			if u.code != ExitOK && u.code != ExitFail {
				t.Fatalf("exit %d\n%.3000s", u.code, u.out)
			}
			checkCeiling(t, h.kind, u, n)
			if strings.Contains(u.out, "not checked") {
				seen[h.kind+" unchecked"] = true
			}
		})
	}
	for _, k := range []string{"pattern", "refs", "nesting", "patternProperties"} {
		if !seen[k+" unchecked"] {
			t.Errorf("no %s case was counted unchecked with its reason", k)
		}
	}

	t.Run("model names", func(t *testing.T) {
		for _, size := range []int{20 << 10, 100 << 10} {
			name := "gpt-4o-" + strings.Repeat(string(rune('a'+r.IntN(26))), size)
			dir := t.TempDir()
			u := runMeasured(t, dir, nil, "prices", name)
			checkCeiling(t, fmt.Sprintf("prices, a %d-byte name", size), u, int64(size))
			c := map[string]any{"mcptest_cassette": 1, "agent": "a", "model": name, "provider": "openai", "prompt": "p",
				"runs": []any{map[string]any{"turns": []any{map[string]any{"calls": []any{}, "final_response": "done"}}, "tokens": map[string]any{"input": 10, "output": 5, "total": 15}}}}
			data, _ := json.Marshal(c)
			os.WriteFile(filepath.Join(dir, "c.json"), data, 0o644)
			os.WriteFile(filepath.Join(dir, "suite.yml"), []byte("agents:\n  - name: m\n    cassette: c.json\n"), 0o644)
			u = runMeasured(t, dir, nil, "run", "--config", "suite.yml")
			checkCeiling(t, fmt.Sprintf("run, a %d-byte model", size), u, int64(len(data)))
		}
	})

	t.Run("ask-back flood", func(t *testing.T) {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		const n, size = 20000, 50 << 10
		dir := t.TempDir()
		suite := fmt.Sprintf("servers:\n  flood:\n    command: [%q]\n    timeout: 120s\ntools:\n  - name: flooded\n    server: flood\n    tool: ask\n    elicitation:\n      - action: decline\n", self)
		os.WriteFile(filepath.Join(dir, "suite.yml"), []byte(suite), 0o644)
		u := runMeasured(t, dir, []string{floodServerEnv + "=" + strconv.Itoa(n) + "," + strconv.Itoa(size)}, "run", "--config", "suite.yml", "--reporter", "json")
		// The server's requests are the input: 1 GB in all, which mcptest
		// reads and answers but keeps none of beyond the first 100.
		if u.code != ExitFail {
			t.Fatalf("exit %d, want 1 (the flood fails the test)\n%.3000s", u.code, u.out)
		}
		checkCeiling(t, "ask-back flood", u, n*size)
		var env struct {
			Cases []struct {
				Findings []struct{ Message string }
			}
		}
		if err := json.Unmarshal([]byte(u.out[strings.Index(u.out, "{"):]), &env); err != nil || len(env.Cases) != 1 {
			t.Fatalf("no envelope: %v\n%.2000s", err, u.out)
		}
		f := env.Cases[0].Findings
		if len(f) > 14 {
			t.Errorf("%d findings for one call, want at most 14", len(f))
		}
		var all strings.Builder
		for _, x := range f {
			all.WriteString(x.Message + "\n")
		}
		for _, want := range []string{"elicitation requests during one call, over the 100 mcptest records", "more server requests that no scripted answer matched"} {
			if !strings.Contains(all.String(), want) {
				t.Errorf("no finding says %q:\n%s", want, all.String())
			}
		}
		if len(u.out) > 1<<20 {
			t.Errorf("the envelope is %d bytes", len(u.out))
		}
	})
}
