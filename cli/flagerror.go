package cli

import (
	"flag"
	"fmt"
	"regexp"
	"strings"
)

// FlagError is a wrong flag, said in one line: what was wrong, the flag the
// user most likely meant, and where the whole list is.
type FlagError struct {
	Command string // the command line's words before the flags: mcptest run
	Problem string // unknown flag --html, --filter needs a value
	Hint    string // --reporter html, or "" without a likely one
}

func (e *FlagError) Error() string {
	msg := e.Problem
	if e.Hint != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", e.Hint)
	}
	return msg + fmt.Sprintf("; '%s' lists its flags", helpCommand(e.Command))
}

// helpCommand is the help command for a command line's words: mcptest run
// → mcptest help run.
func helpCommand(command string) string {
	words := strings.Fields(command)
	if len(words) < 2 {
		return command + " --help"
	}
	return words[0] + " help " + words[1]
}

// flagError words the flag package's err about fs.
func (o *output) flagError(fs *flag.FlagSet, err error) *FlagError {
	e := &FlagError{Command: commandWords(o.synopsis), Problem: err.Error()}
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "flag provided but not defined: "):
		name := strings.TrimLeft(strings.TrimPrefix(msg, "flag provided but not defined: "), "-")
		e.Problem = "unknown flag --" + name
		e.Hint = o.hint(fs, name)
	case strings.HasPrefix(msg, "flag needs an argument: "):
		name := strings.TrimLeft(strings.TrimPrefix(msg, "flag needs an argument: "), "-")
		e.Problem = "--" + name + " needs a value"
	default:
		if m := invalidValue.FindStringSubmatch(msg); m != nil {
			e.Problem = "--" + m[2] + " " + m[1]
			if m[3] != "" {
				e.Problem += ": " + m[3]
			}
		}
	}
	return e
}

// invalidValue is the flag package's message for a value its flag
// refused: invalid value "x" for flag -name: why (invalid boolean value for a
// boolean flag).
var invalidValue = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for flag -+([^:]+)(?:: (.*))?$`)

// commandWords are the synopsis's words before its first flag or
// argument: "mcptest run" of "mcptest run [--config suite.yml]".
func commandWords(synopsis string) string {
	var words []string
	for _, w := range strings.Fields(strings.SplitN(synopsis, "\n", 2)[0]) {
		if strings.ContainsAny(w[:1], "[-<(|") || strings.ToUpper(w) == w {
			break
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

// enumFlag is a flag of a synopsis with its values: --reporter
// pretty|json|html.
var enumFlag = regexp.MustCompile(`--([a-z][a-z0-9-]*)[ =]([a-z0-9-]+(?:\|[a-z0-9-]+)+)`)

// hint is the flag the user most likely meant by the unknown name: a value
// of one of the synopsis's flags given as a flag of its own (--html for
// --reporter html), else the one flag the name begins (--lint for
// --lint-descriptions), else the nearest flag name.
func (o *output) hint(fs *flag.FlagSet, name string) string {
	for _, m := range enumFlag.FindAllStringSubmatch(o.synopsis, -1) {
		for _, v := range strings.Split(m[2], "|") {
			if v == name && fs.Lookup(m[1]) != nil {
				return "--" + m[1] + " " + v
			}
		}
	}
	var names, longer []string
	fs.VisitAll(func(f *flag.Flag) {
		names = append(names, f.Name)
		if strings.HasPrefix(f.Name, name) {
			longer = append(longer, f.Name)
		}
	})
	if len(longer) == 1 {
		return "--" + longer[0]
	}
	if o.suggest == nil {
		return ""
	}
	if s := o.suggest(name, names); s != "" {
		return "--" + s
	}
	return ""
}
