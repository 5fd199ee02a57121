package report

import (
	"encoding/json"
	"errors"
	"fmt"

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
	cost, arrays := jsonpos.DecodeCounts(raw)
	return cost + arrays*arraySlack
}

// CheckBudget is the error of the JSON text raw, what of an envelope,
// when decoding it would cost more than its decode budget
// (jsonpos.DecodeBudget, by DecodeCost: a case's matchers, actual values
// and final states, and a floor's matcher, decode into generic values,
// which JSON made to be expensive makes up to a hundred times its bytes);
// nil for text within it, and for text that is not JSON, which its
// decoder refuses. Every reader of an envelope, or of a part of one,
// calls it before decoding: Read, CaseReader's cases and head,
// baseline.ReadBaseline, the history's and the front door's readers.
func CheckBudget(what string, raw []byte) error {
	budget := jsonpos.DecodeBudget(len(raw))
	if int64(len(raw))*maxCostPerByte <= budget {
		return nil
	}
	cost := DecodeCost(raw)
	if cost <= budget || !json.Valid(raw) {
		return nil
	}
	return errors.New(jsonpos.BudgetError(fmt.Sprintf("%s would take %s decoded, over", what, safefile.Size(cost)), len(raw)))
}
