package live

import (
	"slices"
	"testing"
)

// TestCommandLine: a stdio server's argv comes after -- or as --command
// with its --arg list, never both, and no --arg without --command.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		after   []string
		command string
		args    []string
		want    []string
		err     string
	}{
		{nil, "", nil, nil, ""},
		{[]string{"srv", "-v"}, "", nil, []string{"srv", "-v"}, ""},
		{nil, "srv", []string{"-v", "x"}, []string{"srv", "-v", "x"}, ""},
		{[]string{"srv"}, "other", nil, nil, "--command and -- COMMAND both name the server's command: give one of them"},
		{nil, "", []string{"-v"}, nil, `--arg "-v" has no --command: --arg adds an argument to --command CMD`},
	} {
		got, err := CommandLine(tc.after, tc.command, tc.args)
		if (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) || !slices.Equal(got, tc.want) {
			t.Errorf("CommandLine(%q, %q, %q) = %q, %v; want %q, %s", tc.after, tc.command, tc.args, got, err, tc.want, tc.err)
		}
	}
}
