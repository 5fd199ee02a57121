package prices

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"io"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite litellm/rates.tsv from the embedded table")

// embeddedJSON is the table litellm/ holds, uncompressed.
func embeddedJSON(t testing.TB) []byte {
	t.Helper()
	z, err := os.ReadFile("litellm/model_prices_and_context_window.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// ratesOf writes the rates' lines of a table Parse reads without error:
// its date, then each priced model's rates as the table writes them,
// sorted by model.
func ratesOf(t *testing.T, data []byte) []byte {
	t.Helper()
	tab, err := parseChecked("table.json", data, "")
	if err != nil {
		t.Fatal(err)
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString(ratesHead + tab.Updated + "\n")
	for _, model := range slices.Sorted(func(yield func(string) bool) {
		for m := range tab.rates {
			if !yield(m) {
				return
			}
		}
	}) {
		d := json.NewDecoder(bytes.NewReader(entries[model]))
		d.UseNumber()
		var entry map[string]any
		if err := d.Decode(&entry); err != nil {
			t.Fatal(err)
		}
		b.WriteString(model)
		for _, key := range rateKeys {
			n, _ := entry[key].(json.Number)
			b.WriteString("\t" + n.String())
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// TestEmbeddedRates: litellm/rates.tsv is what ratesOf writes of the
// embedded table (-update rewrites it), and the table Embedded reads from
// it prices every model, and every name drawn from them (a provider
// before it, a letter changed, cut or added, another case), exactly as
// Parse's reading of the table does: the same rates, the same match, the
// same did-you-mean.
func TestEmbeddedRates(t *testing.T) {
	data := embeddedJSON(t)
	want := ratesOf(t, data)
	if *update {
		if err := os.WriteFile("litellm/rates.tsv", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := os.ReadFile("litellm/rates.tsv"); !bytes.Equal(got, want) || embeddedRates != string(want) {
		t.Fatal("litellm/rates.tsv is not the embedded table's rates: go test ./internal/prices -run TestEmbeddedRates -update")
	}
	parsed, err := Parse("table.json", data)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if tab.Updated != parsed.Updated || tab.SHA256 != parsed.SHA256 || tab.Len() != parsed.Len() {
		t.Fatalf("Embedded: %q, %s, %d models; Parse: %q, %s, %d", tab.Updated, tab.SHA256, tab.Len(), parsed.Updated, parsed.SHA256, parsed.Len())
	}
	names := make([]string, 0, len(parsed.rates))
	for m := range parsed.rates {
		names = append(names, m)
	}
	slices.Sort(names)
	rng := rand.New(rand.NewPCG(40, 3))
	same := func(a, b *big.Rat) bool { return a == nil && b == nil || a != nil && b != nil && a.Cmp(b) == 0 }
	for i := range 20000 {
		name := names[i%len(names)]
		if i >= len(names) {
			name = drawName(rng, names)
		}
		got, gotOK := tab.Lookup(name)
		w, wantOK := parsed.Lookup(name)
		if gotOK != wantOK || got.Match != w.Match || !same(got.Input, w.Input) || !same(got.Output, w.Output) || !same(got.CachedInput, w.CachedInput) {
			t.Fatalf("%q: Embedded's %+v (%v), Parse's %+v (%v)", name, got, gotOK, w, wantOK)
		}
		if i%97 == 0 && tab.Suggest(name) != parsed.Suggest(name) {
			t.Fatalf("%q: Embedded suggests %q, Parse %q", name, tab.Suggest(name), parsed.Suggest(name))
		}
	}
}

// drawName draws a model name near the table's names.
func drawName(rng *rand.Rand, names []string) string {
	name := names[rng.IntN(len(names))]
	switch rng.IntN(6) {
	case 0:
		return []string{"openai/", "anthropic/", "a/b/", "/"}[rng.IntN(4)] + name
	case 1:
		return name[:rng.IntN(len(name)+1)]
	case 2:
		return name + string(rune('a'+rng.IntN(26)))
	case 3:
		b := []byte(name)
		b[rng.IntN(len(b))] = byte('-' + rng.IntN(80))
		return string(b)
	case 4:
		return strings.ToUpper(name)
	}
	return name + "/" + names[rng.IntN(len(names))]
}

// TestReadRatesRefuses: rates' text cut, changed or reordered at drawn
// places is read as the lines it holds or refused with the line it
// stopped at, never a panic, and never a model priced at a rate that is
// not the number its line gives.
func TestReadRatesRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 4))
	lines := strings.SplitAfter(embeddedRates, "\n")
	for i := range 2000 {
		text := strings.Join(lines[:1+rng.IntN(20)], "")
		b := []byte(text)
		for range 1 + rng.IntN(3) {
			if len(b) == 0 {
				break
			}
			at := rng.IntN(len(b))
			switch rng.IntN(3) {
			case 0:
				b[at] = "\t\nx-.1e/ "[rng.IntN(9)]
			case 1:
				b = b[:at]
			case 2:
				b = append(b[:at:at], append([]byte("\t"), b[at:]...)...)
			}
		}
		tab, err := readRates(string(b))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "embedded rates: line ") {
				t.Fatalf("text %d: %v", i, err)
			}
			continue
		}
		last := map[string]string{} // a model's input rate on its last line
		for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")[1:] {
			f := strings.Split(line, "\t")
			last[f[0]] = f[1]
		}
		if len(last) != tab.Len() {
			t.Fatalf("text %d: %d models read of %d", i, tab.Len(), len(last))
		}
		for model, text := range last {
			in, _ := new(big.Rat).SetString(text)
			if r := tab.rates[model]; r.in == nil || in == nil || r.in.Cmp(in) != 0 {
				t.Fatalf("text %d: %q priced at %v, its line says %q", i, model, r.in, text)
			}
		}
	}
}

// BenchmarkEmbeddedRates reads the embedded rates as a run's first priced
// case does (Embedded's work, without its once), and, as its baseline,
// the table's JSON as runs read it before rates.tsv: gunzipped from
// litellm/ and scanned by parseFast.
func BenchmarkEmbeddedRates(b *testing.B) {
	b.Run("rates.tsv", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := readRates(embeddedRates); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.gz", func(b *testing.B) {
		z, err := os.ReadFile("litellm/model_prices_and_context_window.json.gz")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			zr, err := gzip.NewReader(bytes.NewReader(z))
			if err != nil {
				b.Fatal(err)
			}
			buf := bytes.NewBuffer(make([]byte, 0, 2<<20)) // the table's 1.5 MB, in one buffer as runs read it
			if _, err := buf.ReadFrom(zr); err != nil {
				b.Fatal(err)
			}
			if _, _, ok := parseFast(buf.Bytes()); !ok {
				b.Fatal("parseFast refused the table")
			}
		}
	})
}

