package engine

import (
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// selectShard keeps the cases of the shard, in suite order.
func selectShard(cases []*Case, s report.Shard) ([]*Case, error) {
	if err := s.Check(); err != nil {
		return nil, diag.List{{Pos: diag.Pos{File: "--shard"}, Kind: "flag", Message: err.Error()}}
	}
	if s.Count == 0 {
		return cases, nil
	}
	var out []*Case
	for _, c := range cases {
		if s.Holds(c.Name) {
			out = append(out, c)
		}
	}
	return out, nil
}
