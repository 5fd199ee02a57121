package engine

import (
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// selectShard keeps the cases of the shard, in suite order.
func selectShard[T named](cases []T, s report.Shard) ([]T, error) {
	if err := s.Check(); err != nil {
		return nil, diag.List{{Pos: diag.Pos{File: "--shard"}, Kind: "flag", Message: err.Error()}}
	}
	if s.Count == 0 {
		return cases, nil
	}
	var out []T
	for _, c := range cases {
		if s.Holds(c.caseName()) {
			out = append(out, c)
		}
	}
	return out, nil
}
