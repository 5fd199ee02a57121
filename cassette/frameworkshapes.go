package cassette

// frameworkShape is readableShape for the call-shaped data of the Mastra,
// LlamaIndex.TS and Inspect AI readers: found where those readers do not
// look (a message list they did not recognise, nested in another
// document), it names the reader that takes it.
func frameworkShape(m map[string]any, str func(any) string) (what, tool, source string, reader Format, ok bool) {
	inv, _ := m["toolInvocation"].(map[string]any)
	switch {
	case m["type"] == "tool-invocation" && str(inv["toolName"]) != "":
		return `a "tool-invocation" part`, str(inv["toolName"]),
			`Mastra messages (content {"format": 2, "parts"}) and AI SDK 4 UIMessages`, FormatMastra, true
	case str(m["toolName"]) != "" && str(m["toolCallId"]) != "" && m["args"] != nil && str(m["state"]) != "":
		return `a "toolInvocation"`, str(m["toolName"]),
			`Mastra messages (content {"format": 2, "parts"}) and AI SDK 4 UIMessages`, FormatMastra, true
	case str(m["toolName"]) != "" && str(m["toolId"]) != "" && m["toolKwargs"] != nil:
		return "a LlamaIndex.TS agent tool call", str(m["toolName"]),
			`LlamaIndex.TS workflow events ({"type", "data"})`, FormatLlamaIndexEvents, true
	}
	if calls, ok := m["toolCall"].([]any); ok {
		for _, c := range calls {
			c, _ := c.(map[string]any)
			if name := str(c["name"]); name != "" && c["id"] != nil {
				return `a LlamaIndex.TS message's options.toolCall`, name,
					"LlamaIndex.TS ChatMessage arrays", FormatLlamaIndex, true
			}
		}
	}
	_, args := m["arguments"].(map[string]any)
	switch {
	case str(m["function"]) != "" && args && str(m["id"]) != "":
		what := "an Inspect AI tool call"
		if m["event"] == "tool" {
			what = `an Inspect AI "tool" event`
		}
		return what, str(m["function"]), "Inspect AI eval logs (samples' messages)", FormatInspect, true
	}
	return "", "", "", "", false
}
