package redact

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// MinKnown is the shortest value Known masks by value: a shorter one
// would mask ordinary words wherever they appear; String's rules still
// mask it where it stands as a secret (key=value, a URL's password).
const MinKnown = 6

// Known is the set of secrets one invocation was handed (a URL's
// password and query keys, a bearer token read from the environment, the
// value of a secret flag of a server's command line), masked by value
// wherever they appear, in any spelling a message gives them: as
// written, percent-encoded for a URL's query or path, or escaped as a
// JSON string. Its Mask masks the credentials of every URL too (URLs). The zero value is
// empty and ready; safe for concurrent use.
type Known struct {
	mu   sync.RWMutex
	vals []string // longest first
	r    *strings.Replacer
	// lines says a value holds a line break (multiline); bvals is vals
	// as bytes (Clean).
	lines bool
	bvals [][]byte
}

// Add adds values, each with its spellings; values under MinKnown
// characters and Mask itself are left to String's rules.
func (k *Known) Add(values ...string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, v := range values {
		if len(v) < MinKnown || strings.Contains(Mask, v) {
			continue
		}
		js, _ := json.Marshal(v)
		for _, s := range []string{v, url.QueryEscape(v), url.PathEscape(v), string(js[1 : len(js)-1])} {
			if !slices.Contains(k.vals, s) {
				k.vals = append(k.vals, s)
			}
		}
	}
	k.bvals = k.bvals[:0]
	for _, v := range k.vals {
		k.bvals = append(k.bvals, []byte(v))
	}
	k.lines = slices.ContainsFunc(k.vals, func(v string) bool { return strings.ContainsAny(v, "\n\r") })
	slices.SortStableFunc(k.vals, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(k.vals))
	for _, v := range k.vals {
		pairs = append(pairs, v, Mask)
	}
	k.r = strings.NewReplacer(pairs...)
}

// AddURL adds the secrets of a URL (URLSecrets).
func (k *Known) AddURL(raw string) { k.Add(URLSecrets(raw)...) }

// AddArgv adds the secrets of a command line: every value Argv masks
// whole (the value of a flag named like a secret, --token X or
// --token=X) and the secrets of every argument that is a URL.
func (k *Known) AddArgv(argv []string) {
	masked := Argv(argv)
	for i, a := range argv {
		switch {
		case masked[i] == Mask && a != Mask:
			k.Add(a)
		default:
			if name, v, ok := flagParts(a); ok && SecretKey(name) && !isReference(v) {
				k.Add(v)
			}
		}
		if strings.Contains(a, "://") {
			k.AddURL(a[strings.Index(a, "://")-schemeLen(a[:strings.Index(a, "://")]):])
		}
	}
}

// schemeLen is the length of the URL scheme that ends s (the letters,
// digits, + . - before ://).
func schemeLen(s string) int {
	n := 0
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-' {
			n++
			continue
		}
		break
	}
	return n
}

