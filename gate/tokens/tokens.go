package tokens

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding is the tokenizer every count uses.
const Encoding = "cl100k_base"

var (
	once sync.Once
	enc  *tiktoken.Tiktoken
	err  error
)

func encoding() *tiktoken.Tiktoken {
	once.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		enc, err = tiktoken.GetEncoding(Encoding)
	})
	if err != nil {
		// The BPE data is embedded: failing to read it is a build defect.
		panic(fmt.Sprintf("tokens: load embedded %s: %v", Encoding, err))
	}
	return enc
}

// Count returns the number of cl100k_base tokens of text. Special-token
// text such as "<|endoftext|>" is counted as ordinary text, as it would be
// in a tool description.
func Count(text string) int {
	if text == "" {
		return 0
	}
	return len(encoding().EncodeOrdinary(text))
}

// ToolTexts returns the three texts a tool costs: its name, its
// description, and its inputSchema as compact JSON with sorted keys ("" when
// the tool has none).
func ToolTexts(name, description string, inputSchema any) []string {
	schema := ""
	if inputSchema != nil {
		if b, err := json.Marshal(inputSchema); err == nil {
			schema = string(b)
		}
	}
	return []string{name, description, schema}
}

// Tool returns the tool-surface tokens of one tool: the sum of the counts
// of its ToolTexts.
func Tool(name, description string, inputSchema any) int {
	n := 0
	for _, t := range ToolTexts(name, description, inputSchema) {
		n += Count(t)
	}
	return n
}
