package cassette

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
)

// An Inspect AI ".eval" log is a zip archive: header.json (the EvalLog
// without its samples; _journal/start.json while the eval runs),
// samples/<id>_epoch_<n>.json (one EvalSample each), summaries.json,
// reductions.json and _journal/ entries, which the reader passes over.
// A zip is untrusted input that can claim or hold far more than its own
// size (a zip bomb), so the reader bounds it before and while it reads:
const (
	// maxArchiveEntries is the most entries an archive may list, checked
	// on the count its end record gives, before its directory is read.
	maxArchiveEntries = 20000
	// maxArchiveDirectory bounds the size of the central directory.
	maxArchiveDirectory = 8 << 20
	// maxArchiveTotal bounds the bytes all the members read inflate to.
	maxArchiveTotal = 4 * MaxSize
	// maxArchiveRatio bounds how many times its compressed size a member
	// over minRatioCheck bytes may inflate to (JSON logs compress 5 to 20
	// times).
	maxArchiveRatio = 200
	minRatioCheck   = 1 << 20
)

// isZip reports whether data starts as a zip archive does: a local file
// header, or the end record of an empty archive.
func isZip(data []byte) bool {
	return bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("PK\x05\x06"))
}

// archiveError is a problem of the archive itself, placed at its start:
// the file is binary, its lines are not to be shown.
func archiveError(path, format string, args ...any) *diag.Error {
	return &diag.Error{Pos: diag.Pos{File: path, Line: 1, Col: 1}, Kind: kind, HideSource: true,
		Message: "Inspect eval log archive: " + fmt.Sprintf(format, args...)}
}

// endRecord returns the entry count and the directory size the end of
// central directory record of data gives; ok is false when there is none.
func endRecord(data []byte) (entries, dirSize uint64, ok bool) {
	const recLen = 22
	start := max(0, len(data)-recLen-0xFFFF)
	for i := len(data) - recLen; i >= start; i-- {
		if bytes.Equal(data[i:i+4], []byte("PK\x05\x06")) {
			rec := data[i:]
			return uint64(binary.LittleEndian.Uint16(rec[10:])), uint64(binary.LittleEndian.Uint32(rec[12:])), true
		}
	}
	return 0, 0, false
}

// archiveMember is one entry of the archive the reader reads.
type archiveMember struct {
	f *zip.File
	// id and epoch order the samples as Inspect does: by epoch, then id.
	id    string
	epoch int
}

// streamInspectArchive reads an Inspect ".eval" archive as Stream reads a
// document: the provenance from header.json (or _journal/start.json),
// then each sample, in Inspect's order (by epoch, then sample id), a run
// handed to each. A problem in a member is placed in that member (its
// line and column) and names it.
func streamInspectArchive(path string, data []byte, each func(*Cassette, *Run)) (*Cassette, error) {
	zr, err := openArchive(path, data)
	if err != nil {
		return nil, err
	}
	header, samples := archiveMembers(zr)
	if header == nil {
		return nil, archiveError(path, "the archive holds no header.json (nor _journal/start.json): "+
			"an Inspect .eval log names its eval there")
	}
	ar := &archive{path: path}
	hdata, ok := ar.member(header)
	if !ok {
		return nil, ar.err()
	}
	var c *Cassette
	ar.doc(header.Name, hdata, func(w *walker, v any) {
		root, ok := v.(map[string]any)
		if !ok {
			w.typeError(v, `the eval log's header, an object {"version", "eval", ...}`)
			return
		}
		c = inspectHeader(root)
	})
	if c == nil {
		return nil, ar.err()
	}
	if len(samples) == 0 {
		ar.add(archiveError(path, "the archive holds no samples/*.json (written with --no-log-samples, or the eval has not "+
			"finished a sample): there is no run to gate; keep the samples in the log"))
	}
	ids := map[string]bool{}
	for _, s := range samples {
		if !ar.sample(c, s, each) || ar.full() {
			break
		}
		ids[s.id] = true
	}
	if err := ar.err(); err != nil {
		return nil, err
	}
	c.Warnings = append(inspectWarnings(len(ids)), c.Warnings...)
	c.Path = path
	return c, nil
}

