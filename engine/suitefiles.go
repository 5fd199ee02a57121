package engine

import (
	"sort"
	"strconv"

	"github.com/mcptest/mcptest/internal/diag"
)

// FileRef is a file a suite names: the value of a cassette: or catalog:
// key, which ParseSuite and the runner resolve against the suite's
// directory.
type FileRef struct {
	// Key is the key that names the file: "cassette" or "catalog".
	Key string
	// Path is the value as written: a file, a directory or a glob.
	Path string
	// Pointer is the value's RFC 6901 pointer; Pos its position (1-based
	// line and column).
	Pointer string
	Pos     diag.Pos
}

// fileKeys names, per section, the key whose string value is a file the
// loader resolves (agentTest, scenario and toolQuality in build.go and
// quality.go); a new key that names a file belongs here too.
var fileKeys = map[string]string{"agents": "cassette", "tests": "cassette", "scenarios": "cassette", "tool_quality": "catalog"}

// blockFileKeys names, per section, the gate blocks whose key names a file
// (the catalog: of an arguments: block, gate_arguments.go).
var blockFileKeys = map[string][][2]string{"agents": {{"arguments", "catalog"}}, "tests": {{"arguments", "catalog"}}}

// listFileKeys names, per section, the lists whose items have a key that
// names a file (the cassette: of each entry of sources:, sources.go).
var listFileKeys = map[string][][2]string{"agents": {{"sources", "cassette"}}, "tests": {{"sources", "cassette"}}}

// SuiteFiles returns every file a suite's text names (the cassette: of an
// agent test or scenario, the catalog: of a tool_quality check), in the
// order of the text, without touching the filesystem: the front door
// checks them before ParseSuite stats them. A text that is not YAML names
// no file (ParseSuite reports it and stops before it resolves a path).
func SuiteFiles(path string, data []byte) []FileRef {
	d := parseYAML(path, data)
	if len(d.Errs) > 0 {
		return nil
	}
	root, _ := d.Root.(map[string]any)
	var out []FileRef
	for _, section := range sortedKeys(root) {
		key, ok := fileKeys[section]
		if !ok {
			continue
		}
		for i, item := range list(root[section]) {
			m, _ := item.(map[string]any)
			at := "/" + section + "/" + strconv.Itoa(i) + "/"
			if p, ok := m[key].(string); ok {
				out = append(out, FileRef{Key: key, Path: p, Pointer: at + key, Pos: d.At(at + key)})
			}
			for _, lk := range listFileKeys[section] {
				for j, li := range list(m[lk[0]]) {
					lm, _ := li.(map[string]any)
					if p, ok := lm[lk[1]].(string); ok {
						ptr := at + lk[0] + "/" + strconv.Itoa(j) + "/" + lk[1]
						out = append(out, FileRef{Key: lk[1], Path: p, Pointer: ptr, Pos: d.At(ptr)})
					}
				}
			}
			for _, bk := range blockFileKeys[section] {
				bm, _ := m[bk[0]].(map[string]any)
				if p, ok := bm[bk[1]].(string); ok {
					ptr := at + bk[0] + "/" + bk[1]
					out = append(out, FileRef{Key: bk[1], Path: p, Pointer: ptr, Pos: d.At(ptr)})
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	return out
}
