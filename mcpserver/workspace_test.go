package mcpserver

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/report"
)

// TestStoreIsBounded: saving a run keeps the newest envelopes and cache
// entries and drops the rest, with stale temporary files.
func TestStoreIsBounded(t *testing.T) {
	store := t.TempDir()
	runs, cache := filepath.Join(store, "runs"), filepath.Join(store, "cache")
	os.MkdirAll(runs, 0o755)
	os.MkdirAll(cache, 0o755)
	old := time.Now().Add(-48 * time.Hour)
	for i, id := range []string{"01A00000000000000000000001", "01A00000000000000000000002", "01A00000000000000000000003"} {
		os.WriteFile(filepath.Join(runs, id+".json"), []byte("{}"), 0o644)
		f := filepath.Join(cache, strings.Repeat(string(rune('a'+i)), 64)+".json")
		os.WriteFile(f, []byte("{}"), 0o644)
		os.Chtimes(f, old.Add(time.Duration(i)*time.Hour), old.Add(time.Duration(i)*time.Hour))
	}
	// Two entries the run just cached, and a run file that is not whole.
	for _, n := range []string{"d", "e"} {
		os.WriteFile(filepath.Join(cache, strings.Repeat(n, 64)+".json"), []byte("{}"), 0o644)
	}
	os.WriteFile(filepath.Join(runs, "01A00000000000000000000004.json"), []byte(`{"run":`), 0o644)
	tmp := filepath.Join(cache, "x.123.tmp")
	os.WriteFile(tmp, nil, 0o644)
	os.Chtimes(tmp, old, old)

	st := Store{Getenv: func(k string) string { return map[string]string{StoreEnv: store}[k] }, KeepRuns: 3, KeepCache: 2}
	env := &report.Envelope{SchemaVersion: report.SchemaVersion, Run: report.RunInfo{ID: "01B00000000000000000000000"}}
	if err := st.SaveRun(env.Run.ID, func(w io.Writer) error { return json.NewEncoder(w).Encode(env) }); err != nil {
		t.Fatal(err)
	}
	names := func(dir string) []string {
		var out []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	wantRuns := []string{"01A00000000000000000000002.json", "01A00000000000000000000003.json", "01B00000000000000000000000.json"}
	if got := names(runs); strings.Join(got, " ") != strings.Join(wantRuns, " ") {
		t.Errorf("runs kept: %v, want %v", got, wantRuns)
	}
	got := names(cache)
	if len(got) != 2 || !strings.HasPrefix(got[0], "ddd") || !strings.HasPrefix(got[1], "eee") {
		t.Errorf("cache kept %v, want the 2 new entries", got)
	}
}

// TestStoreRefusesLinks: a .mcptest (or .mcptest/cache) that is a
// symbolic link is refused, naming MCPTEST_DIR as the way to move it.
func TestStoreRefusesLinks(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Symlink(t.TempDir(), ".mcptest"); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	_, err := Store{Getenv: func(string) string { return "" }}.Dir("cache")
	if err == nil || !strings.Contains(err.Error(), ".mcptest is a symbolic link") || !strings.Contains(err.Error(), StoreEnv) {
		t.Errorf("err %v", err)
	}
}

// TestWholeEnvelopeLarge: a stored envelope over wholeCheckBytes is judged
// by its ends: whole when it closes the top-level object on a line of its
// own, not when it was cut after an inner object or mid-line.
func TestWholeEnvelopeLarge(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("{\n  \"cases\": [\n")
	for i := 0; b.Len() <= wholeCheckBytes; i++ {
		fmt.Fprintf(&b, "    {\n      \"name\": \"case %d\"\n    },\n", i)
	}
	b.WriteString("    {}\n  ]\n}\n")
	whole := b.String()
	for name, tc := range map[string]struct {
		body string
		want bool
	}{
		"whole":       {whole, true},
		"after-case":  {whole[:strings.LastIndex(whole, "\n    },\n")+8], false},
		"mid-line":    {whole[:len(whole)/2], false},
		"no-newline":  {strings.TrimSuffix(whole, "\n"), false},
		"not-object":  {"[" + whole[1:], false},
		"small-whole": {"{}", true},
		"small-cut":   {"{\"a\": [", false},
	} {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := wholeEnvelope(p); got != tc.want {
			t.Errorf("%s (%d bytes): wholeEnvelope = %v, want %v", name, len(tc.body), got, tc.want)
		}
	}
}

// TestWholeEnvelopeDrawn draws envelopes (nested objects and lists, with
// strings holding braces, quotes and line breaks), written as mcptest
// writes a stored run (indented, a line break at the end) and compact,
// under and over wholeCheckBytes, and cuts each at drawn places: an
// indented file is judged whole exactly when it is one JSON document,
// whole or cut, whatever its size; a compact one the same up to
// wholeCheckBytes, and never over it.
func TestWholeEnvelopeDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 11))
	dir := t.TempDir()
	var value func(depth int) any
	value = func(depth int) any {
		switch k := rng.IntN(8); {
		case depth > 3 || k < 3:
			return []any{"}", "\n}\n", "a\"b", "{", "x", 1.5, true, nil}[rng.IntN(8)]
		case k < 5:
			l := make([]any, rng.IntN(4))
			for i := range l {
				l[i] = value(depth + 1)
			}
			return l
		}
		m := map[string]any{}
		for i := range rng.IntN(4) {
			m[fmt.Sprintf("k%d", i)] = value(depth + 1)
		}
		return m
	}
	judged, large := 0, 0
	for i := range 150 {
		env := map[string]any{"schema_version": 1}
		cases := make([]any, 1+rng.IntN(4))
		if i%5 == 0 {
			cases = make([]any, 4000+rng.IntN(2000)) // over wholeCheckBytes
		}
		for j := range cases {
			cases[j] = value(1)
		}
		env["cases"] = cases
		indented, _ := json.MarshalIndent(env, "", "  ")
		compact, _ := json.Marshal(env)
		for _, f := range []struct {
			form string
			data []byte
		}{{"indented", append(indented, '\n')}, {"compact", append(compact, '\n')}} {
			form, data := f.form, f.data
			for c := range 12 {
				cut := data
				if c > 0 {
					cut = data[:rng.IntN(len(data))]
				}
				p := filepath.Join(dir, fmt.Sprintf("%d-%s-%d.json", i, form, c))
				if err := os.WriteFile(p, cut, 0o644); err != nil {
					t.Fatal(err)
				}
				want := json.Valid(cut) && (form == "indented" || len(cut) <= wholeCheckBytes)
				if got := wholeEnvelope(p); got != want {
					t.Fatalf("%s envelope %d (%d of %d bytes): wholeEnvelope = %v, want %v", form, i, len(cut), len(data), got, want)
				}
				judged++
				if len(cut) > wholeCheckBytes {
					large++
				}
			}
		}
	}
	if judged != 150*2*12 || large < 200 {
		t.Fatalf("%d files judged, %d of them over wholeCheckBytes", judged, large)
	}
}