// openArchive opens the zip archive data within the bounds on its entries
// and its directory, checked on its end record before the directory is
// read.
func openArchive(path string, data []byte) (*zip.Reader, error) {
	entries, dirSize, ok := endRecord(data)
	switch {
	case !ok:
		return nil, archiveError(path, "the zip archive has no end of central directory record: the file is cut short or not a zip")
	case entries == 0xFFFF || entries > maxArchiveEntries:
		return nil, archiveError(path, "the archive lists %d entries or more, over the limit of %d", entries, maxArchiveEntries)
	case dirSize > maxArchiveDirectory:
		return nil, archiveError(path, "the archive's directory is %s, over the limit of %s",
			safefile.Size(int64(dirSize)), safefile.Size(maxArchiveDirectory))
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, archiveError(path, "not a readable zip archive: %v", err)
	}
	if len(zr.File) > maxArchiveEntries {
		return nil, archiveError(path, "the archive holds %d entries, over the limit of %d", len(zr.File), maxArchiveEntries)
	}
	return zr, nil
}

// archiveMembers finds the members of an Inspect archive the reader reads:
// the header (header.json, else _journal/start.json) and the samples, in
// Inspect's order (by epoch, then by id).
func archiveMembers(zr *zip.Reader) (*zip.File, []archiveMember) {
	var header, start *zip.File
	var samples []archiveMember
	for _, f := range zr.File {
		switch name := f.Name; {
		case name == "header.json":
			header = f
		case name == "_journal/start.json":
			start = f
		case strings.HasPrefix(name, "samples/") && strings.HasSuffix(name, ".json"):
			id, epoch := sampleName(strings.TrimSuffix(strings.TrimPrefix(name, "samples/"), ".json"))
			samples = append(samples, archiveMember{f: f, id: id, epoch: epoch})
		}
	}
	if header == nil {
		header = start
	}
	sort.SliceStable(samples, func(i, j int) bool {
		a, b := samples[i], samples[j]
		if a.epoch != b.epoch {
			return a.epoch < b.epoch
		}
		return idLess(a.id, b.id)
	})
	return header, samples
}

// sample reads the sample member s as a run of c, handed to each while
// the archive has shown no problem; false when it could not be inflated.
func (a *archive) sample(c *Cassette, s archiveMember, each func(*Cassette, *Run)) bool {
	data, ok := a.member(s.f)
	if !ok {
		return false
	}
	a.doc(s.f.Name, data, func(w *walker, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			w.typeError(v, `a sample {"id", "epoch", "messages": [...]}`)
			return
		}
		run := inspectSample(w, c, m)
		if len(w.probs) == 0 {
			check(w, &Cassette{Format: FormatInspect, Runs: []Run{run}}, v)
		}
		if len(w.probs) == 0 && len(w.dups) == 0 && a.clean() && each != nil {
			each(c, &run)
		}
	})
	return true
}

// sampleName splits a sample member's name, "<id>_epoch_<n>", into the id
// and the epoch (0 when the name does not say).
func sampleName(name string) (string, int) {
	i := strings.LastIndex(name, "_epoch_")
	if i < 0 {
		return name, 0
	}
	n, err := strconv.Atoi(name[i+len("_epoch_"):])
	if err != nil {
		return name, 0
	}
	return name[:i], n
}

// idLess orders sample ids as Inspect does: numbers by value, before
// strings, strings by their text.
func idLess(a, b string) bool {
	na, errA := strconv.ParseUint(a, 10, 63)
	nb, errB := strconv.ParseUint(b, 10, 63)
	switch {
	case errA == nil && errB == nil:
		return na < nb
	case errA == nil || errB == nil:
		return errA == nil
	}
	return a < b
}

// archive reads the members of an archive, within its bounds, and
// collects the errors of the members read.
type archive struct {
	path  string
	total uint64
	errs  diag.List
}

func (a *archive) add(err error) {
	var l diag.List
	var e *diag.Error
	switch {
	case errors.As(err, &l):
	case errors.As(err, &e):
		l = diag.List{e}
	default:
		l = diag.List{archiveError(a.path, "%v", err)}
	}
	a.errs = append(a.errs, l...)
}

