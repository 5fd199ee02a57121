package mcpserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/report"
)

// TestLatencyBudgetGenerated holds LatencyBudget, over drawn durations
// (any nanosecond count up to a minute, and each side of the 50 ms
// steps), to its rule: a multiple of 50 ms, at least 100 ms, at least
// twice the slowest call, and the least such.
func TestLatencyBudgetGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 33))
	var ds []time.Duration
	for ms := range 200 {
		d := time.Duration(ms) * time.Millisecond / 2 * 5
		ds = append(ds, d-1, d, d+1)
	}
	for range 5000 {
		ds = append(ds, time.Duration(rng.Int64N(int64(time.Minute))))
	}
	for _, d := range ds {
		if d < 0 {
			continue
		}
		b := LatencyBudget(d)
		budget := time.Duration(b) * time.Millisecond
		if b%50 != 0 || b < 100 || budget < 2*d {
			t.Fatalf("LatencyBudget(%v) = %d: not a multiple of 50 ms of at least 100 ms and twice %v", d, b, d)
		}
		if b > 100 && budget-50*time.Millisecond >= 2*d {
			t.Fatalf("LatencyBudget(%v) = %d: %d is enough", d, b, b-50)
		}
	}
}

// TestSlugGenerated holds slug, over drawn names (letters of either case,
// digits, the letters beside a-z and 0-9 in ASCII, punctuation, spaces
// and letters of other scripts), to its rule: the name in lower case,
// each run of characters other than a-z and 0-9 made one "-", none at
// either end.
func TestSlugGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 34))
	alphabet := []rune("aAzZ09m5 -_/.:`{@[\x00éÉßЖ日🙂")
	other := regexp.MustCompile(`[^a-z0-9]+`)
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		name := b.String()
		want := strings.Trim(other.ReplaceAllString(strings.ToLower(name), "-"), "-")
		if got := slug(name); got != want {
			t.Fatalf("slug(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestCaseSlugsGenerated holds caseSlugs, over drawn runs of cases whose
// names often slug alike (and sometimes to nothing), to its rule: each
// case's slug is the first of its base (its name's slug, "test" for
// none), base-2, base-3, ... that no case before it took.
func TestCaseSlugsGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 35))
	names := []string{"a", "A", "a!", "a 2", "a-2", "a-3", "test", "Test 2", "!!!", "", "日本", "b c", "b-c-2"}
	for range 2000 {
		var cases []*report.CaseResult
		for range rng.IntN(10) {
			cases = append(cases, &report.CaseResult{Name: names[rng.IntN(len(names))]})
		}
		got := caseSlugs(cases)
		if len(got) != len(cases) {
			t.Fatalf("caseSlugs of %q: %d slugs", caseNames(cases), len(got))
		}
		for i, c := range cases {
			if msg := slugBreaks(got, i, c.Name); msg != "" {
				t.Fatalf("caseSlugs of %q: case %d (%q) is %q: %s", caseNames(cases), i, c.Name, got[i], msg)
			}
		}
	}
}

// slugBreaks says how slugs[i], the slug of a case named name, breaks
// caseSlugs' rule, "" when it keeps it: it is the name's base (its slug,
// "test" for none) or base-N for an N of 2 or more, no case before took
// it, and every form before it in that order (base, base-2, ...) was
// taken by a case before.
func slugBreaks(slugs []string, i int, name string) string {
	base := slug(name)
	if base == "" {
		base = "test"
	}
	n := 1
	if got := slugs[i]; got != base {
		rest, ok := strings.CutPrefix(got, base+"-")
		k, err := strconv.Atoi(rest)
		if !ok || err != nil || k < 2 || strconv.Itoa(k) != rest {
			return fmt.Sprintf("neither %q nor %q-N for an N of 2 or more", base, base)
		}
		n = k
	}
	earlier := slices.Clone(slugs[:i])
	if slices.Contains(earlier, slugs[i]) {
		return "an earlier case has it"
	}
	for k := 1; k < n; k++ {
		form := base
		if k > 1 {
			form = fmt.Sprintf("%s-%d", base, k)
		}
		if !slices.Contains(earlier, form) {
			return fmt.Sprintf("%q was free", form)
		}
	}
	return ""
}

