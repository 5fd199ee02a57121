package engine

import (
	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/gate"
)

// TokenEfficiencyBlock is a token_efficiency: block: the classes of its
// selection F1. On replay the tool surface it prices is the catalog the
// cassettes recorded (gate.TokenEfficiency).
type TokenEfficiencyBlock struct {
	Pos     diag.Pos
	Classes []gate.Class
}
