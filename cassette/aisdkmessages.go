package cassette

// FormatAISDKMessages is a Vercel AI SDK ModelMessage array, as
// generateText and streamText give it in response.messages: messages
// whose content is a list of typed parts, "tool-call" parts in the
// assistant's messages and "tool-result" parts in the tool's.
const FormatAISDKMessages Format = "ai-sdk-messages"

// isModelMessages reports whether msgs is an AI SDK ModelMessage array:
// messages with a "role", one of them holding a "tool-call" or a
// "tool-result" part (the AI SDK's own part types; without one the
// messages read the same as a Chat Completions transcript).
func isModelMessages(msgs []any) bool {
	return messagesWithPart(msgs, "content", isModelPart)
}

// isModelPart reports whether p is a ModelMessage's tool part.
func isModelPart(p map[string]any) bool {
	return p["type"] == "tool-call" || p["type"] == "tool-result" || p["type"] == "tool-invocation"
}

// messagesWithPart reports whether msgs is an array of messages with a
// "role", one of which holds, in its array of parts under key, a part
// that is.
func messagesWithPart(msgs []any, key string, is func(map[string]any) bool) bool {
	if !isMessages(msgs) {
		return false
	}
	for _, m := range msgs {
		m, _ := m.(map[string]any)
		parts, _ := m[key].([]any)
		for _, p := range parts {
			if p, _ := p.(map[string]any); is(p) {
				return true
			}
		}
	}
	return false
}

// messagesRoot finds the message array of a document, the document itself
// or its "messages" (a response or a chat saved whole), else its
// "responseMessages" (AI SDK 7's result, whose response.messages holds the
// last step only), and its path; ok when is holds of it.
func messagesRoot(root any, is func([]any) bool) ([]any, []seg, bool) {
	switch root := root.(type) {
	case []any:
		return root, nil, is(root)
	case map[string]any:
		for _, key := range []string{"messages", "responseMessages"} {
			if msgs, _ := root[key].([]any); is(msgs) {
				return msgs, []seg{{key: key, idx: -1}}, true
			}
		}
	}
	return nil, nil, false
}

// aiResult reads what an AI SDK result saved whole holds beside its
// messages into c and t: the model (modelId of result.response, or of
// the response under "response") and the usage (result.usage or
// totalUsage: inputTokens, outputTokens, totalTokens, the cached input
// tokens under inputTokenDetails.cacheReadTokens, cachedInputTokens
// before AI SDK 6).
func aiResult(c *Cassette, t *transcript, obj map[string]any) {
	resp, _ := obj["response"].(map[string]any)
	for _, m := range []map[string]any{obj, resp} {
		if id, _ := m["modelId"].(string); id != "" && c.Model == "" {
			c.Model = id
		}
	}
	u, _ := obj["totalUsage"].(map[string]any)
	if u == nil {
		u, _ = obj["usage"].(map[string]any)
	}
	if u == nil || u["inputTokens"] == nil && u["outputTokens"] == nil {
		return
	}
	out := map[string]any{"input_tokens": u["inputTokens"], "output_tokens": u["outputTokens"]}
	if u["totalTokens"] != nil {
		out["total_tokens"] = u["totalTokens"]
	}
	details, _ := u["inputTokenDetails"].(map[string]any)
	if c := firstNonNil(details["cacheReadTokens"], u["cachedInputTokens"]); c != nil {
		out["input_tokens_details"] = map[string]any{"cached_tokens": c}
	}
	t.usage.add(out)
}

func firstNonNil(v ...any) any {
	for _, x := range v {
		if x != nil {
			return x
		}
	}
	return nil
}

// lastStepWarning is the warning for a transcript f, read as runs with no
// call, whose messages (an array of them, not one message) are an
// assistant's alone, in parts, with no prompt: the shape of an AI SDK
// result's response.messages, which holds the last step only since AI SDK
// 7, so the calls of the steps before it are not in the file; "" when the
// transcript is not of that shape.
func lastStepWarning(f detected, runs []Run) string {
	obj, msgs := f.obj, f.msgs
	if len(msgs) == 0 || f.one || f.bare || hasCalls(runs) {
		return ""
	}
	for _, m := range msgs {
		if m, _ := m.(map[string]any); !assistantParts(m) {
			return ""
		}
	}
	return lastStepText(obj)
}

// assistantParts reports whether m is an assistant's message in parts.
func assistantParts(m map[string]any) bool {
	_, parts := m["content"].([]any)
	return parts && m["role"] == "assistant"
}

// lastStepText is lastStepWarning's text for a transcript whose root is
// obj (nil for a bare array).
func lastStepText(obj map[string]any) string {
	from := "the messages"
	if _, ok := obj["modelId"].(string); ok {
		from = "an AI SDK response (modelId), whose messages"
	}
	return from + " are an assistant's alone, with no prompt and no tool call: if they are an AI SDK result's " +
		"response.messages, AI SDK 7 keeps only the last step there and the calls of the steps before it are not in " +
		"the file; save result.responseMessages (AI SDK 7) or result.steps instead"
}

