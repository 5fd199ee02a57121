package cassette

// readMessages reads the document at root when it is a transcript of
// OpenAI Chat Completions or Anthropic Messages messages whose shape no
// other format's detection takes: an array of messages, or an object
// holding one under "messages" beside at most "model" and "usage", every
// message a plainMessage. It never holds the transcript decoded whole.
// A first pass reads each message's skeleton (its role, the types of its
// content, its usage; nothing is decoded of its calls) to count the
// format's marks as classify does (the same classifier); a second decodes
// one message at a time, reads it with the generic path's own
// transcript.message, walks it for the read-or-refused audit, and lets it
// go. So what it reads is what detect and readTranscript read (FuzzChat
// and TestReadMessagesAsGeneric hold the two equal), and a transcript of a
// million calls costs its calls, not a tree of Go maps. Any other
// document, one with a problem, one whose messages mix the two formats'
// calls and one the audit finds a call lost in give nil with nothing
// recorded, and recording reads the document generically, which words
// the problems.
func (d *decoder) readMessages(root int) *Cassette {
	msgs, model, usage, wrapped, ok := d.messagesRoot(root)
	if !ok {
		return nil
	}
	var c *Cassette
	if f, lastStep, ok := d.classifyMessages(msgs, usage, wrapped); ok {
		c = d.readPlain(f, msgs, model, usage, wrapped)
		if c != nil && lastStep && !hasCalls(c.Runs) {
			c.Warnings = append(c.Warnings, lastStepText(nil))
		}
	}
	if c == nil {
		d.forget()
	}
	return c
}

// messagesRoot finds the messages array of a document readMessages may
// read, with the root's model and usage decoded (nil when absent), and
// whether the root wraps it (an object); ok is false for any other root:
// an object with another member or a member twice, or no array of
// messages.
func (d *decoder) messagesRoot(root int) (msgs int, model, usage any, wrapped, ok bool) {
	switch d.data[root] {
	case '[':
		return root, nil, nil, false, true
	case '{':
	default:
		return 0, nil, nil, false, false
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
		return 0, nil, nil, false, false
	}
	if modelAt >= 0 {
		model, _ = d.value(modelAt)
	}
	if usageAt >= 0 {
		usage, _ = d.value(usageAt)
	}
	return msgs, model, usage, true, true
}

// classifyMessages is readMessages' first pass over the array at msgs:
// the format classify finds (counting the root's usage when wrapped), and
// whether the messages are an assistant's alone in parts (lastStepWarning's
// shape); ok is false when a message is not plain, a problem is found, the
// formats' calls are even, or a bare array is empty (not a recording).
func (d *decoder) classifyMessages(msgs int, usage any, wrapped bool) (f Format, lastStep, ok bool) {
	var cl classifier
	cl.usage(usage) // nil for a bare array
	n, plain, parts := 0, true, true
	d.array(msgs, func(_, e int) int {
		if !plain {
			return d.skip(e, false)
		}
		m := d.skeleton(e)
		if !plainMessage(m) || !d.clean() {
			plain = false
		} else {
			n++
			cl.message(m)
			parts = parts && assistantParts(m)
		}
		return d.skip(e, false)
	})
	f = cl.format()
	return f, n > 0 && parts, plain && f != "" && (n > 0 || wrapped)
}

// skeleton is the message at e as classifyMessages weighs it, without
// decoding what it does not weigh: its role, type and usage decoded, its
// content a string's "" or its blocks each as {"type": ...}, every other
// member there as true, the first of a key repeated (as the generic value
// keeps it); nil when e is not an object.
func (d *decoder) skeleton(e int) map[string]any {
	if d.data[e] != '{' {
		return nil
	}
	m := map[string]any{}
	for i := d.space(e + 1); d.data[i] == '"'; i = d.space(i + 1) {
		key, end := d.str(i, true)
		v := d.space(d.space(end) + 1)
		switch _, dup := m[key]; {
		case dup:
		case key == "role" || key == "type" || key == "usage":
			m[key], _ = d.value(v)
		case key == "content":
			m[key] = d.skeletonContent(v)
		default:
			m[key] = true
		}
		if i = d.space(d.skip(v, false)); d.data[i] != ',' {
			break
		}
	}
	return m
}

