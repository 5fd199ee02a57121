package baseline

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcptest/mcptest/internal/safefile"
)

// maxQuoted is how many bytes of an untrusted name a message shows.
const maxQuoted = 80

// quote renders an untrusted name (a zip entry, a value of an API answer)
// for a message: quoted as %q does, so no line break, escape or control
// character gets through, and clipped to maxQuoted bytes, saying how long
// it was.
func quote(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// ReadArtifactEntry returns the one entry called name from an artifact
// zip held in memory, read under a cap of max bytes. The archive is
// untrusted: it is refused, not repaired, when any entry has an absolute
// path, a `..` element, a backslash or a drive letter, is a symbolic link
// or another non-regular file, or declares (or turns out to inflate to)
// more than max bytes, and when the entry is missing or present twice.
// Other regular entries are ignored, never read. Entry names are quoted
// and clipped in every error.
func ReadArtifactEntry(data []byte, name string, max int64) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("artifact: not a zip archive: %w", err)
	}
	var found *zip.File
	for _, f := range zr.File {
		n := f.Name
		if n == "" || strings.HasPrefix(n, "/") || strings.Contains(n, `\`) || (len(n) > 1 && n[1] == ':') {
			return nil, fmt.Errorf("artifact: entry %s has an absolute or non-portable path", quote(n))
		}
		for _, el := range strings.Split(n, "/") {
			if el == ".." {
				return nil, fmt.Errorf("artifact: entry %s climbs out of the archive (..)", quote(n))
			}
		}
		mode := f.Mode()
		if mode&^0o777 != 0 && !mode.IsDir() {
			return nil, fmt.Errorf("artifact: entry %s is not a regular file (mode %v): links are refused", quote(n), mode)
		}
		if f.UncompressedSize64 > uint64(max) {
			return nil, fmt.Errorf("artifact: entry %s declares %d bytes, over the %d-byte cap", quote(n), f.UncompressedSize64, max)
		}
		if path.Clean(n) != name {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("artifact: entry %q appears twice", name)
		}
		found = f
	}
	if found == nil {
		return nil, fmt.Errorf("artifact: no entry %q in the archive", name)
	}
	rc, err := found.Open()
	if err != nil {
		return nil, fmt.Errorf("artifact: open %q: %w", name, err)
	}
	defer rc.Close()
	// The declared size may lie (a zip bomb): archive/zip stops at it
	// (ErrFormat), and the read stops one byte past the cap whatever.
	out, err := safefile.ReadAll(name, rc, max)
	switch {
	case safefile.IsLimit(err):
		return nil, fmt.Errorf("artifact: entry %q inflates past the %d-byte cap", name, max)
	case errors.Is(err, zip.ErrFormat):
		return nil, fmt.Errorf("artifact: entry %q inflates past the %d bytes its header states", name, found.UncompressedSize64)
	case err != nil:
		return nil, fmt.Errorf("artifact: read %q: %w", name, err)
	}
	return out, nil
}
