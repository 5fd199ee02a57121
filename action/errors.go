package action

import (
	"errors"
)

// ErrFailed is returned when the gate failed. The Action has reported why
// (annotations, summary, outputs); the step exits with code 1.
var ErrFailed = errors.New("the gate failed")
