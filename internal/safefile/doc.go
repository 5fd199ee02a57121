// Package safefile reads and writes the files mcptest takes from users and
// keeps for itself, with the limits a trust boundary needs.
//
// Reads are bounded before they start: the path is opened without blocking
// (a FIFO never hangs the reader), anything but a regular file is refused,
// a file whose size is over the limit is refused from its stat, and the read
// itself goes through a limited reader so a file that grows while it is read
// still stops at the limit. Writes go to a temporary file in the target's
// directory and are renamed over it, so a reader (or a process killed half
// way) never sees a truncated file. The In variants (OpenIn, ReadFileIn,
// WriteFileIn) do the same inside an os.Root, so neither ".." nor a
// symbolic link leads a workspace-relative name outside its workspace.
// LockDir serializes the processes that read, change and rewrite one file
// of a directory, so a rename never drops another process's change.
//
// The package is a leaf: it imports only the standard library.
package safefile
