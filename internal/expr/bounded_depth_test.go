package expr

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// recursive is a schema that applies itself to every member p and every
// item of a value: a check of it descends as deep as the value nests.
var recursive = map[string]any{
	"$defs": map[string]any{"n": map[string]any{
		"type":       []any{"object", "array"},
		"properties": map[string]any{"p": map[string]any{"$ref": "#/$defs/n"}},
		"items":      map[string]any{"$ref": "#/$defs/n"},
	}},
	"$ref": "#/$defs/n",
}

// drawNest is a value nested depth deep (objects under p, arrays with an
// number or two before the nest), whose deepest value is the string
// "leaf", which the recursive schema refuses (it wants an object or an
// array).
func drawNest(r *rand.Rand, depth int) any {
	var v any = "leaf"
	for range depth {
		if r.IntN(2) == 0 {
			v = map[string]any{"p": v, "q": 1.0}
			continue
		}
		a := []any{}
		for range r.IntN(2) {
			a = append(a, 2.0)
		}
		v = append(a, v)
	}
	return v
}

// TestBoundedDepthGenerated is a generator test over values nested on
// both sides of MaxInstanceDepth under a schema that recurses with them:
// within it, the check runs and finds the leaf at the bottom; one level
// deeper and beyond (to 5,000), the call is not checked, with the reason.
// The validator writes each location it descends through, so a check
// costs the depth at each step: 2,000 levels took 23 s of CPU.
func TestBoundedDepthGenerated(t *testing.T) {
	s := compileOK(t, recursive)
	r := rand.New(rand.NewPCG(40, 8))
	for n := range 200 {
		depth := MaxInstanceDepth - 3 + r.IntN(7)
		if n%4 == 0 {
			depth = r.IntN(5000)
		}
		err := s.Validate(drawNest(r, depth))
		// The leaf is a scalar one level below the deepest container.
		if depth > MaxInstanceDepth {
			if !IsLimit(err) || !strings.Contains(err.Error(), "levels deep, over the 128") {
				t.Fatalf("%d levels: %v, want the depth limit", depth, err)
			}
			continue
		}
		var ve *jsonschema.ValidationError
		if depth > 0 && !errors.As(err, &ve) {
			t.Fatalf("%d levels: %v, want the leaf refused", depth, err)
		}
	}
}