func caseNames(cases []*report.CaseResult) []string {
	var out []string
	for _, c := range cases {
		out = append(out, c.Name)
	}
	return out
}

// TestShortRules: an exact assertion is proposed for a number, a boolean
// or a string of at most 120 bytes on one line, never for null, an object
// or a list.
func TestShortRules(t *testing.T) {
	for _, c := range []struct {
		v    any
		want bool
	}{
		{strings.Repeat("x", 120), true}, {strings.Repeat("x", 121), false}, {"", true}, {"a\nb", false},
		{strings.Repeat("é", 60), true}, {strings.Repeat("é", 60) + "x", false},
		{0.0, true}, {-1.5, true}, {true, true}, {false, true},
		{nil, false}, {map[string]any{}, false}, {[]any{1.0}, false},
	} {
		if got := short(c.v); got != c.want {
			t.Errorf("short(%.20v) = %v, want %v", c.v, got, c.want)
		}
	}
}

// TestYAMLUnprintableRules: q escapes DEL, the C1 controls (NEL among
// them) and U+FFFE, U+FFFF, and nothing beside them.
func TestYAMLUnprintableRules(t *testing.T) {
	for r := rune(0); r <= 0x10ffff; r++ {
		want := r >= 0x7f && r <= 0x9f || r == 0xfffe || r == 0xffff
		if got := yamlUnprintable(r); got != want {
			t.Fatalf("yamlUnprintable(%U) = %v, want %v", r, got, want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"a\x7e\x7fb", `"a~\u007fb"`}, {"\u0085", `"\u0085"`}, {"\u009f\u00a0", `"\u009f` + "\u00a0\""},
		{"\ufffd\ufffe\uffff", "\"\ufffd\\ufffe\\uffff\""}, {"<&>", `"<&>"`},
	} {
		if got := q(c.in); got != c.want {
			t.Errorf("q(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// drawnResult draws a tools/call result as encoding/json decodes it:
// content blocks, a structuredContent of nested objects and lists whose
// keys are identifiers or not, _meta, and isError absent, true, false or
// of another type.
func drawnResult(rng *rand.Rand) map[string]any {
	var value func(depth int) any
	value = func(depth int) any {
		switch n := rng.IntN(10); {
		case depth > 0 && n < 3:
			m := map[string]any{}
			for range rng.IntN(7) {
				m[[]string{"id", "status", "a b", "_x", "9lives", "é", "count", "items", ""}[rng.IntN(9)]] = value(depth - 1)
			}
			return m
		case depth > 0 && n < 4:
			var l []any
			for range rng.IntN(3) {
				l = append(l, value(depth-1))
			}
			return l
		case n < 6:
			return []string{"ok", "", "two\nlines", strings.Repeat("x", 120), strings.Repeat("y", 121), "é \u0085"}[rng.IntN(6)]
		case n < 8:
			return float64(rng.IntN(5)) / 2
		case n < 9:
			return rng.IntN(2) == 0
		}
		return nil
	}
	r := map[string]any{}
	if rng.IntN(4) > 0 {
		r["content"] = []any{map[string]any{"type": "text", "text": value(0)}}
	}
	if rng.IntN(4) > 0 {
		r["structuredContent"] = value(4)
	}
	if rng.IntN(4) == 0 {
		r["_meta"] = map[string]any{"t": value(0)}
	}
	switch rng.IntN(5) {
	case 0:
		r["isError"] = true
	case 1:
		r["isError"] = false
	case 2:
		r["isError"] = "yes"
	}
	return r
}

// changed returns a copy of v with some leaves changed, dropped or added.
func changed(rng *rand.Rand, v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if rng.IntN(20) > 0 {
				m[k] = changed(rng, x[k])
			}
		}
		if rng.IntN(10) == 0 {
			m["added"] = 1.0
		}
		return m
	case []any:
		l := []any{}
		for _, e := range x {
			l = append(l, changed(rng, e))
		}
		return l
	}
	if rng.IntN(12) == 0 {
		return fmt.Sprint(v, "!")
	}
	return v
}

// proposedTest is the tools: entry proposal writes.
type proposedTest struct {
	Name, Server, Tool string
	Args               any
	Expect             struct {
		Assertions []struct {
			Target  string
			Matcher any
			Message string
		}
	}
	MaxDurationMS int64 `yaml:"max_duration_ms"`
}

// TestProposalGenerated holds proposal, over drawn pairs of results (the
// second the first with leaves changed, dropped or added) and single
// results, to its rules: the isError invariant the first call showed
// (exact true, exact false, or not exact true when it had none), the
// structure of content and structuredContent where present, and with two
// calls an exact assertion for at most five stable short leaves, the
// shallowest first, listed by path; every leaf of the first that the
// second lacks or holds otherwise is excluded as volatile (isError and
// _meta aside), in path order; the latency budget of the slowest call.
// The proposal reads back as a suite's tools: entry.
func TestProposalGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 36))
	volatile, capped := 0, 0
	for i := range 1500 {
		first := drawnResult(rng)
		results := []map[string]any{first}
		if rng.IntN(4) > 0 {
			results = append(results, changed(rng, first).(map[string]any))
		}
		slowest := time.Duration(rng.Int64N(int64(2 * time.Second)))
		out := &proposeOut{ExcludedVolatile: []string{}, Notes: []string{}}
		text := proposal("t.x", map[string]any{"q": 1.0}, results, slowest, out)
		var tests []proposedTest
		if err := yaml.Unmarshal([]byte(text), &tests); err != nil || len(tests) != 1 {
			t.Fatalf("draw %d: the proposal does not read back (%v):\n%s", i, err, text)
		}
		got := tests[0]
		if got.Tool != "t.x" || got.Server != "target" || got.MaxDurationMS != LatencyBudget(slowest) {
			t.Fatalf("draw %d: %+v", i, got)
		}
		want, wantVolatile, dropped := wantProposal(results)
		capped += dropped
		var gotAssertions []proposedAssertion
		for _, a := range got.Expect.Assertions {
			gotAssertions = append(gotAssertions, proposedAssertion{a.Target, jsonText(a.Matcher)})
		}
		if fmt.Sprint(gotAssertions) != fmt.Sprint(want) {
			t.Fatalf("draw %d: assertions\n%v\nwant\n%v\n%s", i, gotAssertions, want, text)
		}
		if fmt.Sprint(out.ExcludedVolatile) != fmt.Sprint(append([]string{}, wantVolatile...)) {
			t.Fatalf("draw %d: volatile %q, want %q", i, out.ExcludedVolatile, wantVolatile)
		}
		volatile += len(wantVolatile)
		notes := strings.Join(out.Notes, "\n")
		if (len(results) == 1) != strings.Contains(notes, "one observation") ||
			(len(wantVolatile) > 0) != strings.Contains(notes, fmt.Sprintf("%d leaves differed", len(wantVolatile))) ||
			(first["isError"] == true) != strings.Contains(notes, "isError: true") {
			t.Fatalf("draw %d: notes %q", i, out.Notes)
		}
	}
	t.Logf("%d volatile leaves, %d stable ones over five dropped", volatile, capped)
	if volatile < 100 || capped < 150 {
		t.Fatalf("%d volatile leaves, %d stable ones over five dropped: the draws lost their reach", volatile, capped)
	}
}

