package cassette

import (
	"fmt"
	"strconv"
	"unsafe"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/jsonpos"
	"github.com/mcptest/mcptest/internal/safefile"
)

// The decode budget: a recording's JSON decoded into Go values (the whole
// document, where its format is read that way; one line of a JSON Lines
// file; one member of an Inspect archive; a call's arguments or result
// when a gate or the report reads them) may take at most budgetRatio
// times the bytes it came from, plus budgetFloor, by the estimate below.
// Recordings as frameworks and mcptest write them take 2 to 9 times their
// size decoded (the shared datasets, every example and test recording,
// the benchmark corpora, 100,000 tools listed in one Responses object);
// JSON made to be expensive takes up to 67 times ({"":{"":{...}}}: a map
// of 336 bytes for every five), so a file at the 64 MiB limit would have
// taken over 4 GB. A document past its budget is refused where the budget
// ran out.
const (
	budgetRatio = 12
	budgetFloor = 16 << 20
)

// DecodeBudget is the decode budget of JSON of n bytes.
func DecodeBudget(n int) int64 { return budgetRatio*int64(n) + budgetFloor }

// decodeBudgetOf is the budget a decoder of n bytes gets: DecodeBudget,
// but for the test that cuts every reader short at drawn budgets
// (TestEveryReaderCutShort).
var decodeBudgetOf = DecodeBudget

// The memory decoded values take, estimated from their shape on a 64-bit
// machine (measured with Go 1.26): an object is a map header and, from its
// first member, a group of eight slots (336 bytes for one to eight
// members), from its ninth a table of sixteen (746 bytes for nine
// members), then at most 80 bytes a member at the tables' load, with each
// key's bytes; an array is a boxed slice and 24 bytes an element (an any,
// and append's spare capacity); a string is boxed with its bytes rounded
// up to a word; a number is a boxed float64. TestDecodeCostIsMemory holds
// the estimate at or over the live heap of what the decoder builds.
const (
	mapCost    = 48
	groupCost  = 288
	tableCost  = 520
	slotCost   = 80
	sliceCost  = 24
	elemCost   = 24
	boxCost    = 16
	numberCost = 8
)

// memberCost is what adding a member with a key of keyLen bytes to a map
// of n members costs: the first brings the group, the ninth the table that
// replaces it, each after its slot.
func memberCost(n, keyLen int) int64 {
	c := int64(keyLen+7) &^ 7
	switch {
	case n == 0:
		c += groupCost
	case n == 8:
		c += tableCost
	case n > 8:
		c += slotCost
	}
	return c
}

// stringCost is what a decoded string of n bytes costs.
func stringCost(n int) int64 { return boxCost + int64(n+7)&^7 }

// decodeCost is what decoding the JSON text data (valid) would cost, by
// the decoder's estimate, without decoding it: one pass, nothing
// allocated. A string is costed by its quoted length, never under its
// decoded one, and a repeated key as a member, so the figure is at least
// the decoder's.
func decodeCost(data []byte) int64 {
	var cost int64
	// open holds, for each open object, its members so far; -1 for an
	// open array.
	var open []int
	key := false // the next string is a key
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case ' ', '\t', '\r', '\n', ':':
			continue
		case ',':
			key = open[len(open)-1] >= 0
			continue
		case '}', ']':
			open, key = open[:len(open)-1], false
			continue
		}
		top := len(open) - 1
		if key {
			end := jsonpos.StringEnd(data, i)
			cost += memberCost(open[top], end-i-2)
			open[top]++
			i, key = end-1, false
			continue
		}
		if top >= 0 && open[top] < 0 {
			cost += elemCost
		}
		switch c {
		case '{':
			cost += mapCost
			open = append(open, 0)
			key = true
		case '[':
			cost += sliceCost
			open = append(open, -1)
		case '"':
			end := jsonpos.StringEnd(data, i)
			cost += stringCost(end - i - 2)
			i = end - 1
		case 't', 'n':
			i += 3
		case 'f':
			i += 4
		default:
			cost += numberCost
			for i+1 < len(data) && isNumberByte(data[i+1]) {
				i++
			}
		}
	}
	return cost
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// costPerByte bounds what one byte of JSON can cost decoded, by the
// estimate: {"":{"":{...}}} opens a map with one member every five bytes
// (48 + 288 + 0 bytes of key, 67 a byte). A text no longer than
// budgetFloor / costPerByte fits any budget unread.
const costPerByte = 68

// overBudget reports whether the JSON text t would cost more than budget
// to decode, and what it would cost (0 for a text too short to).
func overBudget(t []byte, budget int64) (bool, int64) {
	if int64(len(t))*costPerByte <= budget {
		return false, 0
	}
	cost := decodeCost(t)
	return cost > budget, cost
}

