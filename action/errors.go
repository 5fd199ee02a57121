package action

import (
	"errors"
	"fmt"
)

// ErrFailed is returned when the gate failed. The Action has reported why
// (annotations, summary, outputs); the step exits with code 1.
var ErrFailed = errors.New("the gate failed")

// InputError is wrong input: an input, the event payload, a baseline file,
// a pull request run's artifact. The step exits with code 2.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the error inside.
func (e *InputError) Unwrap() error { return e.Err }

// inputErr is an *InputError with a formatted message.
func inputErr(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}
