package cassette

import (
	"maps"
	"slices"
)

// A message list of LangChain, of the AI SDK (its ModelMessages or
// UIMessages) or of the Responses API (an Agents SDK history) is read a
// message at a time too, in the shapes detect takes for those formats: an
// array of messages, or (but for Responses items) an object holding one
// under "messages" (a graph's state, a result saved whole) beside other
// members. Where detect weighs every message, a first pass weighs each
// and lets it go. Then each message is decoded into its generic value,
// read by the generic path's own code for one message and walked by the
// read-or-refused audit, then let go; the root's other members are decoded
// and walked as the audit walks the root, an empty list in place of the
// messages. A problem or a call the audit finds lost gives nil with
// nothing recorded, and recording reads the document generically, which
// words the problems (FuzzChat and the Test*AsGeneric generators hold the
// two equal).

// listAt finds the message list of a document, without decoding it: the
// root itself when it is an array, else the first member of the root
// object, of the first of keys, that is an array (as detect looks for
// "messages", then "responseMessages"), and its key; ok is false for any
// other document.
func (d *decoder) listAt(root int, keys ...string) (msgs int, key string, ok bool) {
	switch d.data[root] {
	case '[':
		return root, "", true
	case '{':
	default:
		return 0, "", false
	}
	at := make([]int, len(keys))
	d.members(root, func(k string, v, _ int) bool {
		if i := slices.Index(keys, k); i >= 0 && at[i] == 0 {
			at[i] = v // the first, as the generic value keeps it
		}
		return true
	})
	for i, v := range at {
		if v > 0 && d.data[v] == '[' {
			return v, keys[i], true
		}
	}
	return 0, "", false
}

// listRoot decodes the members of the root object beside its messages,
// under key (nil for a bare array), an empty list in their place as the
// audit is to walk them; ok is false on a problem, nothing recorded.
func (d *decoder) listRoot(root, msgs int, key string) (obj map[string]any, ok bool) {
	if msgs == root {
		return nil, true
	}
	obj = map[string]any{}
	d.object(root, func(k string, _, v int) int {
		if k == key {
			obj[k] = []any{}
			return d.skip(v, false)
		}
		val, end := d.value(v)
		obj[k] = val
		return end
	})
	if !d.clean() {
		d.forget()
		return nil, false
	}
	return obj, true
}

// readList is the second pass of a streamed message list at msgs: the
// root's other members (obj, nil for a bare array) walked by the audit,
// then each message read by one and walked at its depth; c, its run
// finished, or nil on a problem or a call lost.
func (d *decoder) readList(c *Cassette, t *transcript, msgs int, obj map[string]any, one func(v any)) *Cassette {
	a := &audit{}
	depth := 1
	if obj != nil {
		depth = 2
		visit(obj, 0, nil, a.found, a)
	}
	d.array(msgs, func(_, e int) int {
		if !d.clean() {
			return d.skip(e, false)
		}
		v, end := d.piece(e)
		if d.overOff >= 0 {
			return end // the budget ran out in it: what was built is not the message
		}
		one(v)
		if container(v) {
			visit(v, depth, nil, a.found, a)
		}
		return end
	})
	if !d.clean() {
		return nil
	}
	c.Runs = []Run{t.finish()}
	if !a.passed(d.w, c) {
		return nil
	}
	return c
}

// readLangChainMessages reads a LangChain message list, whose first
// element is a LangChain message, a message at a time.
func (d *decoder) readLangChainMessages(root int) *Cassette {
	msgs, key, ok := d.listAt(root, "messages")
	if !ok || !d.firstIsLangChain(msgs) {
		return nil
	}
	obj, ok := d.listRoot(root, msgs, key)
	if !ok {
		return nil
	}
	c := &Cassette{Format: FormatLangChain}
	t := newTranscript(d.w, c)
	c = d.readList(c, t, msgs, obj, t.langChainAt)
	if c == nil {
		d.forget()
		return nil
	}
	if m, _ := obj["model"].(string); m != "" {
		c.Model = m
	}
	return c
}

