package yamlpos

import (
	"bytes"
	"fmt"

	"github.com/mcptest/mcptest/internal/diag"
)

// The read budget: every YAML text (a suite, a catalog, a tool-bench
// spec) may take at most BudgetRatio times its bytes, plus BudgetFloor, by
// the estimate below, to read; a text past it is refused before yaml.v3
// parses a byte of it, with the line and column where the budget runs
// out. yaml.v3 builds a node of 152 bytes for every value, and Read a Go
// value and a position beside it, so YAML costs more a byte than JSON:
// suites and catalogs as people and generators write them take 16 to 37
// times their size read whole, and 22 to 90 by the estimate (a suite
// written one flow mapping a test); text made to be expensive took up to
// 250 (`[{},{},...]`, `- ?` lines), so a suite at the 32 MiB limit would
// have taken 8 GB. The parse item by item (a long suite's tests:, a
// catalog's tools:) holds far less than the whole, but any error sends
// the text to the whole parse, so the whole is what is budgeted.
const (
	BudgetRatio = 128
	BudgetFloor = 16 << 20
)

// Budget is the read budget of a YAML text of n bytes.
func Budget(n int) int64 { return BudgetRatio*int64(n) + BudgetFloor }

// NodeCost is what the estimate counts for each thing in the text that
// may become a value: the node yaml.v3 builds (152 bytes, 160 with the
// slot its parent holds it by), and Read's Go value and position beside
// it (up to 266 bytes a thing in all, for sequences nested in sequences).
// TestCostBoundsTheRead holds the estimate at or over the live heap of
// Read's document over drawn texts.
const NodeCost = 288

// maxCostPerByte bounds Cost(t) / len(t): a byte is at most one thing, a
// `:` two, a `?` three (see weight).
const maxCostPerByte = 3 * NodeCost

// weight is what each byte of YAML's punctuation counts: a flow
// collection's brackets and a comma may each open or end a value (`{a}`
// is a mapping, a key and a null); a `:` may start a mapping and end its
// key with a null value (`- a:`); a `-` followed by a space or a line's
// end is a sequence's entry, which may be null, and a `?` so followed an
// explicit key, which may start a mapping with a null key and a null value
// (`- ?`). Any other byte that is not a space starts a run of plain text,
// one value, unless it continues the run it is in: a run ends at
// punctuation and at a line's end, not at a space, so a sentence is one
// value and its words are not counted apart.
var weight = func() (w [256]uint8) {
	for _, c := range []byte("[]{},:") {
		w[c] = 1 // a `:` one more when nothing follows it (nullAfter)
	}
	return w
}()

// entryWeight is what a `-` or a `?` counts when a space or a line's end
// follows it (see weight).
var entryWeight = [256]uint8{'-': 1, '?': 3}

// ends marks the bytes at which a run of plain text may end: punctuation,
// a line's end, and a `-` or a `?` (which ends it only before a space).
var ends = func() (e [256]bool) {
	for _, c := range []byte("[]{},:\n\r-?") {
		e[c] = true
	}
	return e
}()

// Cost is the estimate of the memory that reading t takes at most: the
// things of t that may become values (see weight), NodeCost each. It is
// computed from the bytes alone, never under the values yaml.v3 can find
// in them, and valid for any text, YAML or not.
func Cost(t []byte) int64 {
	c, _ := CostAt(t, -1)
	return c
}

// CostAt is Cost, and the offset of the byte at which the estimate first
// passes budget (-1 when it never does, and when budget is negative).
func CostAt(t []byte, budget int64) (cost int64, at int) {
	at = -1
	var things int64
	for i := 0; i < len(t); {
		c := t[i]
		from := i
		if spaceOrBreak(c) {
			i++
			continue
		}
		if weight[c] > 0 {
			things += int64(weight[c])
			i++
			if c == ':' && nullAfter(t, i) {
				things++
			}
		} else if entryWeight[c] > 0 && (i+1 == len(t) || spaceOrBreak(t[i+1])) {
			things += int64(entryWeight[c])
			i++
		} else {
			things++
			i = runEnd(t, i+1)
		}
		if at < 0 && budget >= 0 && things*NodeCost > budget {
			at = from
		}
	}
	return things * NodeCost, at
}

// runEnd is the offset where the run of plain text that goes on at i
// ends (see weight).
func runEnd(t []byte, i int) int {
	for ; i < len(t); i++ {
		c := t[i]
		if !ends[c] {
			continue
		}
		if entryWeight[c] > 0 && i+1 < len(t) && !spaceOrBreak(t[i+1]) {
			continue
		}
		return i
	}
	return i
}

// nullAfter reports whether what follows a `:` at i-1 on its line leaves
// the value null: nothing, a comment, or a flow collection's comma or
// closing bracket.
func nullAfter(t []byte, i int) bool {
	for ; i < len(t) && (t[i] == ' ' || t[i] == '\t'); i++ {
	}
	if i == len(t) {
		return true
	}
	switch t[i] {
	case '\n', '\r', '#', ',', '}', ']':
		return true
	}
	return false
}

// spaceOrBreak reports whether c is white space or ends a line.
func spaceOrBreak(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// budgetError is the error of a text past its read budget, placed at the
// byte where the estimate passes it; nil for a text within it. A text of
// under BudgetFloor / (maxCostPerByte - BudgetRatio) bytes (about 22 KB)
// is within it whatever it holds and is not read.
func budgetError(file string, data []byte, o Options) *diag.Error {
	budget := Budget(len(data))
	if int64(len(data))*maxCostPerByte <= budget {
		return nil
	}
	body := bytes.TrimPrefix(data, []byte(utf8BOM))
	cost, at := CostAt(body, budget)
	if at < 0 {
		return nil
	}
	line, col := diag.LineCol(body, int64(at))
	return &diag.Error{Pos: diag.Pos{File: file, Line: line, Col: col}, Kind: o.kind(),
		Message: fmt.Sprintf("this %s would take about %s of memory to read; what stands before this point takes up "+
			"the read budget of %s for YAML of %s (%d times its size, plus %s): mcptest refuses YAML that costs that "+
			"much memory to read (SECURITY.md, the read budget), and YAML as people write it costs 20 to 90 times its size",
			o.noun(), mib(cost), mib(budget), mib(int64(len(data))), BudgetRatio, mib(BudgetFloor))}
}

// mib writes n bytes in MiB, to a tenth.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