// TestReadRatesErrors: each refused line is named by its number and what
// was wrong with it, its fields counted.
func TestReadRatesErrors(t *testing.T) {
	const head = "last_updated\t2026\n"
	for _, tc := range []struct{ text, want string }{
		{"updated\t2026\n", `embedded rates: line 1 is "updated\t2026", expected "last_updated\t" and the table's date`},
		{head + "\t1\t2\t\n", "embedded rates: line 2 has 4 fields, expected a model and its three rates"},
		{head + "m\t1\t2\n", "embedded rates: line 2 has 3 fields, expected a model and its three rates"},
		{head + "m\t1\t2\t3\t4\n", "embedded rates: line 2 has 5 fields, expected a model and its three rates"},
		{head + "m\t1\t2\t\nn\tx\t2\t\n", "embedded rates: line 3 (n): a rate that is not a number"},
		{head + "m\t1\t2\t\nn\t1\t-2\t\n", "embedded rates: line 3 (n): a rate that is not a number"},
		{head + "m\t1\t2\tx\n", "embedded rates: line 2 (m): a rate that is not a number"},
	} {
		if _, err := readRates(tc.text); err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %s", tc.text, err, tc.want)
		}
	}
	tab, err := readRates(head + "m\t1\t2\t\nn\t0.5\t2\t0.25")
	if err != nil || tab.Len() != 2 || tab.Updated != "2026" || tab.rates["m"].cached != nil || tab.rates["n"].cached.FloatString(2) != "0.25" {
		t.Errorf("two models, the last line without a line break: %v, %+v", err, tab)
	}
}
