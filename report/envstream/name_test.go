package envstream

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/report"
)

// nameMembers counts the top-level members of the JSON object raw whose
// key is "name" without regard to case (as encoding/json matches it); -1
// when raw is not an object.
func nameMembers(raw []byte) int {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return -1
	}
	n := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return -1
		}
		if k, ok := tok.(string); ok && strings.EqualFold(k, "name") {
			n++
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return -1
		}
	}
	return n
}

// checkPlainName holds plainName to encoding/json: a name it reads from a
// case that decodes, naming its name once, is the name decoded.
func checkPlainName(t *testing.T, raw []byte) {
	t.Helper()
	name, ok := plainName(raw)
	if !ok {
		return
	}
	var c struct {
		Name *string `json:"name"`
	}
	if err := json.Unmarshal(raw, &c); err != nil || nameMembers(raw) != 1 {
		return
	}
	if c.Name == nil || *c.Name != name {
		t.Fatalf("plainName(%q) = %q, encoding/json decodes %v", raw, name, c.Name)
	}
}

// TestPlainNameIsUnmarshal draws cases' JSON (compact and indented, names
// of every kind of character: escapes, control characters, invalid
// UTF-8, the name given twice, other members first) and holds the fast
// name reader to encoding/json's decode.
func TestPlainNameIsUnmarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 4))
	alphabet := []string{"a", "Z", " ", "é", "\\\"", "\\n", "\\u00e9", "\x01", "\n", "\xff", "\"", "\\", "\u2028", "日"}
	hits := 0
	for range 20000 {
		var name strings.Builder
		for range r.IntN(6) {
			name.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		sep := []string{":", ": ", " : ", ":\n"}[r.IntN(4)]
		key := []string{`"name"`, `"Name"`, `"NAME"`, `"nam\u0065"`}[r.IntN(4)]
		if r.IntN(3) > 0 {
			key = `"name"`
		}
		body := key + sep + `"` + name.String() + `"`
		switch r.IntN(5) {
		case 0:
			body = `"kind":"agent",` + body
		case 1:
			body += `,"name":"other"`
		case 2:
			body += `,"NAME":"other"`
		}
		raw := []byte([]string{"{", "{ ", "{\n  "}[r.IntN(3)] + body + `,"verdict":"pass"}`)
		if _, ok := plainName(raw); ok {
			hits++
		}
		checkPlainName(t, raw)
	}
	if hits < 3000 {
		t.Fatalf("the fast reader read %d names of 20,000: the drawing misses it", hits)
	}
}

func FuzzPlainName(f *testing.F) {
	f.Add([]byte(`{"name":"a","kind":"agent"}`))
	f.Add([]byte(`{"name": "a\u00e9"}`))
	f.Add([]byte(`{ "name" : "x", "NAME": "y"}`))
	f.Fuzz(checkPlainName)
}

// TestCompareRenamedBaselineCase: a baseline case that names its name
// twice (the last one counts, as encoding/json decodes it) is compared
// under the name it decodes to, byte for byte as baseline.Compare does,
// whether the current run holds it, holds its first name, or both.
func TestCompareRenamedBaselineCase(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 40))
	base := genEnvelope(r, 12, "c")
	cur := genEnvelope(r, 12, "c")
	for i := range cur.Cases {
		cur.Cases[i] = base.Cases[i]
	}
	dir := t.TempDir()
	bp, cp := filepath.Join(dir, "base.json"), filepath.Join(dir, "cur.json")
	writeEnv(t, cp, cur)
	writeEnv(t, bp, base)
	data, err := os.ReadFile(bp)
	if err != nil {
		t.Fatal(err)
	}
	for _, edit := range []struct{ from, to string }{
		// c case 3 decodes to c case 5 (so the baseline holds it twice);
		// c case 4 to a name the current run does not hold.
		{`{"name":"c case 3",`, `{"name":"c case 3","name":"c case 5",`},
		{`{"name":"c case 4",`, `{"name":"c case 4","NAME":"gone",`},
	} {
		if !bytes.Contains(data, []byte(edit.from)) {
			t.Fatalf("no %s in the baseline", edit.from)
		}
		data = bytes.Replace(data, []byte(edit.from), []byte(edit.to), 1)
	}
	if err := os.WriteFile(bp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	readCur, err := baseline.ReadFile(cp, "", report.Read)
	if err != nil {
		t.Fatal(err)
	}
	want, err := baseline.CompareFile(bp, "--compare", readCur, "regressions")
	if err != nil {
		t.Fatal(err)
	}
	var w, g bytes.Buffer
	if err := annotate.RenderComparison(&w, "json", want, annotate.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.String(), `"status":"removed"`) || !strings.Contains(w.String(), "twice") {
		t.Fatalf("the drawn comparison has no removed case or no warning:\n%s", clip(w.String()))
	}
	got, _, err := compareJSONBytes(bp, cp, "regressions")
	if err != nil {
		t.Fatal(err)
	}
	g.Write(got)
	if !bytes.Equal(g.Bytes(), w.Bytes()) {
		t.Fatalf("json differs:\n%s\nwant:\n%s", clip(g.String()), clip(w.String()))
	}
}

// TestCaseNameIsUnmarshal draws cases' JSON whose name may be given
// again after the first member, under every spelling encoding/json
// matches (another case, escapes in the key) and many it does not (a
// longer key, a name in a nested object, a key with an escaped quote,
// "name": within a string), and holds the index's name reader, caseName,
// to encoding/json's decode of each: the name the case decodes to, the
// last one given.
func TestCaseNameIsUnmarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 44))
	keys := []string{`"name"`, `"NAME"`, `"nAmE"`, `"n\u0061me"`, `"\u006eame"`, `"\u004e\u0041\u004d\u0045"`, `"names"`, `"xname"`, `"na\"me"`, `"nam"`, `"ame"`}
	values := []string{`"x"`, `"y z"`, `"q\"uote"`, `"a\\b"`, `"name\":"`, `{"name":"inner"}`, `[{"NAME":"in"}]`, `1`, `null`}
	slow, renamed := 0, 0
	for range 20000 {
		var b strings.Builder
		b.WriteString([]string{`{"name":"first"`, `{ "name" : "first"`, "{\n  \"name\": \"first\""}[r.IntN(3)])
		for range r.IntN(5) {
			b.WriteString(",")
			b.WriteString([]string{"", " ", "\n    "}[r.IntN(3)])
			b.WriteString(keys[r.IntN(len(keys))])
			b.WriteString([]string{":", ": ", " :\t"}[r.IntN(3)])
			b.WriteString(values[r.IntN(len(values))])
		}
		b.WriteString("}")
		raw := []byte(b.String())
		var c struct {
			Name *string `json:"name"`
		}
		uerr := json.Unmarshal(raw, &c)
		name, err := caseName(raw)
		if uerr != nil {
			continue
		}
		want := ""
		if c.Name != nil {
			want = *c.Name
		}
		if err != nil || name != want {
			t.Fatalf("caseName(%s) = %q, %v; encoding/json decodes %q", raw, name, err, want)
		}
		if _, end, ok := plainNameAt(raw); ok && nameKeyAfter(raw, end) {
			slow++
		}
		if want != "first" {
			renamed++
		}
	}
	if slow < 2000 || renamed < 2000 {
		t.Fatalf("%d names decoded, %d renamed of 20,000: the drawing misses them", slow, renamed)
	}
}