// readModelMessages reads a ModelMessage array, at the walker's path, as
// one run: a user message starts a turn, an assistant's text is the
// answer and its tool-call parts ({"toolCallId", "toolName", "input"},
// "args" before AI SDK 5) the calls, each answered by the tool-result
// part with its toolCallId ({"output": {"type", "value"}}, or "result"
// and "isError" before AI SDK 5). The messages carry no tokens, model or
// agent; a result saved whole (obj, nil for a bare array) gives its model
// and usage (see aiResult).
func readModelMessages(w *walker, msgs []any, obj map[string]any) *Cassette {
	c := &Cassette{Format: FormatAISDKMessages}
	t := newTranscript(w, c)
	aiResult(c, t, obj)
	for i, v := range msgs {
		w.pushIdx(i)
		t.modelMessageAt(v)
		w.pop()
	}
	c.Runs = []Run{t.finish()}
	return c
}

// modelMessageAt reads one ModelMessage, the value at the walker's path.
func (t *transcript) modelMessageAt(v any) {
	w := t.w
	m, _ := v.(map[string]any)
	role, _ := m["role"].(string)
	switch content := m["content"].(type) {
	case string:
		t.modelText(role, content)
	case []any:
		w.push("content")
		t.modelParts(role, content)
		w.pop()
	default:
		w.push("content")
		w.typeError(m["content"], "the message's content, a string or an array of parts")
		w.pop()
	}
}

// modelText reads the text of a message of role.
func (t *transcript) modelText(role, s string) {
	switch role {
	case "user":
		t.userTurn(s)
	case "assistant":
		t.say(s)
	}
}

// modelParts reads the parts of a message of role, the array at the
// walker's path.
func (t *transcript) modelParts(role string, parts []any) {
	if role == "user" || role == "assistant" {
		t.modelText(role, text(parts))
	}
	for i, p := range parts {
		t.w.pushIdx(i)
		m, ok := p.(map[string]any)
		switch {
		case !ok:
			t.w.typeError(p, `a part {"type": ...}`)
		case m["type"] == "tool-call":
			t.modelCall(m)
		case m["type"] == "tool-invocation":
			t.invocation(m)
		case m["type"] == "tool-result":
			id, _ := m["toolCallId"].(string)
			name, _ := m["toolName"].(string)
			res, isErr := modelResult(m)
			t.result(id, name, res, isErr)
		}
		t.w.pop()
	}
}

// invocation reads a part of type "tool-invocation", the name AI SDK 4
// gave a call and its outcome together: its fields beside the type
// ({"toolCallId", "toolName", "args", "state", "result"}) or under
// "toolInvocation", read as a UIMessage tool part is.
func (t *transcript) invocation(m map[string]any) {
	if inv, ok := m["toolInvocation"].(map[string]any); ok {
		t.w.push("toolInvocation")
		defer t.w.pop()
		m = inv
	}
	name, _ := m["toolName"].(string)
	t.uiCall(name, m)
}

// modelCall reads a tool-call part.
func (t *transcript) modelCall(m map[string]any) {
	name, ok := m["toolName"].(string)
	if _, has := m["toolName"]; !has {
		t.w.errorf(`missing "toolName": every tool-call part names the tool it calls`)
		return
	}
	if !ok || name == "" {
		t.w.push("toolName")
		t.w.typeError(m["toolName"], "the name of the called tool, a non-empty string")
		t.w.pop()
		return
	}
	t.partCall(name, m)
}

// partCall records the call an AI SDK tool part of the tool name makes:
// its arguments are its input (args before AI SDK 5), its id its
// toolCallId, which it returns.
func (t *transcript) partCall(name string, m map[string]any) string {
	args, has := m["input"]
	if !has {
		args = m["args"]
	}
	c := Call{Arguments: arguments(args)}
	c.Server, c.Tool = splitMCP(name)
	id, _ := m["toolCallId"].(string)
	t.addCall(id, c)
	return id
}

// modelResult makes a CallToolResult of a tool-result part and says
// whether the call failed. The output of AI SDK 5 and later is typed:
// "text" and "json" a value, "content" a list of content parts,
// "error-text", "error-json" and "execution-denied" a failure; before
// it, "result" was the tool's value and "isError" its failure. A value
// that is a CallToolResult (an MCP tool's) is itself.
func modelResult(m map[string]any) (any, bool) {
	out, typed := m["output"].(map[string]any)
	if !typed {
		failed, _ := m["isError"].(bool)
		res := otelResult(m["result"])
		rm, _ := res.(map[string]any)
		isErr, _ := rm["isError"].(bool)
		return res, failed || isErr
	}
	value := out["value"]
	switch out["type"] {
	case "content":
		parts, _ := value.([]any)
		return toolResult(parts), false
	case "error-text", "error-json":
		return toolResult(jsonText(value)), true
	case "execution-denied":
		reason, _ := out["reason"].(string)
		return toolResult(reason), true
	}
	res := otelResult(value)
	rm, _ := res.(map[string]any)
	isErr, _ := rm["isError"].(bool)
	return res, isErr
}
