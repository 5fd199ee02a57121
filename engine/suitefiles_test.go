package engine

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestSuiteFiles(t *testing.T) {
	suite := `servers:
  s: {command: [x]}
agents:
  - name: a
    cassette: /etc/passwd
    arguments: {catalog: ../../tools.json}
  - name: joined
    sources:
      - {cassette: ../proxy.json, use: [calls]}
      - {cassette: /var/log/agent.json, use: [tokens]}
scenarios:
  - name: b
    cassette: "../../x/*.json"
tool_quality:
  - name: q
    catalog: cat.yml
tools:
  - name: t
    server: s
    tool: x
    args: {cassette: not-a-file.json, catalog: nor-this}
`
	var got []string
	for _, f := range SuiteFiles("suite.yml", []byte(suite)) {
		got = append(got, fmt.Sprintf("%s %s %s %d:%d", f.Key, f.Path, f.Pointer, f.Pos.Line, f.Pos.Col))
	}
	want := []string{
		"cassette /etc/passwd /agents/0/cassette 5:15",
		"catalog ../../tools.json /agents/0/arguments/catalog 6:26",
		"cassette ../proxy.json /agents/1/sources/0/cassette 9:20",
		"cassette /var/log/agent.json /agents/1/sources/1/cassette 10:20",
		"cassette ../../x/*.json /scenarios/0/cassette 13:15",
		"catalog cat.yml /tool_quality/0/catalog 16:14",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("SuiteFiles:\n%q\nwant\n%q", got, want)
	}
	if refs := SuiteFiles("bad.yml", []byte("a: [")); refs != nil {
		t.Errorf("not YAML: %v", refs)
	}
}

// Every key SuiteFiles lists is one the loader resolves: a missing file
// there is an error of ParseSuite.
func TestSuiteFilesAreResolved(t *testing.T) {
	for section, key := range fileKeys {
		suite := "servers:\n  s: {command: [x]}\n" + section + ":\n  - name: c\n    " + key + ": no-such-file.json\n"
		refs := SuiteFiles("suite.yml", []byte(suite))
		if len(refs) != 1 || refs[0].Pointer != "/"+section+"/0/"+key {
			t.Errorf("%s: SuiteFiles %v", section, refs)
		}
		_, err := ParseSuite(filepath.Join(t.TempDir(), "suite.yml"), []byte(suite))
		if err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("%s.%s: ParseSuite does not resolve it: %v", section, key, err)
		}
	}
	for section, keys := range listFileKeys {
		for _, lk := range keys {
			typ := ""
			if section == "tests" {
				typ = "    type: agent\n"
			}
			suite := section + ":\n  - name: c\n" + typ + "    " + lk[0] + ":\n      - {" + lk[1] + ": no-such-file.json, use: [calls]}\n"
			refs := SuiteFiles("suite.yml", []byte(suite))
			if len(refs) != 1 || refs[0].Pointer != "/"+section+"/0/"+lk[0]+"/0/"+lk[1] {
				t.Errorf("%s: SuiteFiles %v", section, refs)
			}
			_, err := ParseSuite(filepath.Join(t.TempDir(), "suite.yml"), []byte(suite))
			if err == nil || !strings.Contains(err.Error(), "not found") {
				t.Errorf("%s.%s[].%s: ParseSuite does not resolve it: %v", section, lk[0], lk[1], err)
			}
		}
	}
}
