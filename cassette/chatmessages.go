package cassette

import "github.com/mcptest/mcptest/internal/jsonpos"

// readMessages reads the document at root when it is a transcript of
// OpenAI Chat Completions or Anthropic Messages messages whose shape no
// other format's detection takes: an array of messages, or an object
// holding one under "messages" beside other members (a model, a usage, a
// system prompt, a harness's record of the task) but "responseMessages"
// and "eval" (which detect weighs for the AI SDK, Mastra, LlamaIndex and
// Inspect first), every message a plainMessage. It never holds the
// transcript decoded whole. A first pass reads each message's skeleton
// (its role, the types of its content, its usage; nothing is decoded of
// its calls) to count the format's marks as classify does (the same
// classifier); a second decodes one message at a time, reads it with the
// generic path's own transcript.message, walks it for the read-or-refused
// audit, and lets it go (readList). So what it reads is what detect and
// readTranscript read (FuzzChat and TestReadMessagesAsGeneric hold the two
// equal), and a transcript of a million calls costs its calls, not a tree
// of Go maps. Any other document, one with a problem, one whose messages
// mix the two formats' calls and one the audit finds a call lost in give
// nil with nothing recorded, and recording reads the document
// generically, which words the problems.
func (d *decoder) readMessages(root int) *Cassette {
	msgs, key, ok := d.listAt(root, "messages")
	if !ok {
		return nil
	}
	obj, ok := d.listRoot(root, msgs, key)
	if !ok {
		return nil
	}
	for _, k := range [...]string{"responseMessages", "eval"} {
		if _, ok := obj[k]; ok {
			return nil
		}
	}
	usage := obj["usage"]
	f, lastStep, ok := d.classifyMessages(msgs, usage, obj != nil)
	if !ok {
		d.forget()
		return nil
	}
	c := &Cassette{Format: f}
	c.Model, _ = obj["model"].(string)
	t := newTranscript(d.w, c)
	if c = d.readList(c, t, msgs, obj, func(v any) { t.message(f, v.(map[string]any)) }); c == nil {
		d.forget()
		return nil
	}
	if _, ok := usage.(map[string]any); ok {
		var u usageSum // the conversation's own total wins
		u.add(usage)
		c.Runs[0].Tokens = u.tokens()
	}
	if lastStep && !hasCalls(c.Runs) {
		c.Warnings = append(c.Warnings, lastStepText(obj))
	}
	return c
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
	d.spent += jsonpos.MapCost // the skeletons are kept: spent as value spends
	for i := d.space(e + 1); d.data[i] == '"'; i = d.space(i + 1) {
		key, end := d.str(i, true)
		v := d.space(d.space(end) + 1)
		_, dup := m[key]
		if !dup {
			d.spent += jsonpos.MemberCost(len(m), len(key))
		}
		switch {
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
		d.spent += jsonpos.SliceCost
		d.array(v, func(_, b int) int {
			d.spent += jsonpos.ElemCost
			if d.data[b] != '{' {
				blocks = append(blocks, nil)
				return d.skip(b, false)
			}
			block := map[string]any{}
			d.spent += jsonpos.MapCost
			d.members(b, func(k string, t, _ int) bool {
				if k == "type" {
					d.spent += jsonpos.MemberCost(0, len(k))
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
