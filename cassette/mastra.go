package cassette

// FormatMastra is a Mastra message list: the MastraDBMessage array an
// agent's generate() gives in result.messages and its memory stores
// (memory.recall(...).messages), each message's content an object
// {"format": 2, "parts": [...]} whose parts hold the text and, for each
// tool call, a {"type": "tool-invocation", "toolInvocation": {...}} part
// with the call and its outcome together; format 3 (MastraMessageV3)
// holds AI SDK 5 UIMessage parts ("tool-<name>") in the same place.
const FormatMastra Format = "mastra-messages"

// isMastraMessages reports whether msgs is a Mastra message list: every
// element a message with a "role" whose content is {"format": 2 or 3,
// "parts": [...]}.
func isMastraMessages(msgs []any) bool {
	if !isMessages(msgs) {
		return false
	}
	for _, m := range msgs {
		m, _ := m.(map[string]any)
		if !isMastraContent(m["content"]) {
			return false
		}
	}
	return true
}

// isMastraContent reports whether v is the content of a Mastra message of
// format 2 or 3: an object with that "format" and a "parts" array.
func isMastraContent(v any) bool {
	c, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, parts := c["parts"].([]any)
	return parts && (c["format"] == 2.0 || c["format"] == 3.0)
}

// readMastra reads a Mastra message list, at the walker's path, as one
// run: a user message's text starts a turn, the assistant's parts are
// read as a UIMessage's (its last text the answer, each tool part a call
// with its outcome: a toolInvocation of state "result" carries the
// tool's value, an MCP tool's CallToolResult whose isError says whether
// it failed). A message whose parts hold no tool part but whose content
// keeps the older toolInvocations list reads that list. The model is the
// content's metadata.modelId (or a step-start part's "model"); the
// messages carry no tokens and no agent name.
func readMastra(w *walker, msgs []any) *Cassette {
	c := &Cassette{Format: FormatMastra}
	t := newTranscript(w, c)
	for i, v := range msgs {
		w.pushIdx(i)
		m, _ := v.(map[string]any)
		role, _ := m["role"].(string)
		content, _ := m["content"].(map[string]any)
		w.push("content")
		parts, _ := content["parts"].([]any)
		w.push("parts")
		t.uiParts(role, parts)
		w.pop()
		if invs, ok := content["toolInvocations"].([]any); ok && !hasToolPart(parts) {
			w.push("toolInvocations")
			t.mastraInvocations(invs)
			w.pop()
		}
		if c.Model == "" {
			c.Model = mastraModel(content, parts)
		}
		w.pop()
		w.pop()
	}
	c.Runs = []Run{t.finish()}
	return c
}

// mastraInvocations reads the toolInvocations list of a message's
// content, the array at the walker's path: each a call with its outcome.
func (t *transcript) mastraInvocations(invs []any) {
	for i, v := range invs {
		t.w.pushIdx(i)
		if inv, ok := v.(map[string]any); ok {
			name, _ := inv["toolName"].(string)
			t.uiCall(name, inv)
		} else {
			t.w.typeError(v, `a tool invocation {"state", "toolCallId", "toolName", "args", "result"}`)
		}
		t.w.pop()
	}
}

// hasToolPart reports whether parts hold a tool part of either shape.
func hasToolPart(parts []any) bool {
	for _, p := range parts {
		if p, ok := p.(map[string]any); ok && (isUIToolPart(p) || isToolInvocation(p)) {
			return true
		}
	}
	return false
}

// mastraModel is the model a message's content names: metadata.modelId,
// else the "model" of a step-start part ("provider/model"); "" when none.
func mastraModel(content map[string]any, parts []any) string {
	meta, _ := content["metadata"].(map[string]any)
	if s, _ := meta["modelId"].(string); s != "" {
		return s
	}
	for _, p := range parts {
		p, _ := p.(map[string]any)
		if s, _ := p["model"].(string); p["type"] == "step-start" && s != "" {
			return s
		}
	}
	return ""
}

// detectMore detects the formats of Mastra, LlamaIndex.TS and Inspect AI
// at the root of a document, before the transcripts whose shapes theirs
// resemble.
func detectMore(root any) (detected, bool) {
	if msgs, at, ok := messagesRoot(root, isMastraMessages); ok {
		return detected{format: FormatMastra, msgs: msgs, at: at}, true
	}
	if msgs, at, ok := messagesRoot(root, isLlamaMessages); ok {
		return detected{format: FormatLlamaIndex, msgs: msgs, at: at}, true
	}
	switch root := root.(type) {
	case []any:
		if isLlamaEvents(root) {
			return detected{format: FormatLlamaIndexEvents, msgs: root}, true
		}
	case map[string]any:
		if isInspectLog(root) {
			return detected{format: FormatInspect, obj: root}, true
		}
	}
	return detected{}, false
}
