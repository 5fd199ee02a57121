package tokens

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// sharedData holds the real datasets: tool descriptions, schemas, task
// texts and trajectories in many languages and scripts.
const sharedData = "../../../shared/data"

// reference is tiktoken-go's cl100k_base tokenizer, the implementation
// Count replaced: the counts must not move.
func reference(t testing.TB) *tiktoken.Tiktoken {
	t.Helper()
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding(Encoding)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// TestCountAsTiktoken: the first 500 lines of up to 2 KiB of every file
// of the shared datasets, and every file of up to 16 KiB whole, counts as many tokens as tiktoken-go's encoder
// gives.
func TestCountAsTiktoken(t *testing.T) {
	var texts []string
	err := filepath.WalkDir(sharedData, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if len(data) <= 16<<10 {
			texts = append(texts, string(data))
		}
		n := 0
		for line := range bytes.Lines(data) {
			if n < 500 && len(line) <= 2<<10 {
				texts, n = append(texts, string(line)), n+1
			}
		}
		return nil
	})
	if err != nil || len(texts) == 0 {
		t.Skipf("shared datasets not available: %v", err)
	}
	texts = append(texts, "", " ", "\n\n\t ", "<|endoftext|>", "\xff\xfe invalid \xc3", "don't I'LL we've", "12345678 1.5e10")
	ref := reference(t)
	total := 0
	for _, text := range texts {
		want := len(ref.EncodeOrdinary(text))
		if got := Count(text); got != want {
			t.Fatalf("Count(%.80q) = %d, tiktoken-go gives %d", text, got, want)
		}
		total += want
	}
	t.Logf("%d texts, %d tokens", len(texts), total)
}

func FuzzCountAsTiktoken(f *testing.F) {
	for _, s := range []string{"hello world", "héllo 🌍 世界", "<|endoftext|> x", "  \n\r\n x", "aaaaaaaaaaaaaaaa", "\xff\x00"} {
		f.Add(s)
	}
	ref := reference(f)
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := Count(text), len(ref.EncodeOrdinary(text)); got != want {
			t.Errorf("Count(%q) = %d, tiktoken-go gives %d", text, got, want)
		}
	})
}

// BenchmarkFirstCount is the cost of the first count in a process: loading
// the encoder, then one tool's texts.
func BenchmarkFirstCount(b *testing.B) {
	for b.Loop() {
		loaded, err := loadBPE()
		if err != nil {
			b.Fatal(err)
		}
		loaded.count(`Search the document index for a query and return matching titles. {"properties":{"q":{"type":"string"}},"type":"object"}`)
	}
}

// TestEmptyCountLoads: counting "" loads the encoder, so a command can
// warm it up while it waits for a server.
func TestEmptyCountLoads(t *testing.T) {
	loadOnce, loaded = sync.Once{}, nil // as in a new process
	if Count("") != 0 {
		t.Fatal(`Count("") is not 0`)
	}
	if loaded == nil {
		t.Error(`Count("") did not load the encoder`)
	}
}
