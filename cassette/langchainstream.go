package cassette

// readLangChainMessages reads the document at root when it is a LangChain
// message list, as detect finds one first of all: an array whose first
// element is a LangChain message, or an object whose "messages" is (a
// graph's state). It reads one message at a time, each decoded into its
// generic value, read by the generic path's own transcript.langChainAt and
// walked by the read-or-refused audit, then let go; the root's other
// members are decoded and walked as the audit walks them, the placeholder
// of the messages beside them. A problem or a call the audit finds lost
// gives nil with nothing recorded, and recording reads the document
// generically, which words the problems (FuzzChat and
// TestReadLangChainAsGeneric hold the two equal).
func (d *decoder) readLangChainMessages(root int) *Cassette {
	msgs := root
	if d.data[root] == '{' {
		msgs = -1
		d.members(root, func(key string, v, _ int) bool {
			if key == "messages" {
				msgs = v
			}
			return msgs < 0
		})
	}
	if msgs < 0 || d.data[msgs] != '[' || !d.firstIsLangChain(msgs) {
		return nil
	}
	c := &Cassette{Format: FormatLangChain}
	t := newTranscript(d.w, c)
	a := &audit{}
	each := func(list, depth int) int {
		return d.array(list, func(_, e int) int {
			if !d.clean() {
				return d.skip(e, false)
			}
			v, end := d.value(e)
			t.langChainAt(v)
			if container(v) {
				visit(v, depth, nil, a.found, a)
			}
			return end
		})
	}
	if msgs == root {
		each(root, 1)
	} else {
		// The root as the audit sees it, its messages an empty list.
		obj := map[string]any{"messages": []any{}}
		d.object(root, func(key string, _, v int) int {
			if key == "messages" {
				return each(v, 2)
			}
			val, end := d.value(v)
			obj[key] = val
			return end
		})
		visit(obj, 0, nil, a.found, a)
		if m, _ := obj["model"].(string); m != "" {
			c.Model = m
		}
	}
	if d.clean() {
		c.Runs = []Run{t.finish()}
		a.spent = d.w.spent
		a.read(c.Runs)
		if len(a.lost(c, len(c.Runs))) == 0 {
			return c
		}
	}
	// Read again generically, from a clean slate.
	*d.w = walker{path: d.w.path[:0]}
	d.rangeOff, d.rangeLit = -1, ""
	return nil
}

// firstIsLangChain reports whether the first element of the array at i is
// a LangChain message, as isLangChain decides, leaving nothing recorded.
func (d *decoder) firstIsLangChain(i int) bool {
	first := d.space(i + 1)
	if d.data[first] != '{' {
		return false
	}
	v, _ := d.value(first)
	m, _ := v.(map[string]any)
	_, _, _, ok := langChainMessage(m)
	if !d.clean() {
		*d.w = walker{path: d.w.path[:0]}
		d.rangeOff, d.rangeLit = -1, ""
		return false
	}
	return ok
}
