package cassette

import "strings"

// FormatAISDKUIMessages is a Vercel AI SDK UIMessage array: what a chat
// UI keeps (useChat's messages, readUIMessageStream's), messages whose
// "parts" hold the text and, for each tool call, one part with the call
// and its outcome together.
const FormatAISDKUIMessages Format = "ai-sdk-ui-messages"

// isUIMessages reports whether msgs is a UIMessage array: messages with a
// "role", one of them holding a tool part in its "parts" (without one the
// messages carry no call to read).
func isUIMessages(msgs []any) bool {
	return messagesWithPart(msgs, "parts", func(p map[string]any) bool {
		return isUIToolPart(p) || isToolInvocation(p)
	})
}

// readUIMessages reads a UIMessage array, at the walker's path, as one
// run: a user message's text starts a turn, an assistant's last text is
// the answer, and each tool part is a call with its outcome. The messages
// carry no tokens, model or agent.
func readUIMessages(w *walker, msgs []any) *Cassette {
	c := &Cassette{Format: FormatAISDKUIMessages}
	t := newTranscript(w, c)
	for i, v := range msgs {
		w.pushIdx(i)
		t.uiMessageAt(v)
		w.pop()
	}
	c.Runs = []Run{t.finish()}
	return c
}

// uiMessageAt reads one UIMessage, the value at the walker's path.
func (t *transcript) uiMessageAt(v any) {
	w := t.w
	m, _ := v.(map[string]any)
	role, _ := m["role"].(string)
	switch parts := m["parts"].(type) {
	case []any:
		w.push("parts")
		t.uiParts(role, parts)
		w.pop()
	case nil:
		// A message of the older shape, its text in "content".
		if s, ok := m["content"].(string); ok {
			t.modelText(role, s)
		}
	default:
		w.push("parts")
		w.typeError(parts, "the message's parts, an array")
		w.pop()
	}
}

// uiParts reads the parts of a message of role, the array at the
// walker's path, in order: an assistant message holds every step of its
// turn, so its text parts and tool parts interleave, and its last text is
// the answer.
func (t *transcript) uiParts(role string, parts []any) {
	for i, p := range parts {
		t.w.pushIdx(i)
		m, ok := p.(map[string]any)
		switch {
		case !ok:
			t.w.typeError(p, `a part {"type": ...}`)
		case m["type"] == "text":
			s, _ := m["text"].(string)
			t.modelText(role, s)
		case isUIToolPart(m):
			t.uiCall(uiTool(m), m)
		case isToolInvocation(m):
			t.w.push("toolInvocation")
			inv := m["toolInvocation"].(map[string]any)
			name, _ := inv["toolName"].(string)
			t.uiCall(name, inv)
			t.w.pop()
		}
		t.w.pop()
	}
}

// uiCall reads one tool part (or an AI SDK 4 toolInvocation) as a call of
// name, with its result once its state has one:
//   - "output-available" (AI SDK 4: "result"): "output" ("result") is
//     the tool's value, a CallToolResult for an MCP tool, whose isError
//     says whether it failed;
//   - "output-error": the call failed, "errorText" says why;
//   - "output-denied": the user denied the call, which failed;
//   - any other state (the input streaming or complete, an approval
//     asked or given): the call has no result yet.
func (t *transcript) uiCall(name string, m map[string]any) {
	if name == "" {
		t.w.errorf(`the tool part names no tool: expected a "tool-<name>" type or a "toolName"`)
		return
	}
	id := t.partCall(name, m)
	state, _ := m["state"].(string)
	switch state {
	case "output-available", "result":
		v, has := m["output"]
		if !has {
			v = m["result"]
		}
		res := otelResult(v)
		rm, _ := res.(map[string]any)
		isErr, _ := rm["isError"].(bool)
		t.result(id, name, res, isErr)
	case "output-error":
		msg, _ := m["errorText"].(string)
		t.result(id, name, toolResult(msg), true)
	case "output-denied":
		approval, _ := m["approval"].(map[string]any)
		reason, _ := approval["reason"].(string)
		t.result(id, name, toolResult(strings.TrimSpace("denied "+reason)), true)
	}
}

// isToolInvocation reports whether m is an AI SDK 4 UIMessage tool part:
// type "tool-invocation" holding a toolInvocation with a toolCallId.
func isToolInvocation(m map[string]any) bool {
	inv, _ := m["toolInvocation"].(map[string]any)
	_, id := inv["toolCallId"].(string)
	return m["type"] == "tool-invocation" && id
}
