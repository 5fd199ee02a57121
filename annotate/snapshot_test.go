package annotate

import (
	"bytes"
	"compress/flate"
	"os"
	"testing"
	"unicode/utf8"
)

// snapshotDictFile is the viewer's preset dictionary, which -update
// rewrites from the sample run's snapshot document. Rewriting it changes
// its id, so addresses written before read only in the viewer page of the
// mcptest that wrote them (the viewer says so): rewrite it only when the
// report's markup has changed enough to matter.
const snapshotDictFile = "html/snapshot.dict"

// TestSnapshotDictionary: the dictionary is at most the deflate window
// (32 KiB), valid UTF-8, and earns its place: the sample run's address is
// at most two thirds of what it is without it.
func TestSnapshotDictionary(t *testing.T) {
	doc, err := snapshotDoc(sample(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		dict := doc
		if len(dict) > 32<<10 {
			dict = dict[len(dict)-32<<10:]
		}
		for !utf8.Valid(dict) {
			dict = dict[1:]
		}
		if err := os.WriteFile(snapshotDictFile, dict, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Skip("rewrote " + snapshotDictFile + ": rebuild and run again")
	}
	if len(snapshotDict) > 32<<10 || !utf8.ValidString(snapshotDict) {
		t.Fatalf("the dictionary is %d bytes (at most 32 KiB) or not UTF-8", len(snapshotDict))
	}
	deflated := func(dict []byte) int {
		var z bytes.Buffer
		w, _ := flate.NewWriterDict(&z, flate.BestCompression, dict)
		w.Write(doc)
		w.Close()
		return z.Len()
	}
	if with, without := deflated([]byte(snapshotDict)), deflated(nil); with*3 > without*2 {
		t.Errorf("the sample's snapshot deflates to %d bytes with the dictionary, %d without", with, without)
	}
}
