package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// cassetteUse is what a case does with its recordings, file by file: open
// sees a cassette's provenance and catalog before any of its runs, run
// sees each of its runs in file order. Either may be nil.
type cassetteUse struct {
	open func(*cassette.Cassette)
	run  func(*cassette.Cassette, *cassette.Run)
	// adapt, when set, turns each cassette and run into what the case
	// reads before anything reads them: joined with the case's other
	// sources and with its aliases applied (join.go); r is nil for a
	// cassette of no runs.
	adapt func(cas *cassette.Cassette, r *cassette.Run) (*cassette.Cassette, *cassette.Run)
	// files are the files to stream, nil for all of the plan's; digest,
	// when set, already holds the plan's other files (a join's other
	// sources, read first) and takes these after them.
	files  []string
	digest hash.Hash
}

// eachCassette reads a case's cassette files one at a time, in order, and
// streams each one's runs to use as they are decoded (cassette.Stream), so
// no more than one cassette file and one of its runs are held at once. It
// fills res.Model from the first cassette and res.Cassettes with the file
// count and a digest over the files' suite-relative paths and contents,
// res.Tools with the tools the recordings offered and called, and returns
// every file that could not be read as positioned errors. A file found
// broken after some of its runs were used fails the run with those errors,
// so what the runs added is never reported.
func eachCassette(s *Suite, p casePlan, res *report.CaseResult, progress func(), use cassetteUse) diag.List {
	var errs diag.List
	digest, files := use.digest, use.files
	if digest == nil {
		digest = sha256.New()
	}
	if files == nil {
		files = p.files
	}
	tools := toolTally{}
	priced := 0
	unpriced := map[string]bool{}
	for _, f := range files {
		name := displayPath(f)
		var size int64
		if p.budget != nil {
			size = fileSize(f)
			p.budget.take(size)
		}
		data, err := cassette.Load(f, name)
		if err != nil {
			p.budget.give(size)
			errs = append(errs, asDiag(name, err)...)
			progress()
			continue
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(digest, "%s\x00%s\n", suiteRelative(s, f), hex.EncodeToString(sum[:]))
		var owner map[string]string
		opened := false
		open := func(cas *cassette.Cassette) {
			opened = true
			if res.Model == "" {
				res.Model = oneLine(cas.Model)
			}
			owner = tools.addCatalog(cas)
			for _, w := range cas.Warnings {
				res.Findings = append(res.Findings, report.Finding{Level: "warning", Message: w, Position: &diag.Pos{File: name}})
			}
			if use.open != nil {
				use.open(cas)
			}
		}
		cas, err := cassette.Stream(name, data, func(cas *cassette.Cassette, r *cassette.Run) {
			if use.adapt != nil {
				cas, r = use.adapt(cas, r)
			}
			if !opened {
				open(cas)
			}
			switch ok, known := price(p, cas.Model, r); {
			case ok:
				priced++
			case !known:
				unpriced[oneLine(cas.Model)] = true
			}
			tools.addRun(owner, r)
			if use.run != nil {
				use.run(cas, r)
			}
		})
		p.budget.give(size)
		progress()
		if err != nil {
			errs = append(errs, asDiag(name, err)...)
			continue
		}
		if !opened && use.adapt != nil {
			cas, _ = use.adapt(cas, nil)
		}
		if !opened {
			open(cas)
		}
	}
	res.Cassettes = &report.CassetteSet{Files: len(p.files), SHA256: hex.EncodeToString(digest.Sum(nil))}
	res.Tools = tools.list()
	res.PricedRuns = priced
	res.UnpricedModels = slices.Sorted(maps.Keys(unpriced))
	if len(res.UnpricedModels) == 0 {
		res.UnpricedModels = nil
	}
	return errs
}

// fileSize is the size of the file at path for the read budget: 0 when it
// cannot be read, which Load then reports, and at most cassette.MaxSize,
// which Load refuses to exceed.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return min(fi.Size(), cassette.MaxSize)
}

// price fills the cost of a run that recorded tokens but no cost from the
// price table, when the table has the model's rates. It reports whether it
// did (ok; a recorded cost is never replaced) and known, false when the run
// needed a price and the table has no entry for its model.
func price(p casePlan, model string, r *cassette.Run) (ok, known bool) {
	if r.CostMicros != nil || r.Tokens == nil {
		return false, true
	}
	t := p.table()
	if t == nil {
		return false, true
	}
	if _, found := t.Lookup(model); !found {
		return false, false
	}
	micros, ok := t.CostMicrosCached(model, r.Tokens.Input, r.Tokens.Cached, r.Tokens.Output)
	if ok {
		r.CostMicros = &micros
	}
	return ok, true
}

// oneLine returns recorded text for a one-line envelope field: as it is
// when every character prints, else with Go escapes (\n, \u202e), so a
// newline or a bidi override in a recording cannot break the line it is
// printed on, and the envelope stays one that Envelope.Check accepts.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
