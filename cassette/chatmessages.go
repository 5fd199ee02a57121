package cassette

// readMessages reads the document at root when it is an OpenAI Chat
// Completions transcript whose shape no other format's detection takes: an array of messages, or an object holding one under
// "messages" beside at most "model" and "usage", every message an object
// with a string "role", a string or null "content" and only the members
// plainMember names. It decodes one message at a time into its generic
// value, reads it with the generic path's own transcript.message and walks
// it for the read-or-refused audit, then lets it go: a transcript of a
// million calls is never held decoded whole, and what it reads is what
// detect and readTranscript read (FuzzChat and TestReadMessagesAsGeneric
// hold the two equal). Any other document, one with a problem, and one the
// audit finds a call lost in give nil with nothing recorded, and recording
// reads the document generically, which words the problems.
func (d *decoder) readMessages(root int) *Cassette {
	msgs, model, usage, at, ok := d.messagesRoot(root)
	if !ok {
		return nil
	}
	c := &Cassette{Format: FormatOpenAI}
	if s, ok := model.(string); ok {
		c.Model = s
	}
	t := newTranscript(d.w, c)
	a := &audit{}
	depth := len(at) + 1 // the depth of a message in the document
	for _, v := range [...]any{model, usage} {
		if container(v) {
			visit(v, 1, nil, a.found, a)
		}
	}
	plain, tools, n := true, 0, 0
	var usages [2]int // OpenAI, Anthropic, as classify counts them
	usageNaming(&usages, usage)
	d.w.path = append(d.w.path[:0], at...)
	d.array(msgs, func(_, e int) int {
		if !plain {
			return d.skip(e, false)
		}
		v, end := d.value(e)
		m, _ := v.(map[string]any)
		role, _ := m["role"].(string)
		if !plainMessage(m) || !d.clean() {
			plain = false
			return end
		}
		n++
		tools += toolTraffic(role, m)
		usageNaming(&usages, m["usage"])
		t.message(FormatOpenAI, m)
		visit(m, depth, nil, a.found, a)
		return end
	})
	d.w.path = d.w.path[:0]
	// Without tool traffic, detect's classify weighs the usage objects'
	// naming, then the contents, all strings here.
	// An empty array is not a recording; under "messages", a transcript
	// of nothing.
	if plain && (n > 0 || at != nil) && (tools > 0 || usages[0] >= usages[1]) && d.clean() {
		if _, ok := usage.(map[string]any); ok {
			t.usage = usageSum{} // the conversation's own total wins
			t.usage.add(usage)
		}
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

// messagesRoot finds the messages array of a document readMessages may
// read, with the root's model and usage decoded (nil when absent) and the
// array's path; ok is false for any other root: an object with another
// member or a member twice, or no array of messages.
func (d *decoder) messagesRoot(root int) (msgs int, model, usage any, at []seg, ok bool) {
	switch d.data[root] {
	case '[':
		return root, nil, nil, nil, true
	case '{':
	default:
		return 0, nil, nil, nil, false
	}
	msgs, modelAt, usageAt := -1, -1, -1
	ok = true
	d.members(root, func(key string, v, _ int) bool {
		var at *int
		switch key {
		case "messages":
			at = &msgs
		case "model":
			at = &modelAt
		case "usage":
			at = &usageAt
		}
		if at == nil || *at >= 0 {
			ok = false
		} else {
			*at = v
		}
		return ok
	})
	if !ok || msgs < 0 || d.data[msgs] != '[' {
		return 0, nil, nil, nil, false
	}
	if modelAt >= 0 {
		model, _ = d.value(modelAt)
	}
	if usageAt >= 0 {
		usage, _ = d.value(usageAt)
	}
	return msgs, model, usage, []seg{{key: "messages", idx: -1}}, true
}

// plainMessage reports whether m is a Chat Completions message that no
// format's detection but the OpenAI transcript's takes: a string role, a
// string or null content (an array of parts or an object would be weighed
// by the AI SDK, Mastra, Anthropic and Responses detections), and no
// member but plainMember's (a "type", "parts", "data", "options" or
// "object" is another format's mark).
func plainMessage(m map[string]any) bool {
	if _, ok := m["role"].(string); !ok {
		return false
	}
	switch m["content"].(type) {
	case string, nil:
	default:
		return false
	}
	for k := range m {
		if !plainMember(k) {
			return false
		}
	}
	return true
}

// plainMember reports whether key is a member of a Chat Completions message
// that readMessages reads as the generic path does.
func plainMember(key string) bool {
	switch key {
	case "role", "content", "name", "tool_calls", "tool_call_id", "function_call",
		"refusal", "annotations", "audio", "model", "usage", "is_error", "isError", "id":
		return true
	}
	return false
}

// toolTraffic counts what classify counts as OpenAI tool traffic in one
// message: a tool's or function's message, a tool_calls member, a
// function_call member.
func toolTraffic(role string, m map[string]any) int {
	n := 0
	if role == "tool" || role == "function" {
		n++
	}
	if _, ok := m["tool_calls"]; ok {
		n++
	}
	if _, ok := m["function_call"]; ok {
		n++
	}
	return n
}

// usageNaming counts a usage object as classify does: OpenAI's naming
// (prompt_tokens) in n[0], Anthropic's (input_tokens) in n[1].
func usageNaming(n *[2]int, v any) {
	u, _ := v.(map[string]any)
	if _, ok := u["prompt_tokens"]; ok {
		n[0]++
	}
	if _, ok := u["input_tokens"]; ok {
		n[1]++
	}
}