// textBytes is the bytes of a kept text, not copied: for reading only.
func textBytes(t JSON) []byte { return unsafe.Slice(unsafe.StringData(string(t)), len(t)) }

// budgetError is the message of a decode budget spent: lead says what
// costs too much, before "the decode budget of" JSON of size bytes.
func budgetError(lead string, size int) string {
	return fmt.Sprintf("%s the decode budget of %s for JSON of %s (%d times its size, plus %s): "+
		"mcptest refuses JSON that costs that much memory to read (SECURITY.md, the decode budget)",
		lead, safefile.Size(DecodeBudget(size)), safefile.Size(int64(size)), budgetRatio, safefile.Size(budgetFloor))
}

// keptWithinBudget checks that each call of r, the runs-th run of the
// recording data read as c, keeps arguments and a result that decode
// within data's budget (what a gate or the report decodes, one call at a
// time), and with the first run the catalog's tools, and returns the
// error of the first that does not.
func keptWithinBudget(c *Cassette, r *Run, runs int, data []byte) error {
	if runs == 0 {
		if err := catalogWithinBudget(c, data); err != nil {
			return err
		}
	}
	budget := DecodeBudget(len(data))
	for t := range r.Turns {
		for i := range r.Turns[t].Calls {
			call := &r.Turns[t].Calls[i]
			for _, kept := range [...]struct {
				name string
				text JSON
			}{{"arguments", call.Arguments}, {"result", keptText(call.Result)}} {
				if over, cost := overBudget(textBytes(kept.text), budget); over {
					return keptError(c, data, fmt.Sprintf("/runs/%d/turns/%d/calls/%d/%s", runs, t, i, kept.name),
						fmt.Sprintf("run %d, turn %d, call %d (`%s`)", runs+1, t+1, i+1, call.Tool), "its "+kept.name, cost)
				}
			}
		}
	}
	return nil
}

// catalogWithinBudget checks that each tool of c's catalog, kept as its
// text for the gates that read its schema, decodes within the budget of
// data, the recording c was read from.
func catalogWithinBudget(c *Cassette, data []byte) error {
	budget := DecodeBudget(len(data))
	for _, sc := range c.Catalog {
		for i, tool := range sc.Tools {
			if over, cost := overBudget(textBytes(tool.Text), budget); over {
				ptr := "/catalog/" + jsonpos.EscapePointer(sc.Server) + "/tools/" + strconv.Itoa(i)
				return keptError(c, data, ptr, fmt.Sprintf("tool %d of server %q (`%s`)", i+1, sc.Server, tool.Name), "its entry", cost)
			}
		}
	}
	return nil
}

// keptError is the error of a kept text, what, that would cost cost
// decoded: in an mcptest cassette placed at the member ptr points to, in
// another format named by where.
func keptError(c *Cassette, data []byte, ptr, where, what string, cost int64) error {
	e := &diag.Error{Pos: diag.Pos{File: c.Path}, Kind: kind, HideSource: true}
	lead := fmt.Sprintf("%s would take %s decoded, over", what, safefile.Size(cost))
	if pos, ok := Locate(c.Path, data, ptr); ok && c.Format == FormatV1 {
		e.Pos, e.Pointer = pos, ptr
	} else {
		lead = where + ": " + lead
	}
	e.Message = budgetError(lead, len(data))
	return e
}

// keptText is the text a result is kept as, "" for none.
func keptText(result any) JSON {
	t, _ := result.(JSON)
	return t
}

// forgetArguments drops the arguments of r's calls, for Tally: its readers
// keep only those long enough to be over a decode budget, for
// keptWithinBudget to check.
func forgetArguments(r *Run) {
	for t := range r.Turns {
		for i := range r.Turns[t].Calls {
			r.Turns[t].Calls[i].Arguments = ""
		}
	}
}

// mayBeOverBudget reports whether JSON of n bytes may cost more than the
// least decode budget: shorter text is not kept where it would be thrown
// away (Tally's arguments).
func mayBeOverBudget(n int) bool { return int64(n)*costPerByte > budgetFloor }

// OverBudget reports whether the JSON value at offset at of data, a valid
// JSON file, would cost more than the file's decode budget to decode,
// with the message that says so, what naming the value ("tools[3]"): for
// a reader of JSON outside this package (a catalog file's tools) to hold
// it to the same budget. A file too short for any of its values to be
// over is not read.
func OverBudget(data []byte, at int, what string) (string, bool) {
	if !mayBeOverBudget(len(data)) {
		return "", false
	}
	over, cost := overBudget(data[at:jsonpos.Skip(data, at)], DecodeBudget(len(data)))
	if !over {
		return "", false
	}
	return budgetError(fmt.Sprintf("%s would take %s decoded, over", what, safefile.Size(cost)), len(data)), true
}