// skeletonContent is a message's content as skeleton keeps it.
func (d *decoder) skeletonContent(v int) any {
	switch d.data[v] {
	case '"':
		return ""
	case '[':
		blocks := []any{}
		d.array(v, func(_, b int) int {
			if d.data[b] != '{' {
				blocks = append(blocks, nil)
				return d.skip(b, false)
			}
			block := map[string]any{}
			d.members(b, func(k string, t, _ int) bool {
				if k == "type" {
					block[k], _ = d.value(t)
				}
				return k != "type"
			})
			blocks = append(blocks, block)
			return d.skip(b, false)
		})
		return blocks
	}
	c, _ := d.value(v)
	return c
}

// readPlain is readMessages' second pass: the messages at msgs read as f,
// as readTranscript reads them, each walked by the audit; nil on a
// problem (whose wording is the generic path's to give) or a call lost.
func (d *decoder) readPlain(f Format, msgs int, model, usage any, wrapped bool) *Cassette {
	c := &Cassette{Format: f}
	if s, ok := model.(string); ok {
		c.Model = s
	}
	t := newTranscript(d.w, c)
	a := &audit{}
	for _, v := range [...]any{model, usage} {
		if container(v) {
			visit(v, 1, nil, a.found, a)
		}
	}
	depth := 1 // a message's depth in the document
	if wrapped {
		depth = 2
	}
	d.array(msgs, func(_, e int) int {
		if !d.clean() {
			return d.skip(e, false)
		}
		v, end := d.value(e)
		m := v.(map[string]any)
		t.message(f, m)
		visit(m, depth, nil, a.found, a)
		return end
	})
	if !d.clean() {
		return nil
	}
	if _, ok := usage.(map[string]any); ok {
		t.usage = usageSum{} // the conversation's own total wins
		t.usage.add(usage)
	}
	c.Runs = []Run{t.finish()}
	if !a.passed(d.w, c) {
		return nil
	}
	return c
}

// plainMessage reports whether m is a message of a Chat Completions or
// Messages transcript that no format's detection but those two takes: a
// string role; a string, null, or an array of content blocks each with a
// "type" no other format's detection looks for (AI SDK parts, Responses
// text); a "type" only if it is "message", as the Messages API writes its
// answer; and no member but plainMember's (a "parts", "data", "options" or
// "object" is another format's mark).
func plainMessage(m map[string]any) bool {
	if _, ok := m["role"].(string); !ok {
		return false
	}
	if t, ok := m["type"]; ok && t != "message" {
		return false
	}
	switch content := m["content"].(type) {
	case string, nil:
	case []any:
		for _, b := range content {
			b, _ := b.(map[string]any)
			t, ok := b["type"].(string)
			if !ok || foreignBlock(t) {
				return false
			}
		}
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

// foreignBlock reports whether a content block's type is one another
// format's detection takes a message for: an AI SDK part (isModelMessages)
// or Responses text (isResponsesItem).
func foreignBlock(t string) bool {
	switch t {
	case "tool-call", "tool-result", "tool-invocation", "output_text", "input_text":
		return true
	}
	return false
}

// plainMember reports whether key is a member of a Chat Completions or
// Messages message that readMessages reads as the generic path does.
func plainMember(key string) bool {
	switch key {
	case "role", "content", "name", "tool_calls", "tool_call_id", "function_call", "refusal", "annotations", "audio",
		"model", "usage", "is_error", "isError", "id", "type", "stop_reason", "stop_sequence":
		return true
	}
	return false
}
