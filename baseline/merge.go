package baseline

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"
)

// Input is one envelope to merge and the name (usually its file) errors
// call it by.
type Input struct {
	Name     string
	Envelope *report.Envelope
}

// Merge combines the envelopes of the shards of one run (mcptest run
// --shard i/n, for every i) into the envelope the unsharded run writes:
// the cases in suite order (by position: file, line, column), totals and
// verdict recounted. The merged run keeps the mode, the earliest start and
// the longest duration; its id is left for the caller and it has no shard.
// The reliability summary is recomputed from the cases' raw counts (never
// by averaging the shards' summaries) and the suite floors, deferred on each
// shard, are decided on it.
// A run's mode follows the cases it ran (live when one called a server), so
// shards of one suite may differ in mode: the merged run is live when any
// shard is.
//
// Envelopes that were not sharded may be merged too (runs of disjoint
// --filter selections, say), but not mixed with shards.
//
// It is an error, naming the files, to merge envelopes of different schema
// versions, mcptest versions, suites (path or sha256),
// sources or price tables; shards of different counts, a shard given twice, a missing
// shard, a case in the wrong shard, and a case present twice.
func Merge(in []Input) (*report.Envelope, error) {
	out, err := MergeHeads(in)
	if err != nil {
		return nil, err
	}
	for _, x := range in {
		if x.Envelope.Run.Shard == "" {
			continue
		}
		sh, _ := report.ParseShard(x.Envelope.Run.Shard)
		for _, c := range x.Envelope.Cases {
			if c != nil && !sh.Holds(c.Name) {
				return nil, WrongShard(x.Name, sh, c.Name)
			}
		}
	}
	owner := map[string]string{}
	for _, x := range in {
		for i, c := range x.Envelope.Cases {
			if c == nil {
				return nil, fmt.Errorf("merge: %s: cases[%d] is null", x.Name, i)
			}
			if prev, dup := owner[c.Name]; dup {
				return nil, Duplicate(c.Name, prev, x.Name)
			}
			owner[c.Name] = x.Name
			out.Cases = append(out.Cases, c)
		}
	}
	sort.SliceStable(out.Cases, func(i, j int) bool {
		a, b := out.Cases[i].Position, out.Cases[j].Position
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	// The summary is recounted from the merged cases' counts, and the
	// suite's floors, deferred on every shard, are decided on it.
	out.Summarize(expr.JudgeFloor)
	out.Tally()
	return out, nil
}

// MergeHeads checks that the envelopes in are of one run (Merge says
// how) from everything but their cases, and returns the merged envelope
// without cases, summary, totals and verdict: what a merge that streams
// the cases (report/envstream) completes.
func MergeHeads(in []Input) (*report.Envelope, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("merge: no envelopes given")
	}
	first := in[0].Envelope
	for _, x := range in[1:] {
		e := x.Envelope
		switch {
		case e.SchemaVersion != first.SchemaVersion:
			return nil, mismatch(in[0], x, "schema_version", fmt.Sprint(first.SchemaVersion), fmt.Sprint(e.SchemaVersion))
		case e.Tool != first.Tool:
			return nil, mismatch(in[0], x, "mcptest version", first.Tool.Name+" "+first.Tool.Version, e.Tool.Name+" "+e.Tool.Version)
		case e.Suite.SHA256 != first.Suite.SHA256:
			return nil, mismatch(in[0], x, "suite sha256", first.Suite.SHA256, e.Suite.SHA256)
		case e.Suite.Path != first.Suite.Path:
			return nil, mismatch(in[0], x, "suite path", first.Suite.Path, e.Suite.Path)
		case !reflect.DeepEqual(e.Source, first.Source):
			return nil, mismatch(in[0], x, "source", sourceWords(first.Source), sourceWords(e.Source))
		}
	}
	if err := checkShards(in); err != nil {
		return nil, err
	}
	out := &report.Envelope{
		SchemaVersion: first.SchemaVersion,
		Tool:          first.Tool,
		Run:           report.RunInfo{Mode: first.Run.Mode},
		Source:        first.Source,
		Suite:         first.Suite,
		Cases:         []*report.CaseResult{},
		Environment:   first.Environment,
		Servers:       mergeServers(in),
		Floors:        slices.Clone(first.Floors),
	}
	mergeCatalogs(in).Fill(out)
	var priced *Input
	for i, x := range in {
		e := x.Envelope
		// A shard whose cases priced no run names no table; the others
		// must name the same one.
		if e.Prices != nil && priced != nil && *e.Prices != *priced.Envelope.Prices {
			return nil, mismatch(*priced, x, "price table", priced.Envelope.Prices.SHA256, e.Prices.SHA256)
		}
		if e.Prices != nil && priced == nil {
			priced = &in[i]
			out.Prices = e.Prices
		}
		if e.Run.StartedAt != "" && (out.Run.StartedAt == "" || e.Run.StartedAt < out.Run.StartedAt) {
			out.Run.StartedAt = e.Run.StartedAt
		}
		out.Run.DurationMS = max(out.Run.DurationMS, e.Run.DurationMS)
		out.Run.Cached += e.Run.Cached
		if e.Run.Mode == "live" {
			out.Run.Mode = "live"
		}
	}
	return out, nil
}

// Duplicate is the error of a case that two envelopes to merge (or one,
// twice) hold.
func Duplicate(name, prev, file string) error {
	return fmt.Errorf("merge: case %q is in both %s and %s: the envelopes overlap (merge each shard once)", name, prev, file)
}

// WrongShard is the error of a shard envelope holding a case of another
// shard.
func WrongShard(file string, sh report.Shard, name string) error {
	return fmt.Errorf("merge: %s is shard %s but holds case %q, which belongs to another shard", file, sh, name)
}

// mergeServers is the first shard's server list with, per server, the
// union of the tools every shard's live tests saw it list (a shard whose
// tests never connected to a server lists none for it).
func mergeServers(in []Input) []report.ServerInfo {
	out := slices.Clone(in[0].Envelope.Servers)
	for i := range out {
		var tools []string
		for _, x := range in {
			for _, si := range x.Envelope.Servers {
				if si.Name == out[i].Name {
					tools = append(tools, si.Tools...)
				}
			}
		}
		slices.Sort(tools)
		out[i].Tools = slices.Compact(tools)
		if len(out[i].Tools) == 0 {
			out[i].Tools = nil
		}
	}
	return out
}

// mergeCatalogs is the union of the inputs' catalogs, within the bound
// each input's catalogs_from says it applied and the bound of one
// envelope: the catalogs the unsharded run keeps (report.CatalogTable).
func mergeCatalogs(in []Input) *report.CatalogTable {
	var t report.CatalogTable
	for _, x := range in {
		t.DropFrom(x.Envelope.CatalogsFrom)
		for i := range x.Envelope.Catalogs {
			t.Add(&x.Envelope.Catalogs[i])
		}
	}
	return &t
}

func mismatch(a, b Input, what, va, vb string) error {
	return fmt.Errorf("merge: %s and %s are not shards of one run: %s %s vs %s", a.Name, b.Name, what, va, vb)
}

func sourceWords(s *report.Source) string {
	if s == nil {
		return "(none)"
	}
	return fmt.Sprintf("%s@%s (%s)", s.Repo, s.Commit, s.Branch)
}

// checkShards checks that the inputs are all unsharded, or exactly the
// shards 1/n .. n/n, each once, each holding only its own cases.
func checkShards(in []Input) error {
	var sharded, whole []string
	n := 0
	have := map[int]string{}
	for _, x := range in {
		if x.Envelope.Run.Shard == "" {
			whole = append(whole, x.Name)
			continue
		}
		sh, err := report.ParseShard(x.Envelope.Run.Shard)
		if err != nil {
			return fmt.Errorf("merge: %s: run.shard: %v", x.Name, err)
		}
		sharded = append(sharded, x.Name)
		if n == 0 {
			n = sh.Count
		} else if sh.Count != n {
			return fmt.Errorf("merge: %s is shard %s but %s is one of %d shards: merge the shards of one split", x.Name, sh, sharded[0], n)
		}
		if prev, dup := have[sh.Index]; dup {
			return fmt.Errorf("merge: shard %s is given twice (%s and %s)", sh, prev, x.Name)
		}
		have[sh.Index] = x.Name
	}
	if len(sharded) > 0 && len(whole) > 0 {
		return fmt.Errorf("merge: %s is shard %s of a run but %s is not a shard: merge the shards of one run", sharded[0], in[indexOf(in, sharded[0])].Envelope.Run.Shard, whole[0])
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if _, ok := have[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		word := "shard"
		if len(missing) > 1 {
			word = "shards"
		}
		return fmt.Errorf("merge: incomplete: %s %s missing (every shard 1/%d .. %d/%d is needed)", word, strings.Join(missing, ", "), n, n, n)
	}
	return nil
}

func indexOf(in []Input, name string) int {
	for i, x := range in {
		if x.Name == name {
			return i
		}
	}
	return 0
}
