package annotate

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/expr"
)

var (
	packTemplate   = regexp.MustCompile(`\n<template class="pk" id="pk-(\d+)">([^<]*)</template>`)
	packedDetail   = regexp.MustCompile(`<div class="detail packed" data-pk="(\d+)\.(\d+)"></div>`)
	packedProblems = regexp.MustCompile(`<details class="packed-problems"><summary>[^<]*</summary><div class="packed" data-pk="(\d+)\.(\d+)"></div></details>`)
)

// TestPackedPiecesAreTheInlineOnes renders a run of 150 cases, hostile
// recorded text in every other one, with nothing kept inline, decodes
// the packs as the page's script does (base64, gzip, a JSON array) and
// puts each piece back in its place: the page is then byte for byte the
// one rendered with everything inline, so a packed case shows exactly
// what an inline one would, escaped the same way.
func TestPackedPiecesAreTheInlineOnes(t *testing.T) {
	env := sample()
	hostile := hostileEnvelope(`<img src=x onerror=alert(1)></script><script>alert(2)</script>`)
	base := env.Cases
	env.Cases = nil
	for i := range 150 {
		c := *base[i%len(base)]
		if i%2 == 1 {
			c = *hostile.Cases[1]
		}
		c.Name = fmt.Sprintf("%s %d", c.Name, i)
		env.Cases = append(env.Cases, &c)
	}
	env.Summarize(expr.JudgeFloor)
	inline := string(renderReport(t, HTML{}, env))
	defer func(b int) { inlineBudget = b }(inlineBudget)
	inlineBudget = 0
	packed := string(renderReport(t, HTML{}, env))
	for _, page := range []string{inline, packed} {
		if strings.Contains(page, "<img") || strings.Contains(page, "<script>alert") {
			t.Fatal("recorded markup reached the page unescaped")
		}
	}
	chunks := map[string][]string{}
	for _, m := range packTemplate.FindAllStringSubmatch(packed, -1) {
		raw, err := base64.URLEncoding.DecodeString(m[2])
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		js, _ := io.ReadAll(zr)
		var pieces []string
		if err := json.Unmarshal(js, &pieces); err != nil {
			t.Fatal(err)
		}
		if len(pieces) > packItems {
			t.Errorf("pack %s holds %d pieces, over %d", m[1], len(pieces), packItems)
		}
		chunks[m[1]] = pieces
	}
	if len(chunks) < 2 {
		t.Errorf("%d packs for 300 pieces, want several", len(chunks))
	}
	piece := func(m []string) string {
		if ps := chunks[m[1]]; ps != nil {
			var i int
			fmt.Sscan(m[2], &i)
			if i < len(ps) {
				return ps[i]
			}
		}
		t.Fatalf("no piece %s.%s", m[1], m[2])
		return ""
	}
	back := packTemplate.ReplaceAllString(packed, "")
	back = packedDetail.ReplaceAllStringFunc(back, func(s string) string {
		return `<div class="detail">` + piece(packedDetail.FindStringSubmatch(s)) + "\n</div>"
	})
	back = packedProblems.ReplaceAllStringFunc(back, func(s string) string { return piece(packedProblems.FindStringSubmatch(s)) })
	if back != inline {
		i := 0
		for i < len(back) && i < len(inline) && back[i] == inline[i] {
			i++
		}
		t.Errorf("the unpacked page differs from the inline one at byte %d:\n%.300q\nvs\n%.300q", i, back[i:], inline[i:])
	}
	if n, want := strings.Count(packed, `data-pk="`), 150+strings.Count(inline, `" data-case="`); n != want {
		t.Errorf("%d packed pieces, want every detail and problem list (%d)", n, want)
	}
}
