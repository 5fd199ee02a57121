package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestReadFileTakesOnOpen draws directories of files (of drawn sizes,
// some missing, some directories, some a symbolic link to a file) and
// reads them all at once on several goroutines through readFile with a
// drawn read budget, as the run's workers do: each file reads as it reads
// with no budget (the same bytes, or an error of the same words), the
// budget is never over-taken by more than one file (a file alone takes
// what it needs), and once every file has given its bytes back the budget
// is whole again, whatever failed to open; giving back twice changes
// nothing.
func TestReadFileTakesOnOpen(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 9))
	draws := 40
	if testing.Short() {
		draws = 12
	}
	for d := range draws {
		dir := t.TempDir()
		n := 1 + rng.IntN(24)
		var files []string
		for i := range n {
			f := filepath.Join(dir, fmt.Sprintf("f%02d.json", i))
			switch rng.IntN(6) {
			case 0: // missing
			case 1:
				if err := os.Mkdir(f, 0o755); err != nil {
					t.Fatal(err)
				}
			case 2:
				if len(files) > 0 {
					if err := os.Symlink(files[0], f); err != nil {
						t.Fatal(err)
					}
					break
				}
				fallthrough
			default:
				data := bytes.Repeat([]byte{'x'}, rng.IntN(3000))
				if err := os.WriteFile(f, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			files = append(files, f)
		}
		size := int64(1 + rng.IntN(4000))
		budget := newReadBudget(size)
		var mu sync.Mutex
		over := int64(0) // the most bytes taken beyond the budget at once
		got := make([]fileRead, n)
		var wg sync.WaitGroup
		next := make(chan int, n)
		for i := range n {
			next <- i
		}
		close(next)
		for range 1 + rng.IntN(4) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					fr := readFile(casePlan{}, files[i], files[i], budget)
					mu.Lock()
					budget.mu.Lock()
					over = max(over, -budget.left)
					budget.mu.Unlock()
					got[i] = fr
					mu.Unlock()
					fr.release()
					fr.release()
				}
			}()
		}
		wg.Wait()
		if budget.left != size || budget.held != 0 {
			t.Fatalf("draw %d: budget left %d held %d after every file gave back, want %d and 0", d, budget.left, budget.held, size)
		}
		for i, f := range files {
			want := readFile(casePlan{}, f, f, nil)
			want.release()
			if !bytes.Equal(got[i].data, want.data) || got[i].sum != want.sum || fmt.Sprint(got[i].loadErr) != fmt.Sprint(want.loadErr) {
				t.Fatalf("draw %d: %s read with a budget: %d bytes, %v; without: %d bytes, %v", d, f, len(got[i].data), got[i].loadErr, len(want.data), want.loadErr)
			}
		}
		if over > 3000 {
			t.Fatalf("draw %d: %d bytes taken beyond a budget of %d: more than one file's", d, over, size)
		}
	}
	var none *readBudget
	sized, release := none.onOpen()
	if sized != nil {
		t.Fatal("a nil budget's sized is not nil")
	}
	release()
}
