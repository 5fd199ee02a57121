package report

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// checkAsBefore is Catalog.check as it was written before it built a
// field's path only for a field it refuses: every path built, then the
// first tool with no name, then the first field with a control character.
func checkAsBefore(c *Catalog, at string) error {
	if c.SHA256 != catalogDigest(c.Servers) {
		return fmt.Errorf("%s.sha256: %s is not the digest of the catalog's servers", at, quoteClipped(c.SHA256))
	}
	var fields []field
	for i, s := range c.Servers {
		p := fmt.Sprintf("%s.servers[%d]", at, i)
		fields = append(fields, field{p + ".server", s.Server})
		for j, t := range s.Tools {
			if t == "" {
				return fmt.Errorf("%s.tools[%d]: want a tool name", p, j)
			}
			fields = append(fields, field{fmt.Sprintf("%s.tools[%d]", p, j), t})
		}
	}
	return oneLine(fields)
}

// TestCatalogCheckAsBefore draws catalogs (1 to 4 servers of 0 to 5
// tools, names plain, empty, or holding a control character, a line or
// paragraph separator or a bidi override, digests right or wrong) and
// holds Catalog.check to the words it gave before.
func TestCatalogCheckAsBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 90))
	names := []string{"search", "fetch", "", "a\nb", "x\u2028", "\u202eevil", "ok\x7f", "é", "tool"}
	refused := 0
	for range 20000 {
		c := &Catalog{}
		for range 1 + r.IntN(4) {
			s := CatalogServer{Server: names[r.IntN(len(names))]}
			for range r.IntN(6) {
				if r.IntN(3) == 0 {
					s.Tools = append(s.Tools, names[r.IntN(len(names))])
				} else {
					s.Tools = append(s.Tools, fmt.Sprint("t", r.IntN(9)))
				}
			}
			c.Servers = append(c.Servers, s)
		}
		c.SHA256 = catalogDigest(c.Servers)
		if r.IntN(20) == 0 {
			c.SHA256 = "00"
		}
		got, want := fmt.Sprint(c.check("catalogs[3]")), fmt.Sprint(checkAsBefore(c, "catalogs[3]"))
		if got != want {
			t.Fatalf("check of %+v: %s, before: %s", c.Servers, got, want)
		}
		if want != "<nil>" {
			refused++
		}
	}
	if refused < 2000 || refused > 18000 {
		t.Fatalf("%d of 20,000 drawn catalogs refused: the draw is lopsided", refused)
	}
}