// proposedAssertion is an assertion of a proposal: its target and its
// matcher as compact JSON.
type proposedAssertion struct{ target, matcher string }

var identKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// leavesOf appends the scalar leaves of v under path to out, keys in
// order, a key that is not an identifier quoted in brackets.
func leavesOf(v any, path string, depth int, out *[]leaf) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			p := path + "." + k
			if !identKey.MatchString(k) {
				p = fmt.Sprintf("%s[%q]", path, k)
			}
			leavesOf(x[k], p, depth+1, out)
		}
	case []any:
		for i, e := range x {
			leavesOf(e, fmt.Sprintf("%s[%d]", path, i), depth+1, out)
		}
	default:
		*out = append(*out, leaf{path, depth, v})
	}
}

// wantProposal states the proposal's rules for results: the assertions
// it proposes, the leaves it excludes as volatile, and how many stable
// leaves past five it leaves out.
func wantProposal(results []map[string]any) (want []proposedAssertion, volatile []string, dropped int) {
	first := results[0]
	switch first["isError"] {
	case true:
		want = append(want, proposedAssertion{"result.isError", `{"exact":true}`})
	case nil:
		want = append(want, proposedAssertion{"result.isError", `{"not":{"exact":true}}`})
	default:
		want = append(want, proposedAssertion{"result.isError", `{"exact":false}`})
	}
	for _, k := range []string{"content", "structuredContent"} {
		if v, ok := first[k]; ok {
			want = append(want, proposedAssertion{"result." + k, jsonText(map[string]any{"schema": schemaOf(v)})})
		}
	}
	if len(results) < 2 {
		return want, nil, 0
	}
	var a, b []leaf
	leavesOf(first, "result", 0, &a)
	leavesOf(results[1], "result", 0, &b)
	other := map[string]any{}
	for _, l := range b {
		other[l.path] = l.value
	}
	var stable []leaf
	for _, l := range a {
		if l.path == "result.isError" || strings.HasPrefix(l.path, "result._meta") {
			continue
		}
		if v, ok := other[l.path]; !ok || jsonText(v) != jsonText(l.value) {
			volatile = append(volatile, l.path)
		} else if short(l.value) {
			stable = append(stable, l)
		}
	}
	for len(stable) > 5 {
		// Keep the five shallowest, the earlier of two at one depth:
		// drop the last of the deepest.
		deepest := 0
		for k, l := range stable {
			if l.depth >= stable[deepest].depth {
				deepest = k
			}
		}
		stable = append(stable[:deepest], stable[deepest+1:]...)
		dropped++
	}
	sort.Slice(stable, func(i, j int) bool { return stable[i].path < stable[j].path })
	for _, l := range stable {
		want = append(want, proposedAssertion{l.path, jsonText(map[string]any{"exact": l.value})})
	}
	return want, volatile, dropped
}

