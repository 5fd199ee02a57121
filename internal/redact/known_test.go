package redact

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"testing"
)

// TestURLs: the credentials of a URL are masked in every spelling of the
// key services use, after ?, &, ; or # and after & as JSON escapes it;
// other parameters, ${VAR} references and text without a URL are kept.
func TestURLs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://alice:pw@h/mcp?api_key=K&access_token=T", "http://alice:[REDACTED]@h/mcp?api_key=[REDACTED]&access_token=[REDACTED]"},
		{"GET https://h/x?apiKey=a1&api-key=a2&X-API-Key=a3&key=a4&sig=a5&signature=a6&code=a7&page=2", "GET https://h/x?apiKey=[REDACTED]&api-key=[REDACTED]&X-API-Key=[REDACTED]&key=[REDACTED]&sig=[REDACTED]&signature=[REDACTED]&code=[REDACTED]&page=2"},
		{"https://h/#access_token=abc&state=1", "https://h/#access_token=[REDACTED]&state=1"},
		{`{"url":"http://h/mcp?page=2\u0026TOKEN=Si\u0026PWD=x"}`, `{"url":"http://h/mcp?page=2\u0026TOKEN=[REDACTED]\u0026PWD=[REDACTED]"}`},
		{"connect to http://h/mcp?sessionid=abc: refused", "connect to http://h/mcp?sessionid=[REDACTED]: refused"},
		{"http://h/mcp?key=${GH_SECRET}", "http://h/mcp?key=${GH_SECRET}"},
		{"no url here ?token=abc", "no url here ?token=abc"},
		{"auth: bearer", "auth: bearer"},
		{"https://h/x?api%5Fkey=z", "https://h/x?api%5Fkey=[REDACTED]"},
	} {
		got := URLs(c.in)
		if got != c.want {
			t.Errorf("URLs(%q) = %q, want %q", c.in, got, c.want)
		}
		if again := URLs(got); again != got {
			t.Errorf("URLs is not idempotent on %q: %q", got, again)
		}
	}
}

// TestKnown: a known secret is masked as written, percent-encoded and
// JSON-escaped; a value under MinKnown is not masked by value.
func TestKnown(t *testing.T) {
	var k Known
	k.Add("p@ss w\"rd/1", "short")
	k.AddURL("http://alice:hunter22@h/mcp?sig=abcdef12&page=22")
	k.AddArgv([]string{"server", "--token", "tok123456", "--api-key=key123456", "--name", "visible1", "--auth=${VAR}"})
	text := strings.Join([]string{"p@ss w\"rd/1", url.QueryEscape("p@ss w\"rd/1"), url.PathEscape("p@ss w\"rd/1"),
		string(mustJSON("p@ss w\"rd/1")), "hunter22", "abcdef12", "tok123456", "key123456", "short", "visible1", "${VAR}", "page=22"}, " | ")
	got := k.Mask(text)
	for _, secret := range []string{"p@ss", "hunter22", "abcdef12", "tok123456", "key123456"} {
		if strings.Contains(got, secret) {
			t.Errorf("Mask shows %q: %s", secret, got)
		}
	}
	for _, kept := range []string{"short", "visible1", "${VAR}", "page=22"} {
		if !strings.Contains(got, kept) {
			t.Errorf("Mask lost %q: %s", kept, got)
		}
	}
}

func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// TestWriter: a large write's last line is held until the next line
// break, so a secret cut by a chunk boundary is masked; small writes
// pass at once; a line over MaxHold is passed on at a boundary.
func TestWriter(t *testing.T) {
	var k Known
	k.Add("SECRETVALUE1")
	var out bytes.Buffer
	w := NewWriter(&out, k.Mask)
	chunk := strings.Repeat("x", StreamChunk) + "\nthe token is SECRET"
	w.Write([]byte(chunk))
	if strings.Contains(out.String(), "SECRET") {
		t.Fatalf("the tail of a chunk was passed on before its line ended: %q", out.String()[StreamChunk:])
	}
	w.Write([]byte("VALUE1 here\n"))
	if !strings.HasSuffix(out.String(), "the token is [REDACTED] here\n") {
		t.Errorf("split secret: %q", out.String()[StreamChunk:])
	}
	out.Reset()
	w.Write([]byte("\rprogress 3/10"))
	if out.String() != "\rprogress 3/10" {
		t.Errorf("a small write was held: %q", out.String())
	}
	out.Reset()
	long := strings.Repeat("a", MaxHold+StreamChunk) + " tail"
	w.Write([]byte(long))
	if out.Len() == 0 || out.Len() > len(long) {
		t.Errorf("a line over MaxHold: %d bytes passed on of %d", out.Len(), len(long))
	}
	w.Flush()
	if out.String() != long {
		t.Errorf("after Flush the output differs from the input")
	}
}

// FuzzWriter: a known secret written anywhere in a stream that a buffered
// writer passes on in chunks (StreamChunk bytes or more each), cut at any
// byte, never comes out, and NewKnownWriter passes on what NewWriter does.
func FuzzWriter(f *testing.F) {
	f.Add("prefix ", "Sabcdef123456", " suffix\n", uint16(1))
	f.Add("line\n", "tokvalue99", "", uint16(7))
	f.Fuzz(func(t *testing.T, before, secret, after string, cut uint16) {
		if len(secret) < MinKnown || strings.ContainsAny(secret, "\n\r") || strings.Contains(Mask, secret) {
			return
		}
		var k Known
		k.Add(secret)
		pad := strings.Repeat("p", StreamChunk)
		text := pad + "\n" + before + secret + after + pad
		// the cut falls anywhere in before+secret+after, each part a chunk
		a := StreamChunk + 1 + int(cut)%(len(before)+len(secret)+len(after)+1)
		var out, known bytes.Buffer
		w, kw := NewWriter(&out, k.Mask), NewKnownWriter(&known, &k)
		w.Write([]byte(text[:a]))
		w.Write([]byte(text[a:]))
		w.Flush()
		kw.Write([]byte(text[:a]))
		kw.Write([]byte(text[a:]))
		kw.Flush()
		if strings.Contains(out.String(), secret) {
			t.Fatalf("the secret %q came out", secret)
		}
		if known.String() != out.String() {
			t.Fatalf("NewKnownWriter gave %q, NewWriter %q", known.String(), out.String())
		}
	})
}

// BenchmarkWriter is the mask's cost on a report: 4 KiB chunks of JSON
// lines that hold URLs, as a buffered encoder writes them.
func BenchmarkWriter(b *testing.B) {
	var k Known
	k.AddURL("http://alice:hunter22pw@h/mcp?api_key=abcdefgh12")
	line := `    "url": "https://example.com/mcp?page=2&q=weather", "message": "call 3 of tool search returned 12 results",` + "\n"
	chunk := []byte(strings.Repeat(line, 4096/len(line)))
	b.SetBytes(int64(len(chunk)))
	w := NewWriter(io.Discard, k.Mask)
	for b.Loop() {
		w.Write(chunk)
	}
}