// readModelList reads an AI SDK ModelMessage list a message at a time,
// when detect would take it for one: its first element no LangChain
// message, every message with a string role, one with a tool part in its
// content (isModelMessages, weighed on each message's skeleton in a first
// pass). Under a root object the list is its "messages", else its
// "responseMessages" (AI SDK 7's result), as detect looks for them.
func (d *decoder) readModelList(root int) *Cassette {
	msgs, key, ok := d.listAt(root, "messages", "responseMessages")
	if !ok || d.firstIsLangChain(msgs) {
		return nil
	}
	roles, parts := true, false
	d.array(msgs, func(_, e int) int {
		if roles {
			m := d.skeleton(e)
			roles = hasRole(m)
			parts = parts || messagesWithPart([]any{m}, "content", isModelPart)
		}
		return d.skip(e, false)
	})
	if !roles || !parts || !d.clean() {
		d.forget()
		return nil
	}
	obj, ok := d.listRoot(root, msgs, key)
	if !ok {
		return nil
	}
	c := &Cassette{Format: FormatAISDKMessages}
	t := newTranscript(d.w, c)
	aiResult(c, t, obj)
	if c = d.readList(c, t, msgs, obj, t.modelMessageAt); c == nil {
		d.forget()
	}
	return c
}

// readUIList reads an AI SDK UIMessage list a message at a time, when
// detect would take it for one: its first element no LangChain message,
// every message with a string role, one with a tool part among its parts
// and none with one in its content (isUIMessages, and not
// isModelMessages, weighed in a first pass that decodes each message and
// lets it go), and a root object with no "responseMessages" (detect
// weighs those for ModelMessages before these).
func (d *decoder) readUIList(root int) *Cassette {
	msgs, key, ok := d.listAt(root, "messages")
	if !ok || d.firstIsLangChain(msgs) {
		return nil
	}
	roles, ui, model := true, false, false
	d.array(msgs, func(_, e int) int {
		if !roles {
			return d.skip(e, false)
		}
		v, end := d.piece(e)
		one := []any{v}
		roles = isMessages(one)
		ui = ui || isUIMessages(one)
		model = model || isModelMessages(one)
		return end
	})
	if !roles || !ui || model || !d.clean() {
		d.forget()
		return nil
	}
	obj, ok := d.listRoot(root, msgs, key)
	if !ok {
		return nil
	}
	if _, both := obj["responseMessages"]; both {
		return nil
	}
	c := &Cassette{Format: FormatAISDKUIMessages}
	t := newTranscript(d.w, c)
	if c = d.readList(c, t, msgs, obj, t.uiMessageAt); c == nil {
		d.forget()
	}
	return c
}

// firstIsLangChain reports whether the first element of the array at i is
// a LangChain message, as isLangChain decides, leaving nothing recorded.
func (d *decoder) firstIsLangChain(i int) bool {
	first := d.space(i + 1)
	if d.data[first] != '{' {
		return false
	}
	v, _ := d.piece(first)
	m, _ := v.(map[string]any)
	_, _, _, ok := langChainMessage(m)
	if !d.clean() {
		d.forget()
		return false
	}
	return ok
}

// readItemList reads a list of Responses items and response objects (an
// Agents SDK history, a conversation as a client logs it) a piece at a
// time, when detect would take it for one: an element without a role (so
// no message list's detection takes it), a first element of no other
// format (a LangChain message, a Claude Code or LlamaIndex event, an
// Agents SDK trace item), and a response or an item of the Responses API
// among them. The first pass decodes each element, weighs it and notes
// its handoffs' call ids (transferIDs), then lets it go; the second reads
// each with the Responses reader's own element.
func (d *decoder) readItemList(root int) *Cassette {
	if d.data[root] != '[' {
		return nil
	}
	roles, items, foreign := true, false, false
	transfers := map[string]bool{}
	d.array(root, func(i, e int) int {
		v, end := d.piece(e)
		m, _ := v.(map[string]any)
		if i == 0 {
			_, _, _, lc := langChainMessage(m)
			foreign = lc || m != nil && (isClaudeEvent(m) || isAgentsTraceItem(m)) || isLlamaEvent(v)
		}
		roles = roles && hasRole(v)
		items = items || m != nil && (isResponse(m) || isResponsesItem(m))
		maps.Copy(transfers, transferIDs(v))
		return end
	})
	if roles || !items || foreign || !d.clean() {
		d.forget()
		return nil
	}
	r := newResponses(d.w, &Cassette{Format: FormatResponses}, transfers)
	a := &audit{}
	d.array(root, func(_, e int) int {
		if !d.clean() {
			return d.skip(e, false)
		}
		v, end := d.piece(e)
		if d.overOff >= 0 {
			return end // as in readList
		}
		r.element(v)
		if container(v) {
			visit(v, 1, nil, a.found, a)
		}
		return end
	})
	if !d.clean() {
		d.forget()
		return nil
	}
	c := r.finish()
	if !a.passed(d.w, c) {
		d.forget()
		return nil
	}
	return c
}
