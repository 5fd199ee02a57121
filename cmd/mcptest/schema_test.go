package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/engine/schema"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// TestSchemaCommand: the built binary prints each published schema byte
// for byte as the file in engine/schema, suite by default, and refuses an
// unknown name with the nearest.
func TestSchemaCommand(t *testing.T) {
	dir := t.TempDir()
	for name, file := range map[string]string{"": "suite.v1.json", "suite": "suite.v1.json", "cassette": "cassette.v1.json", "envelope": "envelope.v1.json"} {
		args := []string{"schema"}
		if name != "" {
			args = append(args, name)
		}
		out, stderr, code := runBinIn(t, dir, nil, args...)
		want, err := os.ReadFile(filepath.Join("../../engine/schema", file))
		if err != nil {
			t.Fatal(err)
		}
		if code != ExitOK || out != string(want) {
			t.Errorf("mcptest %s: exit %d, %d bytes, want the %d of %s: %s", strings.Join(args, " "), code, len(out), len(want), file, stderr)
		}
	}
	_, stderr, code := runBinIn(t, dir, nil, "schema", "envelopes")
	if code != ExitInput || !strings.Contains(stderr, `schema "envelopes": expected one of suite, cassette, envelope (did you mean "envelope"?)`) {
		t.Errorf("schema envelopes: exit %d, %s", code, stderr)
	}
}

// envelopeSchema compiles what `mcptest schema envelope` prints.
func envelopeSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	out, stderr, code := runBinIn(t, t.TempDir(), nil, "schema", "envelope")
	if code != ExitOK {
		t.Fatalf("schema envelope: exit %d: %s", code, stderr)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource("envelope.json", strings.NewReader(out)); err != nil {
		t.Fatal(err)
	}
	return c.MustCompile("envelope.json")
}

