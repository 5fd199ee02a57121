package main

import "errors"

// mkfifo is not available on Windows: the tests that plant a named pipe
// skip.
func mkfifo(string) error {
	return errors.New("no named pipes on Windows")
}
