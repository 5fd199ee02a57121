//go:build !windows

package main

import "syscall"

// mkfifo makes a named pipe at path, for tests that plant one where mcptest
// expects a regular file.
func mkfifo(path string) error {
	return syscall.Mkfifo(path, 0o644)
}