// TestEnvelopeSchema: every envelope of the repository (each example's
// golden run, the baseline example, the reporters' sample, a hostile one)
// and one the built binary writes now, with a source read from git, are
// valid against `mcptest schema envelope`; an envelope with a key the
// schema does not know, or a verdict outside its set, is not.
func TestEnvelopeSchema(t *testing.T) {
	sch := envelopeSchema(t)
	files, _ := filepath.Glob("testdata/golden/examples/*.json")
	files = append(files, "../../examples/baseline/baseline.json", "../../annotate/testdata/sample.json", "testdata/reports/hostile.json")
	fresh := filepath.Join(t.TempDir(), "run.json")
	suite, _ := filepath.Abs("../../examples/quickstart/suite.yml")
	if _, stderr, code := runBinIn(t, "../..", nil, "run", suite, "--format", "json", "--output", fresh); code != ExitOK {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	files = append(files, fresh)
	if len(files) < 15 {
		t.Fatalf("found %d envelopes", len(files))
	}
	for _, f := range files {
		if err := sch.Validate(decode(t, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	for what, mutate := range map[string]func(map[string]any){
		"an unknown key":     func(m map[string]any) { m["verdicts"] = "pass" },
		"an unknown verdict": func(m map[string]any) { m["verdict"] = "maybe" },
		"a case without its name": func(m map[string]any) {
			delete(m["cases"].([]any)[0].(map[string]any), "name")
		},
	} {
		m := decode(t, fresh).(map[string]any)
		mutate(m)
		if err := sch.Validate(m); err == nil {
			t.Errorf("an envelope with %s is valid", what)
		}
	}
}

// decode reads a JSON file as the schema validator takes it.
func decode(t *testing.T, file string) any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return v
}

// TestGeneratedModeline: every generated suite (of a server the binary
// serves from a catalog, or proposed from a recording) starts with the
// yaml-language-server modeline naming the suite schema in the repository
// at the binary's release tag (main for a development build), a path that
// is the schema's file in this tree; the suite it heads is valid.
func TestGeneratedModeline(t *testing.T) {
	t.Parallel() // builds or runs the binary at scale: beside the other such tests
	release := releaseBin(t, "1.4.2")
	const raw = "https://raw.githubusercontent.com/mcptest/mcptest/"
	catalog, _ := filepath.Abs("testdata/live/catalog.yml")
	cassette, _ := filepath.Abs("../../examples/quickstart/cassettes/research.json")
	dir := t.TempDir()
	for _, tc := range []struct {
		bin, ref string
		args     []string
	}{
		{mcptestBin(t), "main", []string{"generate", "suite", "--", mcptestBin(t), "mock", "--tools-from", catalog}},
		{mcptestBin(t), "main", []string{"generate", "conformance", "--", mcptestBin(t), "mock", "--tools-from", catalog}},
		{mcptestBin(t), "main", []string{"generate", "agent-suite", "--from", cassette}},
		{release, "v1.4.2", []string{"generate", "suite", "--", release, "mock", "--tools-from", catalog}},
		{release, "v1.4.2", []string{"generate", "agent-suite", "--from", cassette}},
	} {
		cmd := exec.Command(tc.bin, tc.args...)
		cmd.Dir, cmd.Env = dir, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v", tc.ref, tc.args, err)
		}
		first, _, _ := strings.Cut(string(out), "\n")
		want := "# yaml-language-server: $schema=" + raw + tc.ref + "/engine/schema/suite.v1.json"
		if first != want {
			t.Errorf("%s %v: the first line is %q, want %q", tc.ref, tc.args, first, want)
		}
		if _, err := os.Stat("../../" + strings.TrimPrefix(first, "# yaml-language-server: $schema="+raw+tc.ref+"/")); err != nil {
			t.Errorf("the modeline names no file of the repository: %v", err)
		}
		file := filepath.Join(dir, "suite.yml")
		if err := os.WriteFile(file, out, 0o644); err != nil {
			t.Fatal(err)
		}
		if tc.args[1] != "agent-suite" { // its cassette paths are relative to the suite
			if _, stderr, code := runBinIn(t, dir, nil, "validate", file); code != ExitOK {
				t.Errorf("%v: the generated suite is not valid: %s", tc.args, stderr)
			}
		}
	}
}

// TestOneSchemaAddress: each schema has one address. Every modeline of the
// repository's files (examples, docs, test suites), the $id that the
// built binary's `mcptest schema NAME` prints, and the modeline of a suite
// it generates (a development build: main) name the file in the
// repository on main, raw; no other address of a schema appears anywhere.
func TestOneSchemaAddress(t *testing.T) {
	want := map[string]string{"suite": schema.SuiteURL, "cassette": schema.CassetteURL, "envelope": schema.EnvelopeURL}
	for name, url := range want {
		if url != "https://raw.githubusercontent.com/mcptest/mcptest/main/engine/schema/"+schema.Files[name].File {
			t.Errorf("the %s schema's address is %s", name, url)
		}
		out, stderr, code := runBinIn(t, ".", nil, "schema", name)
		var doc struct {
			ID string `json:"$id"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitOK || doc.ID != url {
			t.Errorf("mcptest schema %s: exit %d, $id %q (%v), want %s\n%s", name, code, doc.ID, err, url, stderr)
		}
	}
	cassette, _ := filepath.Abs("../../examples/quickstart/cassettes/research.json")
	out, _, _ := runBinIn(t, t.TempDir(), nil, "generate", "agent-suite", "--from", cassette)
	if first, _, _ := strings.Cut(out, "\n"); first != "# yaml-language-server: $schema="+schema.SuiteURL {
		t.Errorf("a generated suite's modeline is %q", first)
	}
	modeline := regexp.MustCompile(`\$schema=(\S+?)["'\x60]?(\s|$)`)
	other := regexp.MustCompile(`https?://[^\s"'\x60)]*/schema/[^\s"'\x60)]*\.json`)
	seen := 0
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == ".gl") {
			return filepath.SkipDir
		}
		if d.IsDir() || !slices.Contains([]string{".yml", ".yaml", ".md", ".json"}, filepath.Ext(path)) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range modeline.FindAllSubmatch(data, -1) {
			seen++
			if string(m[1]) != schema.SuiteURL && !strings.Contains(string(m[1]), "...") {
				t.Errorf("%s: modeline names %s, want %s", path, m[1], schema.SuiteURL)
			}
		}
		for _, m := range other.FindAll(data, -1) {
			u := strings.SplitN(string(m), "#", 2)[0]
			if u != schema.SuiteURL && u != schema.CassetteURL && u != schema.EnvelopeURL {
				t.Errorf("%s: a schema address %s that is none of the published ones", path, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 20 {
		t.Errorf("only %d modelines found: the walk missed the examples", seen)
	}
}
