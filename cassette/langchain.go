package cassette

// FormatLangChain is a LangChain message list: the "lc": 1 constructor
// form JSON.stringify writes of LangChain.js messages (and dumpd of
// Python's), or the StoredMessage form of mapChatMessagesToStoredMessages
// (messages_to_dict in Python), {"type": "ai", "data": {...}}.
const FormatLangChain Format = "langchain-messages"

// langChainTypes maps the class a constructor names, and the type a
// StoredMessage says, to the role of the message.
var langChainTypes = map[string]string{
	"HumanMessage": "user", "HumanMessageChunk": "user", "human": "user",
	"AIMessage": "assistant", "AIMessageChunk": "assistant", "ai": "assistant",
	"ToolMessage": "tool", "ToolMessageChunk": "tool", "tool": "tool",
	"SystemMessage": "system", "SystemMessageChunk": "system", "system": "system",
	"FunctionMessage": "tool", "function": "tool",
	"ChatMessage": "chat", "generic": "chat", "chat": "chat",
}

// langChainMessage returns the role and the fields of a LangChain
// message in either form, and the key that holds the fields ("kwargs" or
// "data"); ok is false when m is neither form.
func langChainMessage(m map[string]any) (role string, fields map[string]any, key string, ok bool) {
	if m["lc"] == 1.0 && m["type"] == "constructor" {
		id, _ := m["id"].([]any)
		if len(id) == 0 {
			return "", nil, "", false
		}
		class, _ := id[len(id)-1].(string)
		fields, _ = m["kwargs"].(map[string]any)
		role, ok = langChainTypes[class]
		return role, fields, "kwargs", ok && fields != nil
	}
	typ, _ := m["type"].(string)
	fields, _ = m["data"].(map[string]any)
	if _, has := fields["content"]; !has || len(m) != 2 {
		return "", nil, "", false
	}
	role, ok = langChainTypes[typ]
	return role, fields, "data", ok
}

// isLangChain reports whether msgs is a LangChain message list: its
// first element a message of either form.
func isLangChain(msgs []any) bool {
	if len(msgs) == 0 {
		return false
	}
	m, _ := msgs[0].(map[string]any)
	_, _, _, ok := langChainMessage(m)
	return ok
}

// readLangChain reads a LangChain message list, at the walker's path, as
// one run: a human message starts a turn, an AI message's tool_calls
// ([{"id", "name", "args"}]) are calls by the agent its "name" names,
// answered by the ToolMessage with their tool_call_id (status "error" a
// failed call), its text the answer; usage_metadata is its tokens,
// response_metadata.model_name (or model) the model.
func readLangChain(w *walker, msgs []any, obj map[string]any) *Cassette {
	c := &Cassette{Format: FormatLangChain}
	t := newTranscript(w, c)
	for i, v := range msgs {
		w.pushIdx(i)
		t.langChainAt(v)
		w.pop()
	}
	if m, _ := obj["model"].(string); m != "" {
		c.Model = m
	}
	c.Runs = []Run{t.finish()}
	return c
}

// langChainAt reads one element of a LangChain message list, the value at
// the walker's path.
func (t *transcript) langChainAt(v any) {
	m, _ := v.(map[string]any)
	role, fields, key, ok := langChainMessage(m)
	if !ok {
		t.w.typeError(v, `a LangChain message, {"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs": {...}} or {"type": "ai", "data": {...}}`)
		return
	}
	t.w.push(key)
	t.langChain(role, fields)
	t.w.pop()
}

// langChain reads the fields of one LangChain message of role.
func (t *transcript) langChain(role string, m map[string]any) {
	switch role {
	case "user":
		t.userTurn(text(m["content"]))
	case "assistant":
		name, _ := m["name"].(string)
		if t.c.Agent == "" {
			t.c.Agent = name
		}
		meta, _ := m["response_metadata"].(map[string]any)
		if model := firstNonEmpty(str(meta["model_name"]), str(meta["model"])); t.c.Model == "" && model != "" {
			t.c.Model = model
		}
		t.say(text(m["content"]))
		t.langChainCalls(m["tool_calls"], name)
		t.usage.add(langChainUsage(m["usage_metadata"]))
	case "tool":
		id, _ := m["tool_call_id"].(string)
		name := ""
		if id == "" {
			name, _ = m["name"].(string)
		}
		t.result(id, name, keptToolResult(m["content"]), m["status"] == "error")
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// langChainCalls reads an AI message's tool_calls, [{"id", "name",
// "args"}], the calls of agent.
func (t *transcript) langChainCalls(v any, agent string) {
	if v == nil {
		return
	}
	w := t.w
	w.push("tool_calls")
	defer w.pop()
	calls, ok := v.([]any)
	if !ok {
		w.typeError(v, `an array of tool calls {"id": ..., "name": ..., "args": {...}}`)
		return
	}
	t.turn()
	for i, tc := range calls {
		w.pushIdx(i)
		m, ok := tc.(map[string]any)
		if !ok {
			w.typeError(tc, `a tool call {"id": ..., "name": ..., "args": {...}}`)
		} else if name, ok := t.toolName(m); ok {
			c := Call{Arguments: arguments(m["args"]), Agent: agent}
			c.Server, c.Tool = splitMCP(name)
			id, _ := m["id"].(string)
			t.addCall(id, c)
		}
		w.pop()
	}
}

// langChainUsage is a message's usage_metadata ({"input_tokens",
// "output_tokens", "total_tokens", "input_token_details": {"cache_read"}})
// in the naming usageSum reads.
func langChainUsage(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := map[string]any{"input_tokens": m["input_tokens"], "output_tokens": m["output_tokens"]}
	if m["total_tokens"] != nil {
		out["total_tokens"] = m["total_tokens"]
	}
	if d, ok := m["input_token_details"].(map[string]any); ok && d["cache_read"] != nil {
		out["input_tokens_details"] = map[string]any{"cached_tokens": d["cache_read"]}
	}
	return out
}

// langChainRoot finds the message list of a LangChain document: the
// document itself, or the "messages" of a graph's state.
func langChainRoot(root any) ([]any, map[string]any, []seg, bool) {
	switch root := root.(type) {
	case []any:
		return root, nil, nil, isLangChain(root)
	case map[string]any:
		msgs, _ := root["messages"].([]any)
		return msgs, root, []seg{{key: "messages", idx: -1}}, isLangChain(msgs)
	}
	return nil, nil, nil, false
}
