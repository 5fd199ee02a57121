package mcpserver

import (
	"flag"

	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/live"
)

// GenerateUsage names the kinds of `mcptest generate`; every usage error of
// generate says it.
const GenerateUsage = "usage: mcptest generate suite|conformance|redteam|eval [flags] " + live.LiveTargetSynopsis + "\n       mcptest generate agent-suite --from CASSETTE... [--join CASSETTE]... [--catalog FILE] [--output FILE]"

// generateSynopses are the usage lines of the kinds Generate renders.
var generateSynopses = map[string]string{
	"suite":       "mcptest generate suite [--probe] [--tool NAME]... [--no-edge] [--no-violation] [--include-writes] [--cursor N] [--output FILE] TARGET",
	"conformance": "mcptest generate conformance [--output FILE] TARGET",
	"redteam":     "mcptest generate redteam [--tool NAME]... [--cursor N] [--output FILE] TARGET",
	"eval":        "mcptest generate eval [--tool NAME]... [--cursor N] [--output FILE] TARGET",
}

// GenerateSynopsis is the usage of `mcptest generate KIND`, ok false for
// a kind Generate does not render; all gives every kind's, and which
// flags go with which, for `generate --help`.
func GenerateSynopsis(kind string, all bool) (synopsis string, ok bool) {
	if all {
		return generateSynopses["suite"] + "\n       " + generateSynopses["conformance"] + "\n       " + generateSynopses["redteam"] + "\n       " + generateSynopses["eval"] +
			"\n  --tool and --cursor go with suite, redteam and eval; --probe, --no-edge, --no-violation and --include-writes with suite", true
	}
	synopsis, ok = generateSynopses[kind]
	return synopsis, ok
}

// GenerateFlags are the flags of `mcptest generate KIND` that shape the
// scaffold (ScaffoldOptions).
type GenerateFlags struct {
	opt                 ScaffoldOptions
	noEdge, noViolation bool
}

// AddGenerateFlags adds kind's scaffold flags to fs: --tool and --cursor
// to every kind but conformance; --probe, --no-edge, --no-violation and
// --include-writes to suite, which has them all.
func AddGenerateFlags(fs *flag.FlagSet, kind string) *GenerateFlags {
	g := &GenerateFlags{}
	if kind != "conformance" {
		fs.Var((*cli.StringList)(&g.opt.Tools), "tool", "scaffold only the tool `NAME` (repeatable)")
		fs.IntVar(&g.opt.Cursor, "cursor", 0, "start at tool `N` of the sorted list: the cursor a note gives when the suite reached its size limit")
	}
	if kind == "suite" {
		fs.BoolVar(&g.opt.Probe, "probe", false, "also emit the schema-derived negative probe cases per tool")
		fs.BoolVar(&g.noEdge, "no-edge", false, "leave out the boundary case per tool")
		fs.BoolVar(&g.noViolation, "no-violation", false, "leave out the schema-violation case per tool")
		fs.BoolVar(&g.opt.IncludeWrites, "include-writes", false, "emit the tests of tools that change state (annotations not readOnlyHint, destructiveHint, or a write or delete name) as live tests; by default they are commented out for review, so the suite never calls them for real")
	}
	return g
}

// Options are the scaffold options the parsed flags give; a negative
// --cursor is wrong input.
func (g *GenerateFlags) Options() (ScaffoldOptions, error) {
	if g.opt.Cursor < 0 {
		return g.opt, diag.Input("--cursor: %d is negative", g.opt.Cursor)
	}
	opt := g.opt
	opt.IncludeEdge, opt.IncludeViolation = !g.noEdge, !g.noViolation
	return opt, nil
}
