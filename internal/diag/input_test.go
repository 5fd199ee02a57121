package diag

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestInput(t *testing.T) {
	err := fmt.Errorf("read the baseline: %w", Input("%s: %w", "base.json", fs.ErrNotExist))
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("%v: not an *InputError", err)
	}
	if got, want := ie.Error(), "base.json: file does not exist"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%v: the wrapped error is lost", err)
	}
}
