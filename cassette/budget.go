package cassette

import (
	"fmt"
	"strconv"
	"unsafe"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/jsonpos"
	"github.com/mcptest/mcptest/internal/safefile"
)

// The decode budget (jsonpos.DecodeBudget): a recording's JSON decoded
// into Go values (the whole document, where its format is read that way;
// one line of a JSON Lines file; one member of an Inspect archive; a
// call's arguments or result when a gate or the report reads them) may
// take at most jsonpos.BudgetRatio times the bytes it came from, plus
// jsonpos.BudgetFloor, by jsonpos's estimate, which the decoder spends as
// it builds each value. A document past its budget is refused where the
// budget ran out; a kept text past it, at its member.

// DecodeBudget is the decode budget of JSON of n bytes.
func DecodeBudget(n int) int64 { return jsonpos.DecodeBudget(n) }

// decodeBudgetOf is the budget a decoder of n bytes gets: DecodeBudget,
// but for the test that cuts every reader short at drawn budgets
// (TestEveryReaderCutShort).
var decodeBudgetOf = DecodeBudget

// textBytes is the bytes of a kept text, not copied: for reading only.
func textBytes(t JSON) []byte { return unsafe.Slice(unsafe.StringData(string(t)), len(t)) }

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
				if over, cost := jsonpos.OverBudget(textBytes(kept.text), budget); over {
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
			if over, cost := jsonpos.OverBudget(textBytes(tool.Text), budget); over {
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
	e.Message = jsonpos.BudgetError(lead, len(data))
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

// OverBudget reports whether the JSON value at offset at of data, a valid
// JSON file, would cost more than the file's decode budget to decode,
// with the message that says so, what naming the value ("tools[3]"): for
// a reader of JSON outside this package (a catalog file's tools) to hold
// it to the same budget. A file too short for any of its values to be
// over is not read.
func OverBudget(data []byte, at int, what string) (string, bool) {
	if !jsonpos.MayBeOverBudget(len(data)) {
		return "", false
	}
	over, cost := jsonpos.OverBudget(data[at:jsonpos.Skip(data, at)], DecodeBudget(len(data)))
	if !over {
		return "", false
	}
	return jsonpos.BudgetError(fmt.Sprintf("%s would take %s decoded, over", what, safefile.Size(cost)), len(data)), true
}
