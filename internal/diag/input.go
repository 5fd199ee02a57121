package diag

import "fmt"

// InputError is wrong input from the user of a command: a flag value, an
// argument, a file that is missing or is not what it should be. Every
// command exits 2 on it, with its message; a positioned error (*Error,
// List) is wrong input too, printed with its source line.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the error inside.
func (e *InputError) Unwrap() error { return e.Err }

// Input is an *InputError with a formatted message (fmt.Errorf's verbs,
// %w among them).
func Input(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}
