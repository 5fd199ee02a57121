package history

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
)

// MaxRuns bounds the envelopes one history reads.
const MaxRuns = 1000

// FileOptions say which envelope files a history reads and how it links
// them.
type FileOptions struct {
	Options
	// Last keeps the newest Last runs of the window (0: all, up to
	// MaxRuns).
	Last int
	// LinkDir, when set, is the directory of the page that links each
	// run's evidence: a flip links the run's report (the envelope's file
	// name with .html for .json, when that file exists) or else its
	// envelope, by a path relative to LinkDir.
	LinkDir string
}

// Expand lists the envelope files of args: a file as it is, a directory's
// *.json files (not its subdirectories), in name order. An argument that
// does not exist is a *diag.InputError.
func Expand(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, &diag.InputError{Err: fmt.Errorf("%s: no such file or directory", a)}
			}
			return nil, &diag.InputError{Err: err}
		}
		if !fi.IsDir() {
			out = append(out, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, &diag.InputError{Err: err}
		}
		for _, e := range entries {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") && !safefile.IsTemp(e.Name()) {
				out = append(out, filepath.Join(a, e.Name()))
			}
		}
	}
	return out, nil
}

// Order reads the head of each file (ReadHead) and returns the runs oldest
// first: by run.started_at as a time (RFC 3339), then run.started_at as
// written, then run.id, then the path. A commit names a run but does not
// order it: commits have no order without the repository. With last > 0
// only the newest last runs are kept. A file that does not read is a
// *diag.InputError naming it.
func Order(paths []string, last int) ([]Run, error) {
	if len(paths) > MaxRuns && (last <= 0 || last > MaxRuns) {
		last = MaxRuns
	}
	runs := make([]Run, 0, len(paths))
	for _, p := range paths {
		var r Run
		err := readFile(p, func(f *os.File) (err error) {
			r, err = ReadHead(f, p)
			return err
		})
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	slices.SortStableFunc(runs, compareRuns)
	if last > 0 && len(runs) > last {
		runs = runs[len(runs)-last:]
	}
	for i := range runs {
		runs[i].Index = i
	}
	return runs, nil
}

func compareRuns(a, b Run) int {
	ta, ea := time.Parse(time.RFC3339Nano, a.StartedAt)
	tb, eb := time.Parse(time.RFC3339Nano, b.StartedAt)
	if ea == nil && eb == nil {
		if c := ta.Compare(tb); c != 0 {
			return c
		}
	} else if (ea == nil) != (eb == nil) {
		if ea != nil {
			return -1 // a run without a readable time sorts first
		}
		return 1
	}
	return cmp.Or(strings.Compare(a.StartedAt, b.StartedAt), strings.Compare(a.ID, b.ID), strings.Compare(a.Name, b.Name))
}

// readFile opens path bounded at MaxEnvelopeBytes (a FIFO, a device or a
// larger file refused from its stat) and hands it to read.
func readFile(path string, read func(*os.File) error) error {
	f, _, err := safefile.Open(path, MaxEnvelopeBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &diag.InputError{Err: fmt.Errorf("%s: no such file", path)}
	case safefile.IsLimit(err):
		return &diag.InputError{Err: fmt.Errorf("%s: not a run envelope: %v", path, err)}
	case err != nil:
		return fmt.Errorf("open run envelope: %w", err)
	}
	defer f.Close()
	if err := read(f); err != nil {
		return &diag.InputError{Err: err}
	}
	return nil
}

// ReadFile reads the envelope at path into a Snapshot named name, bounded
// as BuildFiles reads each (MaxEnvelopeBytes, ReadSnapshot case by case).
func ReadFile(path, name string) (*Snapshot, error) {
	var s *Snapshot
	err := readFile(path, func(f *os.File) (err error) {
		s, err = ReadSnapshot(f, name, 0)
		return err
	})
	return s, err
}

// BuildFiles folds the envelopes at paths (Expand's list), ordered by
// Order, reading one at a time (ReadSnapshot), and links each run's
// evidence as opt.LinkDir says.
func BuildFiles(paths []string, opt FileOptions) (*History, error) {
	runs, err := Order(paths, opt.Last)
	if err != nil {
		return nil, err
	}
	b := NewBuilder(opt.Options)
	for _, r := range runs {
		var s *Snapshot
		err := readFile(r.Name, func(f *os.File) (err error) {
			s, err = ReadSnapshot(f, r.Name, 0)
			return err
		})
		if err != nil {
			return nil, err
		}
		if opt.LinkDir != "" {
			s.Run.Link = evidenceLink(r.Name, opt.LinkDir)
		}
		if err := b.Add(s); err != nil {
			return nil, &diag.InputError{Err: err}
		}
	}
	return b.History(), nil
}

// evidenceLink is the path, relative to dir and with forward slashes, of
// the report page beside the envelope at path (.html for .json) when it
// exists, else of the envelope.
func evidenceLink(path, dir string) string {
	target := path
	if html := strings.TrimSuffix(path, ".json") + ".html"; html != path {
		if fi, err := os.Stat(html); err == nil && fi.Mode().IsRegular() {
			target = html
		}
	}
	at, err1 := filepath.Abs(target)
	ad, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return ""
	}
	rel, err := filepath.Rel(ad, at)
	if err != nil {
		return ""
	}
	rel = filepath.ToSlash(rel)
	if !strings.HasPrefix(rel, "../") {
		rel = "./" + rel // never read as a scheme ("c:...")
	}
	return rel
}
