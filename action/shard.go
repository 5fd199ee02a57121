package action

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/stamp"
)

// shardMode ends a shard run (mode shard): the shard's envelope is written
// for the merge job, which compares, annotates, comments and decides the
// verdict once for the whole suite. A shard's failing cases do not fail
// the step (the merge job judges them against the baseline); its outputs
// are its counts and report-path.
func (r *run) shardMode(env *report.Envelope) error {
	fmt.Fprintf(r.env.Stdout, "mcptest: shard %s: %s; the merge job (mode: merge) compares the whole suite with the baseline\n",
		env.Run.Shard, plural(len(env.Cases), "case"))
	r.addSummary(func() string {
		return fmt.Sprintf("mcptest shard %s of %s: %d passed, %d failed, %d inconclusive. The merge job compares the whole suite with the baseline.\n",
			env.Run.Shard, annotate.Text(r.in.config, 200), env.Totals.Passed, env.Totals.Failed, env.Totals.Inconclusive)
	})
	r.out["passed"] = fmt.Sprint(env.Totals.Passed)
	r.out["failed"] = fmt.Sprint(env.Totals.Failed)
	r.out["report-path"] = r.in.reportPath
	return r.writeOutputs()
}

// mergeShards is mode merge's run envelope: the shard envelopes the shards
// input names, merged as `mcptest report merge` merges them
// (baseline.Merge) under a run id of its own. Every envelope must be a
// shard of the suite config names, each shard of the split once; the files
// together are bounded by max-artifact-bytes, as the one envelope of an
// unsharded run is.
func (r *run) mergeShards() (*report.Envelope, error) {
	files, err := shardFiles(r.in.shards, r.in.reportPath)
	if err != nil {
		return nil, err
	}
	if err := checkShardSizes(files, r.in.maxBytes); err != nil {
		return nil, err
	}
	in, err := baseline.ReadEnvelopes(files, r.in.maxBytes)
	if err != nil {
		return nil, diag.Input("input shards: %v", err)
	}
	for _, x := range in {
		if x.Envelope.Run.Shard == "" {
			return nil, diag.Input("input shards: %s is not a shard envelope (it has no run.shard): expected only the envelopes the mode: shard jobs wrote, one for each shard 1/n .. n/n", x.Name)
		}
	}
	env, err := baseline.Merge(in)
	if err != nil {
		return nil, diag.Input("input shards: %v", strings.TrimPrefix(err.Error(), "merge: "))
	}
	if want, got := path.Clean(filepath.ToSlash(r.in.config)), path.Clean(env.Suite.Path); want != got {
		return nil, diag.Input("input shards: the shards ran the suite %s but config is %s: expected the config the shard jobs were given (it keys the sticky comment)", got, want)
	}
	env.Run.ID = stamp.NewRunID(time.Now())
	shards := make([]string, len(in))
	for i, x := range in {
		shards[i] = x.Envelope.Run.Shard + " " + x.Name
	}
	fmt.Fprintf(r.env.Stdout, "mcptest: merged %d shard envelopes: %s\n", len(in), annotate.Clean(strings.Join(shards, ", ")))
	return env, nil
}

// shardFiles are the files the shards input names: a directory's *.json
// files, or the files a glob matches, sorted, without report-path (where
// the merged envelope goes). None is an input error.
func shardFiles(spec, reportPath string) ([]string, error) {
	pattern := spec
	if fi, err := os.Stat(spec); err == nil && fi.IsDir() {
		pattern = filepath.Join(spec, "*.json")
	}
	files, err := filepath.Glob(pattern)
	if err != nil {
		return nil, diag.Input("input shards %q: %v; expected a directory or a glob such as mcptest-shards/*.json", spec, err)
	}
	out := files[:0]
	for _, f := range files {
		if !sameFile(f, reportPath) {
			out = append(out, f)
		}
	}
	switch {
	case len(out) == 0:
		return nil, diag.Input("input shards %q: no shard envelope there: expected the files the mode: shard jobs wrote, downloaded into one directory (actions/download-artifact with pattern: and merge-multiple: true)", spec)
	case len(out) > report.MaxShards:
		return nil, diag.Input("input shards %q: %d files: expected at most %d shard envelopes", spec, len(out), report.MaxShards)
	}
	slices.Sort(out)
	return out, nil
}

// sameFile reports whether a and b name one file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// checkShardSizes refuses, from their Lstat, shard files that are not
// regular files (a link planted in the workspace is not followed) or that
// together hold more than limit bytes.
func checkShardSizes(files []string, limit int64) error {
	var total int64
	for _, f := range files {
		fi, err := os.Lstat(f)
		if err != nil {
			return diag.Input("input shards: %v", err)
		}
		if fi.Mode().Type() != 0 {
			return diag.Input("input shards: %s is %s, not a regular file: expected the shard envelopes themselves", f, typeWords(fi.Mode()))
		}
		total += fi.Size()
		if total > limit {
			return diag.Input("input shards: the %d shard envelopes hold more than max-artifact-bytes (%d bytes) together (over it at %s): expected the envelopes of one suite's shards, bounded as one envelope is (raise max-artifact-bytes for a larger suite)", len(files), limit, f)
		}
	}
	return nil
}

// typeWords names a file type for a message.
func typeWords(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	}
	return "a special file"
}
