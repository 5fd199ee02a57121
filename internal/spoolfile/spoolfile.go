package spoolfile

import (
	"errors"
	"os"
)

// File is an open spool file. Its name is gone from the temporary
// directory once Create returns, unless the system refused to remove an
// open file (Windows), in which case Close removes it.
type File struct {
	*os.File
	// name is the file's path while it is still in its directory.
	name string
}

// Create creates a spool file in the system's temporary directory,
// readable by its owner only, that lives as long as it is open: on Linux
// a file of no name (O_TMPFILE); elsewhere, or where the file system
// makes none, named by pattern as os.CreateTemp names it, its name
// removed at once.
func Create(pattern string) (*File, error) {
	if f, ok := openUnnamed(os.TempDir(), pattern); ok {
		return &File{File: f}, nil
	}
	return createNamed(pattern)
}

// createNamed is Create by a name, removed at once: the file has a name
// for the moment between the two.
func createNamed(pattern string) (*File, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, err
	}
	s := &File{File: f}
	if err := os.Remove(f.Name()); err != nil {
		s.name = f.Name()
	}
	return s, nil
}

// Close closes the file, and removes it where Create could not.
func (f *File) Close() error {
	err := f.File.Close()
	if f.name != "" {
		if rerr := os.Remove(f.name); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
		f.name = ""
	}
	return err
}
