package report

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/mcptest/mcptest/internal/jsonpos"
	"github.com/mcptest/mcptest/internal/safefile"
)

// arraySlack is what the decoder of a case (envstream's) spends on an
// array of a generic value past jsonpos's estimate: it starts each with
// room for ten elements, 160 bytes.
const arraySlack = 160

// maxCostPerByte bounds DecodeCost a byte: arrays nested two bytes each
// ([[[...]]]) cost SliceCost, ElemCost and arraySlack each.
const maxCostPerByte = (jsonpos.SliceCost + jsonpos.ElemCost + arraySlack) / 2

// DecodeCost is what decoding the JSON text raw, a case or a whole
// envelope, costs in memory by jsonpos's estimate, each array with the
// room the case decoder gives it: every value costed as a generic one (a
// field of a fixed type costs less).
func DecodeCost(raw []byte) int64 {
	cost, _ := jsonpos.DecodeCostAt(raw, arraySlack, math.MaxInt64)
	return cost
}

// BudgetError is JSON text of an envelope that would cost more than its
// decode budget to decode (CheckBudget).
type BudgetError struct {
	// What names the text ("cases[3]", "the envelope").
	What string
	// Cost is what the text would cost, Size its bytes.
	Cost int64
	Size int
	// At is the offset in the text of the value whose cost took the
	// total past the budget: the values before it take it up.
	At int
	// Placed is set where the error is given at At's line and column,
	// and its message speaks of that point.
	Placed bool
}

func (e *BudgetError) Error() string {
	lead := fmt.Sprintf("%s would take %s decoded, over", e.What, safefile.Size(e.Cost))
	if e.Placed {
		lead = fmt.Sprintf("%s would take %s decoded; the values before this point take up", e.What, safefile.Size(e.Cost))
	}
	return jsonpos.BudgetError(lead, e.Size)
}

// CheckBudget is the error (a *BudgetError) of the JSON text raw, what of
// an envelope, when decoding it would cost more than its decode budget
// (jsonpos.DecodeBudget, by DecodeCost: a case's matchers, actual values
// and final states, and a floor's matcher, decode into generic values,
// which JSON made to be expensive makes up to a hundred times its bytes);
// nil for text within it, and for text that is not JSON, which its
// decoder refuses. Every reader of an envelope, or of a part of one,
// calls it before decoding: Read, CaseReader for each case and each
// member of the head, baseline.ReadBaseline, the history's and the front
// door's readers. A reader that knows where the text stands in its file
// places the error (PlaceBudget, CaseReader).
func CheckBudget(what string, raw []byte) error {
	if e := overBudget(raw); e != nil {
		e.What = what
		return e
	}
	return nil
}

// overBudget is CheckBudget's error, its What not set.
func overBudget(raw []byte) *BudgetError {
	budget := jsonpos.DecodeBudget(len(raw))
	if int64(len(raw))*maxCostPerByte <= budget {
		return nil
	}
	cost, at := jsonpos.DecodeCostAt(raw, arraySlack, budget)
	if at < 0 || !json.Valid(raw) {
		return nil
	}
	return &BudgetError{Cost: cost, Size: len(raw), At: at}
}

// PlaceBudget is CheckBudget of a whole document, data of the file name:
// its error names the file, line and column where the budget runs out.
func PlaceBudget(name string, data []byte) error {
	err := CheckBudget("the envelope", data)
	if err == nil {
		return nil
	}
	be := err.(*BudgetError)
	be.Placed = true
	line, col := (&jsonpos.Lines{Data: data}).At(be.At)
	return fmt.Errorf("%s:%d:%d: %w", name, line, col, err)
}