func (a *archive) clean() bool { return len(a.errs) == 0 }
func (a *archive) full() bool  { return len(a.errs) >= maxProblems }

func (a *archive) err() error {
	if len(a.errs) == 0 {
		return nil
	}
	l := a.errs
	if len(l) > maxProblems {
		l = l[:maxProblems]
	}
	return asError(l)
}

// member inflates the member f within the bounds: its method, its size
// (claimed and read), its ratio, and the archive's total; ok is false,
// the problem recorded, when it is out of them or does not inflate.
func (a *archive) member(f *zip.File) ([]byte, bool) {
	fail := func(format string, args ...any) ([]byte, bool) {
		a.add(archiveError(a.path, "member %s: %s", strconv.Quote(f.Name), fmt.Sprintf(format, args...)))
		return nil, false
	}
	if f.Method != zip.Store && f.Method != zip.Deflate {
		return fail("compressed with method %d: the reader takes stored and deflated members", f.Method)
	}
	ratioOK := func(n uint64) bool {
		return n <= minRatioCheck || n <= maxArchiveRatio*max(f.CompressedSize64, 1)
	}
	switch {
	case f.UncompressedSize64 > MaxSize:
		return fail("it inflates to %d bytes, over the %s limit for a member", f.UncompressedSize64, safefile.Size(MaxSize))
	case !ratioOK(f.UncompressedSize64):
		return fail("it inflates %d times its compressed size, over the limit of %d: a zip bomb, not a log",
			f.UncompressedSize64/max(f.CompressedSize64, 1), maxArchiveRatio)
	case a.total+f.UncompressedSize64 > maxArchiveTotal:
		return fail("the members read inflate to over %s, the limit for an archive", safefile.Size(maxArchiveTotal))
	}
	rc, err := f.Open()
	if err != nil {
		return fail("%v", err)
	}
	defer rc.Close()
	// The sizes the directory claims may lie: the bytes read are bounded
	// by the claim, and archive/zip checks the claim and the checksum at
	// the end.
	data, err := io.ReadAll(io.LimitReader(rc, int64(f.UncompressedSize64)+1))
	switch {
	case err != nil:
		return fail("it does not inflate: %v", err)
	case uint64(len(data)) > f.UncompressedSize64:
		return fail("it inflates past the size its directory entry claims")
	}
	// A read that stopped at the claimed size has not seen the end of the
	// stream, where the checksum is checked: read it.
	if _, err := rc.Read(make([]byte, 1)); err != nil && err != io.EOF {
		return fail("it does not inflate: %v", err)
	}
	a.total += uint64(len(data))
	return data, true
}

// doc decodes the JSON document data, the member named name, and hands
// its value to read with a walker for its problems, which are placed in
// the member and name it.
func (a *archive) doc(name string, data []byte, read func(w *walker, v any)) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !validJSON(data) {
		e := syntaxErrorAt(a.path, data, json.Unmarshal(data, new(struct{})))
		e.HideSource = true
		e.Message = "in " + name + ": " + e.Message
		a.add(e)
		return
	}
	w := &walker{}
	d := newDecoder(data, w)
	v, _ := d.value(d.space(0))
	if d.rangeOff >= 0 {
		e := errorAt(a.path, data, d.rangeOff, "",
			fmt.Sprintf("in %s: number %s is out of range: a JSON number must fit a 64-bit float", name, clip(d.rangeLit, 40)))
		e.HideSource = true
		a.add(e)
		return
	}
	if d.overOff >= 0 {
		a.add(d.overError(a.path, "in "+name+": "))
		return
	}
	read(w, v)
	if !d.clean() {
		err := errorsAt(a.path, data, w)
		var l diag.List
		var e *diag.Error
		switch {
		case errors.As(err, &l):
		case errors.As(err, &e):
			l = diag.List{e}
		}
		for _, e := range l {
			e.Message = "in " + name + ": " + e.Message
		}
		a.add(l)
	}
}
