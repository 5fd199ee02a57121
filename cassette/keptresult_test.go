package cassette

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestKeptResultIsJSONOf: a result kept as text is JSONOf's text of it,
// whichever way it is written (a result of one text block is written
// without encoding/json), and decodes to the value kept. It draws 5,000
// results: one text block, with a member more or less at either level,
// of another type or a text that is not a string, two blocks, a string
// with escapes, quotes, line and paragraph separators, bytes that need
// \u escapes and bytes that are not UTF-8, and values that are not maps. nil and a text kept already
// are left as they are.
func TestKeptResultIsJSONOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 5))
	texts := []string{"", "21C", "a \"quoted\" <b>&</b>", "line\nbreak\ttab", "\u2028\u2029", "\x00\x1f\x7f", "é 漢字 🙂", "\\", "\xff"}
	draw := func() any {
		text := any(texts[rng.IntN(len(texts))] + texts[rng.IntN(len(texts))])
		block := map[string]any{"type": "text", "text": text}
		switch rng.IntN(8) {
		case 0:
			block["annotations"] = []any{}
		case 1:
			delete(block, "type")
		case 2:
			block["type"] = "image"
		case 3:
			block["text"] = 5.0
		}
		content := []any{block}
		if rng.IntN(8) == 0 {
			content = append(content, block)
		}
		result := map[string]any{"content": content}
		switch rng.IntN(10) {
		case 0:
			result["isError"] = true
		case 1:
			result["content"] = block
		case 2:
			return []any{result}
		case 3:
			return text
		}
		return result
	}
	for i := range 5000 {
		v := draw()
		got := keptResult(v)
		j, ok := got.(JSON)
		if !ok || j != JSONOf(v) {
			t.Fatalf("draw %d: kept %#v, want JSONOf's %q", i, got, JSONOf(v))
		}
		// A string from a recording is UTF-8 (the reader made it so);
		// a drawn \xff is written as U+FFFD, as encoding/json writes it.
		if !strings.Contains(fmt.Sprint(v), "\xff") && !reflect.DeepEqual(j.Value(), v) {
			t.Fatalf("draw %d: %q decodes to %#v, want %#v", i, j, j.Value(), v)
		}
	}
	if got := keptResult(nil); got != nil {
		t.Errorf("nil kept as %#v", got)
	}
	if got := keptResult(JSON(`{"a":1}`)); got != JSON(`{"a":1}`) {
		t.Errorf("a text kept as %#v", got)
	}
	if got, want := keptToolResult("x\ny"), JSONOf(toolResult("x\ny")); got != want {
		t.Errorf("keptToolResult of a string: %#v, want %#v", got, want)
	}
}
