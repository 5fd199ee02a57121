package cassette

// readSpans reads the document at root when it is one OTLP JSON export
// request, {"resourceSpans": [...]}, whose resource and scope spans hold
// only OTLP's members: one span at a time, each decoded into its generic
// value, read by the OTel reader's own span and walked by the
// read-or-refused audit, then let go, so an export of many spans costs
// what the reader keeps of them (their ids, times and GenAI attributes),
// not a tree of Go maps of the whole file. The spans are taken in the
// generic path's order (of each resource, its scopeSpans, then its
// instrumentationLibrarySpans), so what it reads is what detect and the
// OTel reader read (FuzzChat and TestReadSpansAsGeneric hold the two
// equal). Any other document, one with a problem or a call the audit finds
// lost gives nil with nothing recorded, and recording reads the document
// generically, which words the problems.
func (d *decoder) readSpans(root int) *Cassette {
	if d.data[root] != '{' {
		return nil
	}
	if first := d.space(root + 1); d.data[first] != '"' {
		return nil
	} else if key, _ := d.str(first, true); key != "resourceSpans" {
		return nil // the export's only member
	}
	s := &spanStream{d: d, r: newOTelReader(), a: &audit{}, ok: true}
	d.w.path = d.w.path[:0]
	d.object(root, func(key string, _, v int) int {
		if key != "resourceSpans" || !s.ok {
			s.ok = false
			return d.skip(v, false)
		}
		return s.each(v, 2, s.resource)
	})
	var c *Cassette
	if s.ok && d.clean() {
		c = s.r.cassette()
		c.Runs = s.r.finish()
		if !s.a.passed(d.w, c) {
			c = nil
		}
	}
	if c == nil {
		d.forget()
	}
	return c
}

// spanStream is the state of readSpans: ok is cleared at the first thing
// outside the shapes it reads.
type spanStream struct {
	d  *decoder
	r  *otelReader
	a  *audit
	ok bool
}

// each calls elem with the offset of each element of the array at i, an
// object at depth depth in the document, as eachOf does, and returns the
// offset after the array; null is no element, anything but an array of
// objects ends the stream. elem returns the offset after its element.
func (s *spanStream) each(i, depth int, elem func(e, depth int) int) int {
	d := s.d
	switch d.data[i] {
	case 'n':
		return i + 4
	case '[':
	default:
		s.ok = false
		return d.skip(i, false)
	}
	return d.array(i, func(_, e int) int {
		if !s.ok || d.data[e] != '{' || !d.clean() {
			s.ok = false
			return d.skip(e, false)
		}
		return elem(e, depth)
	})
}

// member reads a member of a resource or scope that is not an array of
// spans, at depth depth: decoded, and walked by the audit. Any member but
// key and "schemaUrl" ends the stream.
func (s *spanStream) member(key, want string, v, depth int) int {
	if key != want && key != "schemaUrl" {
		s.ok = false
		return s.d.skip(v, false)
	}
	val, end := s.d.piece(v)
	if container(val) {
		visit(val, depth, nil, s.a.found, s.a)
	}
	return end
}

// resource reads one element of resourceSpans, at depth depth: its
// scopeSpans, then the name OTLP used before 0.15, which old exporters
// still write, as the OTel reader takes them.
func (s *spanStream) resource(i, depth int) int {
	old := -1
	end := s.d.object(i, func(key string, _, v int) int {
		switch key {
		case "scopeSpans":
			return s.each(v, depth+2, s.scope)
		case "instrumentationLibrarySpans":
			old = v
			return s.d.skip(v, false)
		}
		return s.member(key, "resource", v, depth+1)
	})
	if old >= 0 && s.ok {
		s.d.w.push("instrumentationLibrarySpans")
		s.each(old, depth+2, s.scope)
		s.d.w.pop()
	}
	return end
}

// scope reads one element of scopeSpans, at depth depth.
func (s *spanStream) scope(i, depth int) int {
	return s.d.object(i, func(key string, _, v int) int {
		if key == "spans" {
			return s.each(v, depth+2, s.span)
		}
		return s.member(key, "scope", v, depth+1)
	})
}

// span reads one span, at depth depth.
func (s *spanStream) span(i, depth int) int {
	v, end := s.d.piece(i)
	m, ok := v.(map[string]any)
	if !ok { // the decode budget ran out before it
		s.ok = false
		return end
	}
	s.r.span(s.d.w)(m)
	visit(m, depth, nil, s.a.found, s.a)
	return end
}
