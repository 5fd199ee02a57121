package prices

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestGunzipDrawn: gunzip, which sizes its buffer by the gzip trailer,
// gives back drawn texts of every length (empty, under and over a read
// buffer) byte for byte, in one allocation of their size; a trailer whose
// size was changed (smaller, larger, or its digest) is refused as gzip
// refuses it, never a text cut or padded.
func TestGunzipDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 2))
	for i := range 200 {
		text := make([]byte, rng.IntN(1<<uint(rng.IntN(18)+1)))
		for j := range text {
			text[j] = "ab{}\":0123456789.e-\n "[rng.IntN(21)]
		}
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(text)
		w.Close()
		data := z.Bytes()
		got, err := gunzip(data)
		if err != nil || !bytes.Equal(got, text) {
			t.Fatalf("text %d (%d bytes): %v, %d bytes back", i, len(text), err, len(got))
		}
		if len(text) > 0 && cap(got) > len(text)+1 {
			t.Errorf("text %d (%d bytes): a buffer of %d", i, len(text), cap(got))
		}
		bad := bytes.Clone(data)
		tail := bad[len(bad)-4:]
		switch i % 3 {
		case 0:
			binary.LittleEndian.PutUint32(tail, uint32(len(text)+1+rng.IntN(100)))
		case 1:
			binary.LittleEndian.PutUint32(tail, uint32(max(len(text)-1-rng.IntN(100), 0)))
			if len(text) == 0 {
				binary.LittleEndian.PutUint32(tail, 7)
			}
		case 2:
			bad[len(bad)-8] ^= 1 // the digest
		}
		if got, err := gunzip(bad); err == nil {
			t.Errorf("text %d (%d bytes), trailer changed (%d): no error, %d bytes back", i, len(text), i%3, len(got))
		}
	}
}