// Clean reports that Mask leaves b as it is, for certain: b holds no
// spelling of a known secret and no "://" (the URL rules read only the
// text around one). A false is no finding, only no proof. A nil Known
// checks the URLs alone.
func (k *Known) Clean(b []byte) bool {
	if indexSep(b) >= 0 {
		return false
	}
	if k == nil {
		return true
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	for _, v := range k.bvals {
		if bytes.Contains(b, v) {
			return false
		}
	}
	return true
}

// indexSep is the index of the first "://" in s, or -1. It looks for
// "//" and checks the byte before: in JSON, where every other word ends
// in a colon, a search for "://" itself runs at a fifteenth of the speed
// (424 MB/s against 7.4 GB/s over a merged envelope).
func indexSep[T string | []byte](s T) int {
	for off := 0; ; {
		i := index(s[off:], "//")
		if i < 0 {
			return -1
		}
		if i += off; i > 0 && s[i-1] == ':' {
			return i - 1
		}
		off = i + 1
	}
}

// index is strings.Index for a string or bytes.
func index[T string | []byte](s T, sub string) int {
	switch v := any(s).(type) {
	case string:
		return strings.Index(v, sub)
	default:
		return bytes.Index(v.([]byte), []byte(sub))
	}
}

// holdFrom is where the end of b that a small write must hold back
// begins (len(b) when nothing need be): the longest end of b that is
// the start of a spelling of a known secret, and the run of text after
// b's last URL break (urls) when it holds a "://" or ends with the
// start of one (a URL's credentials may follow), else from its first
// byte that may begin a URL's parameter (a "://" later in the run makes
// the run a URL, whose parameters the mask reads). No spelling of a
// secret in b runs past that point, so masking the text before it and
// after it apart masks what masking them together would (a URL's
// scheme passed before its "://" is given back by Writer.pass). The
// hold is at most MaxHold bytes.
func (k *Known) holdFrom(b []byte) int {
	var run urlRun
	return k.holdFromRun(b, &run)
}

// urlRun is what holdFrom has read of the bytes a Writer holds, so a
// write reads only the bytes it added (and a few before them), not all
// it holds again: a URL's run of text written a byte at a time read its
// held 64 KiB once per byte (50 KB in one-byte writes: 3.4 s).
type urlRun struct {
	// read is how many bytes of b have been read; brk is the offset of
	// the last URL break among them (-1: none); sep is the offset of
	// the last "://" after it (-1: none); par is the offset of the
	// first byte after it that may begin a URL's parameter, one of
	// paramStarts (-1: none).
	read, brk, sep, par int
	started             bool
	// scanned counts the bytes scan has read, for the test that holds
	// it to the bytes written.
	scanned int
}

// drop tells r the first n bytes of b were passed on.
func (r *urlRun) drop(n int) {
	if !r.started {
		return
	}
	r.read = max(r.read-n, 0)
	// sep and par lie after brk (each is looked for after it, and both
	// are forgotten when it moves), so they stay after it here: one that
	// was passed is gone
	r.brk = max(r.brk-n, -1) // a break passed: the run starts the held bytes
	if r.sep -= n; r.sep < 0 {
		r.sep = -1
	}
	if r.par -= n; r.par < 0 {
		r.par = -1 // passed only past MaxHold: the bytes read are not read again
	}
}

// paramStarts are the bytes that may begin one key=value of a URL's
// query or fragment (urlParam: ?, &, ;, #, or the \ of \u0026).
const paramStarts = "?&;#\\"

// scan reads the bytes of b added since the last scan, and reports
// where the run after b's last URL break starts, whether it holds a
// "://", and where its first byte that may begin a URL's parameter is
// (-1: none).
func (r *urlRun) scan(b []byte) (brk int, sep bool, par int) {
	if !r.started {
		*r = urlRun{brk: -1, sep: -1, par: -1, started: true}
	}
	from := r.read
	if i := bytes.LastIndexAny(b[from:], urlBreaks); i >= 0 {
		r.brk, r.sep, r.par = from+i, -1, -1
	}
	if r.par < 0 {
		lo := max(r.brk+1, from)
		r.scanned += len(b) - lo
		if i := bytes.IndexAny(b[lo:], paramStarts); i >= 0 {
			r.par = lo + i
		}
	}
	// A "://" may begin up to two bytes before the new ones.
	at := max(r.brk+1, from-2)
	r.scanned += len(b) - from + len(b) - at
	for {
		i := indexSep(b[at:])
		if i < 0 {
			break
		}
		r.sep = at + i
		at += i + 1
	}
	r.read = len(b)
	return r.brk, r.sep >= 0, r.par
}

// holdFromRun is holdFrom reading only what run has not read of b.
func (k *Known) holdFromRun(b []byte, run *urlRun) int {
	from := len(b)
	i, sep, par := run.scan(b)
	switch {
	case bytes.HasSuffix(b, []byte(":")) || bytes.HasSuffix(b, []byte(":/")) || sep:
		from = i + 1
	case par >= 0:
		// a "://" later in the run makes it a URL, whose parameters
		// (urlParam) may begin here: masked whole once the run ends
		from = par
	}
	if k != nil {
		k.mu.RLock()
		for _, v := range k.bvals {
			for n := min(len(v)-1, len(b)); n > 0 && len(b)-n < from; n-- {
				if bytes.HasSuffix(b, v[:n]) {
					from = len(b) - n
					break
				}
			}
		}
		// a spelling whole in b may run across the URL's cut: the cut
		// moves to its start (and again, until none runs across)
		for moved := from < len(b); moved; {
			moved = false
			for _, v := range k.bvals {
				lo := max(0, from-len(v)+1)
				if i := bytes.Index(b[lo:min(len(b), from+len(v)-1)], v); i >= 0 && lo+i < from {
					from, moved = lo+i, true
				}
			}
		}
		k.mu.RUnlock()
	}
	return max(from, len(b)-MaxHold)
}

// multiline says a known value holds a line break, so a secret may span
// two lines (NewKnownWriter then masks a write whole).
func (k *Known) multiline() bool {
	if k == nil {
		return false
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.lines
}

// Len is how many spellings of secrets the set holds.
func (k *Known) Len() int {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return len(k.vals)
}

// Mask returns s with every known secret replaced by Mask, then the
// credentials of its URLs (URLs); a nil Known masks the URLs alone.
func (k *Known) Mask(s string) string {
	if k == nil {
		return URLs(s)
	}
	k.mu.RLock()
	r := k.r
	k.mu.RUnlock()
	if r != nil {
		s = r.Replace(s)
	}
	return URLs(s)
}
