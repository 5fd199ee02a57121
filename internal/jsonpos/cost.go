package jsonpos

import (
	"fmt"
	"math"

	"github.com/mcptest/mcptest/internal/safefile"
)

// The decode budget: untrusted JSON decoded into Go values (a recording's
// document, a line of a JSON Lines file, a call's arguments or result
// when a gate or the report reads them, a catalog's tool, a case of a run
// envelope) may take at most BudgetRatio times the bytes it came from,
// plus BudgetFloor, by the estimate below. Recordings and envelopes as
// frameworks and mcptest write them take 2 to 9 times their size decoded;
// JSON made to be expensive takes up to 67 times ({"":{"":{...}}}: a map
// of 336 bytes for every five), so a file at the 64 MiB limit would have
// taken over 4 GB. A value past its budget is refused.
const (
	BudgetRatio = 12
	BudgetFloor = 16 << 20
)

// DecodeBudget is the decode budget of JSON of n bytes.
func DecodeBudget(n int) int64 { return BudgetRatio*int64(n) + BudgetFloor }

// The memory decoded values take, estimated from their shape on a 64-bit
// machine (measured with Go 1.26): an object is a map header and, from its
// first member, a group of eight slots (336 bytes for one to eight
// members), from its ninth a table of sixteen (746 bytes for nine
// members), then at most 80 bytes a member at the tables' load, with each
// key's bytes; an array is a boxed slice and 24 bytes an element (an any,
// and append's spare capacity); a string is boxed with its bytes rounded
// up to a word; a number is a boxed float64. The cassette reader's
// decoder spends them as it builds each value, and its
// TestDecodeCostIsMemory holds the estimate at or over the live heap of
// what it builds.
const (
	MapCost    = 48
	SliceCost  = 24
	ElemCost   = 24
	NumberCost = 8

	groupCost = 288
	tableCost = 520
	slotCost  = 80
	boxCost   = 16
)

// MemberCost is what adding a member with a key of keyLen bytes to a map
// of n members costs: the first brings the group, the ninth the table that
// replaces it, each after its slot.
func MemberCost(n, keyLen int) int64 {
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

// StringCost is what a decoded string of n bytes costs.
func StringCost(n int) int64 { return boxCost + int64(n+7)&^7 }

// DecodeCost is what decoding the JSON text data into an interface would
// cost, by the estimate, without decoding it: one pass, nothing
// allocated. A string is costed by its quoted length, never under its
// decoded one, and a repeated key as a member, so the figure is at least
// the decoder's; but for a byte that is no character in UTF-8, which
// decodes as U+FFFD, three bytes (so the decoder may build at most twice
// the text's bytes more). Text that is not JSON gets a figure too, and no
// panic: its decoder refuses it.
func DecodeCost(data []byte) int64 {
	cost, _ := DecodeCostAt(data, 0, math.MaxInt64)
	return cost
}

// DecodeCostAt is DecodeCost counting extra more for each array (for a
// decoder that spends more on one than encoding/json does), with the
// offset of the value or member whose cost took the total past budget:
// where the values before it already take up the budget, for an error to
// point at; -1 where the total stays within it.
func DecodeCostAt(data []byte, extra, budget int64) (cost int64, at int) {
	at = -1
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
			key = len(open) > 0 && open[len(open)-1] >= 0
			continue
		case '}', ']':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
			key = false
			continue
		}
		start, top := i, len(open)-1
		if key && top >= 0 {
			end := StringEnd(data, i)
			cost += MemberCost(open[top], end-i-2)
			open[top]++
			i, key = end-1, false
		} else {
			if top >= 0 && open[top] < 0 {
				cost += ElemCost
			}
			switch c {
			case '{':
				cost += MapCost
				open = append(open, 0)
				key = true
			case '[':
				cost += SliceCost + extra
				open = append(open, -1)
			case '"':
				end := StringEnd(data, i)
				cost += StringCost(end - i - 2)
				i = end - 1
			case 't', 'n':
				i += 3
			case 'f':
				i += 4
			default:
				cost += NumberCost
				for i+1 < len(data) && isNumberByte(data[i+1]) {
					i++
				}
			}
		}
		if at < 0 && cost > budget {
			at = start
		}
	}
	return cost, at
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// CostPerByte bounds what one byte of JSON can cost decoded, by the
// estimate: {"":{"":{...}}} opens a map with one member every five bytes
// (48 + 288 + 0 bytes of key, 67 a byte). A text no longer than
// BudgetFloor / CostPerByte fits any budget unread.
const CostPerByte = 68

// OverBudget reports whether the JSON text t would cost more than budget
// to decode, and what it would cost (0 for a text too short to).
func OverBudget(t []byte, budget int64) (bool, int64) {
	if int64(len(t))*CostPerByte <= budget {
		return false, 0
	}
	cost := DecodeCost(t)
	return cost > budget, cost
}

// MayBeOverBudget reports whether JSON of n bytes may cost more than the
// least decode budget: a reader need not keep or cost shorter text.
func MayBeOverBudget(n int) bool { return int64(n)*CostPerByte > BudgetFloor }

// BudgetError is the message of a decode budget spent: lead says what
// costs too much, before "the decode budget of" JSON of size bytes.
func BudgetError(lead string, size int) string {
	return fmt.Sprintf("%s the decode budget of %s for JSON of %s (%d times its size, plus %s): "+
		"mcptest refuses JSON that costs that much memory to read (SECURITY.md, the decode budget)",
		lead, safefile.Size(DecodeBudget(size)), safefile.Size(int64(size)), BudgetRatio, safefile.Size(BudgetFloor))
}