// jsonText is v as compact JSON.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("!%v", err)
	}
	return string(b)
}

// TestClassifyAnnotationRules: annotations decide a tool's policy only
// where they say read-only or destructive; annotations that say neither
// (no hints, or destructiveHint false) leave it to the name.
func TestClassifyAnnotationRules(t *testing.T) {
	no, yes := false, true
	for _, c := range []struct {
		name string
		ann  *mcp.ToolAnnotations
		want ExecPolicy
	}{
		{"get_status", &mcp.ToolAnnotations{}, ReadOnly},
		{"delete_all", &mcp.ToolAnnotations{}, Destructive},
		{"create_note", &mcp.ToolAnnotations{}, Mutating},
		{"delete_all", &mcp.ToolAnnotations{DestructiveHint: &no}, Destructive},
		{"create_note", &mcp.ToolAnnotations{DestructiveHint: &yes}, Destructive},
		{"delete_all", &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes}, ReadOnly},
	} {
		if got := Classify(&mcp.Tool{Name: c.name, Annotations: c.ann}); got != c.want {
			t.Errorf("Classify(%s, %+v) = %s, want %s", c.name, c.ann, got, c.want)
		}
	}
}

// TestSchemaOfEmptyList: an observed empty list is an array with no
// items schema, nested at any depth.
func TestSchemaOfEmptyList(t *testing.T) {
	got := jsonText(schemaOf(map[string]any{"l": []any{}}))
	if want := `{"properties":{"l":{"type":"array"}},"required":["l"],"type":"object"}`; got != want {
		t.Errorf("schemaOf({l: []}) = %s, want %s", got, want)
	}
}
