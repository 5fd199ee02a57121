// Package cli is the command-line machinery of mcptest that knows no
// subcommand: a flag set whose --help prints a synopsis and every flag the
// way the docs write them, flags parsed before or after the positional
// arguments, the repeatable and duration flags, the shell completion
// scripts written from a table of commands, their words and their flags,
// the progress line a long run rewrites on a terminal, and the CPU and
// allocation profiles MCPTEST_CPUPROFILE and MCPTEST_MEMPROFILE ask for.
// What flows in is
// the command line and the command table cmd/mcptest builds; what flows out
// is help text, scripts and parsed values. It imports nothing of mcptest's,
// so the command table, the exit codes and the wiring stay in cmd/mcptest.
package cli
