package gate

import (
	"crypto/sha256"
	"fmt"
	"math"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate/tokens"
)

// TokenEfficiency prices a tool catalog per correct selection: the
// Selection F1 of the declared classes, folded with the tool-surface tokens
// of the catalog the model saw and the dollars the runs spent.
//
// The catalog is the one recorded in the cassettes: the union of every
// server's tools, keyed by server and tool name, first recording wins. Each
// tool costs the cl100k_base tokens of its name, description and
// inputSchema JSON (package tokens).
type TokenEfficiency struct {
	sel *Selection
	// surface is the tokens of each distinct server.tool, in first-seen
	// order; seen holds the toolKey of each.
	seen     map[toolKey]struct{}
	keyText  []byte
	surface  int64
	tools    int64
	runs     int64
	cost     int64
	costRuns int64
}

// NewTokenEfficiency returns an empty accumulator for the declared classes.
func NewTokenEfficiency(classes []Class) *TokenEfficiency {
	return &TokenEfficiency{sel: NewSelection(classes), seen: map[toolKey]struct{}{}}
}

// toolKey is the first 16 bytes of the SHA-256 of a tool's server, a
// zero byte and its name: a fixed 16 bytes however long the names, where
// the names themselves cost a string and its map entry, 21 MB over a
// catalog of 300,000 tools, and took token_efficiency: past SECURITY.md's
// bound. Two keys alike for different tools would need a collision in
// 128 bits of SHA-256.
type toolKey [16]byte

// key is the toolKey of server and name.
func (t *TokenEfficiency) key(server, name string) toolKey {
	t.keyText = append(append(append(t.keyText[:0], server...), 0), name...)
	sum := sha256.Sum256(t.keyText)
	return toolKey(sum[:16])
}

// AddCatalog adds the tools of a recorded catalog not seen before.
func (t *TokenEfficiency) AddCatalog(cat []cassette.ServerCatalog) {
	for _, sc := range cat {
		for _, tool := range sc.Tools {
			key := t.key(sc.Server, tool.Name)
			if _, ok := t.seen[key]; ok {
				continue
			}
			t.seen[key] = struct{}{}
			t.tools++
			t.surface += int64(tokens.ToolOfText(tool.Name, tool.Description, string(tool.Member("inputSchema"))))
		}
	}
}

// Add scores one run's selection and adds its cost; it returns the run's
// own selection: Fold(run, Score(run)).
func (t *TokenEfficiency) Add(run *cassette.Run) RunSelection {
	r := t.Score(run)
	t.Fold(run, r)
	return r
}

// Score scores one run's selection without pooling it (Selection.Score):
// on any goroutine, folded in order by Fold.
func (t *TokenEfficiency) Score(run *cassette.Run) RunSelection { return t.sel.Score(run) }

// Fold pools one run's selection, as Score scored it, and adds its cost.
func (t *TokenEfficiency) Fold(run *cassette.Run, r RunSelection) {
	t.sel.Fold(r)
	t.runs++
	if run.CostMicros != nil {
		t.costRuns++
		// The sum stops at the largest int64 instead of wrapping to a
		// negative cost that would pass any budget.
		if c := *run.CostMicros; c > 0 && t.cost > math.MaxInt64-c {
			t.cost = math.MaxInt64
		} else {
			t.cost += c
		}
	}
}

// Grade is the letter keyed on a selection F1: A at 90, B at 80, C at 70, D
// at 60, F below.
func Grade(f1 int64) string {
	switch {
	case f1 >= 90:
		return "A"
	case f1 >= 80:
		return "B"
	case f1 >= 70:
		return "C"
	case f1 >= 60:
		return "D"
	}
	return "F"
}

// round rounds to a fixed number of decimals, so the figures are the same
// on every platform.
func round(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}

// Result reports the token_efficiency.* targets, the grade among them as a
// label (a word, not a number). tokens_per_correct is the
// surface the runs paid (tool_surface_tokens once per run) over the correct
// selections pooled across runs, so it does not move with the number of
// runs. An undefined figure is absent: the surface figures when the
// cassettes record no catalog, the per-correct figures when nothing was
// selected correctly, cost when no run recorded one, and cost_per_correct on
// a free run.
func (t *TokenEfficiency) Result() Result {
	s := t.sel.Result()
	tp := s.Counts["tool_selection.tp"]
	f1 := int64(s.Targets["tool_selection.f1"])
	res := Result{
		Targets: map[string]float64{
			"token_efficiency.f1":                 float64(f1),
			"token_efficiency.correct_selections": float64(tp),
		},
		Labels: map[string]string{"token_efficiency.grade": Grade(f1)},
		Counts: map[string]int64{
			"token_efficiency.tp":          tp,
			"token_efficiency.fp":          s.Counts["tool_selection.fp"],
			"token_efficiency.fn":          s.Counts["tool_selection.fn"],
			"token_efficiency.runs":        t.runs,
			"token_efficiency.tools":       t.tools,
			"token_efficiency.cost_runs":   t.costRuns,
			"token_efficiency.cost_micros": t.cost,
		},
	}
	for _, f := range s.Findings {
		f.Gate = "token_efficiency"
		res.Findings = append(res.Findings, f)
	}
	if t.tools > 0 {
		res.Counts["token_efficiency.tool_surface_tokens"] = t.surface
		res.Targets["token_efficiency.tool_surface_tokens"] = float64(t.surface)
		if tp > 0 {
			res.Targets["token_efficiency.tokens_per_correct"] = round(float64(t.surface*t.runs)/float64(tp), 2)
		}
	} else {
		res.Findings = append(res.Findings, Finding{Level: "warning", Gate: "token_efficiency",
			Message: "the cassettes record no tool catalog, so the tool-surface figures are absent: record the tools/list result under `catalog`"})
	}
	if t.costRuns > 0 {
		res.Targets["token_efficiency.cost"] = round(float64(t.cost)/1e6, 6)
		if tp > 0 && t.cost > 0 {
			res.Targets["token_efficiency.cost_per_correct"] = round(float64(t.cost)/1e6/float64(tp), 6)
		}
	}
	msg := fmt.Sprintf("grade %s: selection F1 %d", Grade(f1), f1)
	if v, ok := res.Targets["token_efficiency.tokens_per_correct"]; ok {
		msg += fmt.Sprintf(", %d tool-surface tokens over %d tools, %g tokens per correct selection", t.surface, t.tools, v)
	}
	res.Findings = append(res.Findings, Finding{Level: "notice", Gate: "token_efficiency", Message: msg})
	return res
}
