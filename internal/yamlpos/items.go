package yamlpos

// A long suite is mostly its tests:, and even read item by item (see
// split.go), the values and positions of every test are alive at once
// when Read returns, beside whatever the caller builds from them. With
// Options.Items, Read leaves the list of that key of the root mapping
// for Doc.Items, which converts one item at a time, hands it to the
// caller and drops it: the caller keeps what it builds from each item,
// the document keeps the item's own position only.
//
// Read holds the list only where it would read it item by item anyway
// (Options.Release, a text it cuts into items), so the values, positions
// and errors of each item are exactly those of Read without Items; the
// order in which the values are converted differs (the held list comes
// last), which matters only to which alias is named when the aliases of
// the whole document expand past MaxAliasValues: a caller that wants the
// errors of Read exactly reads the text again without Items when
// Doc.Items reported any.

// heldList is the list Options.Items names, left for Doc.Items: p is
// its pointer, depth the depth of its value.
type heldList struct {
	l     *list
	p     *path
	depth int
}

// hold records the position of the list l, the value of a key of the
// root mapping converted at at, and leaves its items for Doc.Items; the
// value it returns is a list of as many nils.
func (d *Doc) hold(l *list, at *node, p *path, depth int) any {
	if !d.enterList(l, at, p, depth) {
		return nil
	}
	l.held = true
	d.split.held = &heldList{l: l, p: p, depth: depth}
	return make([]any, len(l.items))
}

// Held reports whether Read left the list Options.Items names for
// Doc.Items: its value in Root is then a list of nils, one an item.
func (d *Doc) Held() bool {
	return d.split != nil && d.split.held != nil
}

// Items converts the list Read held (see Held) one item at a time, in
// order, and calls hand with each item's index and value. Once hand
// returns, the item's value is dropped (Root holds nil in its place) and
// so are the positions of the values within it: At and KeyAt still place
// the item itself, and, during the call, every value of the item and of
// the rest of the document. Errors of the item's values are added to
// Errs as they are found.
//
// Items reports false, and the document is then incomplete, when hand
// returned false, when an item could not be read on its own (the text
// must then be read again without Options.Items, which reads it whole),
// and when nothing was held or it was already read. It may be called
// once.
func (d *Doc) Items(hand func(i int, v any) bool) bool {
	if !d.Held() {
		return false
	}
	h := d.split.held
	defer func() { d.split, d.keys = nil, nil }()
	root, _ := d.Root.(map[string]any)
	s, _ := root[d.o.Items].([]any)
	at := d.root.child(EscapePointer(d.o.Items))
	if at == nil || len(s) != len(h.l.items) {
		return false
	}
	return d.eachItem(h.l, at, h.p, h.depth, s, hand)
}

// drop forgets what n knows of the values within its value, keeping the
// value's own position and that of its key.
func (n *node) drop() {
	n.kids = nil
	n.num = 0
}
