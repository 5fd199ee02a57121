package mcpserver

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestLocalIsLexical draws names made of "a", "..", "." and "" segments,
// relative, under the workspace root or absolute elsewhere, and holds
// local to its rule without touching anything: a name is refused with the
// one words of outside exactly when it is empty or climbs out of the root
// as written, and is otherwise the clean relative name it means.
func TestLocalIsLexical(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 45))
	root := filepath.Join(string(filepath.Separator), "ws", "root")
	s := &server{opt: Options{Root: root}}
	refused := 0
	for round := range 3000 {
		var segs []string
		for range r.IntN(5) {
			segs = append(segs, []string{"a", "b", "..", ".", ""}[r.IntN(5)])
		}
		name := strings.Join(segs, "/")
		switch r.IntN(4) {
		case 0:
			name = root + "/" + name
		case 1:
			name = "/ws/" + name
		}
		// Where the name leads, as a path from the root.
		abs := name
		if !strings.HasPrefix(name, "/") {
			abs = root + "/" + name
		}
		lead, err := filepath.Rel(root, filepath.Clean(abs))
		climbs := err != nil || lead == ".." || strings.HasPrefix(lead, "../")
		got, err := s.local(name)
		switch {
		case name == "" || climbs:
			if err == nil || err.Error() != outside(name).Error() {
				t.Fatalf("round %d: local(%q) = %q, %v; want refused", round, name, got, err)
			}
			refused++
		case err != nil || got != lead:
			t.Fatalf("round %d: local(%q) = %q, %v; want %q", round, name, got, err, lead)
		}
	}
	if refused == 0 || refused == 3000 {
		t.Fatalf("%d of 3000 names refused: the draws miss a side", refused)
	}
}
