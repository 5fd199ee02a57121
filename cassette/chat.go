package cassette

import "github.com/mcptest/mcptest/internal/jsonpos"

// chatAnswer is an OpenAI assistant message of the shape a model's answer
// has, read by readChat without a generic value of it.
type chatAnswer struct {
	role    bool
	content string
	// toolCalls marks a message with a "tool_calls" member, null or an
	// array; calls are the array's.
	toolCalls bool
	calls     []chatCall
}

type chatCall struct {
	id, name  string
	arguments JSON
}

// chatReader is the state of readChat: fail is set at the first thing
// outside the shapes it reads.
type chatReader struct {
	d    *decoder
	fail bool
	// msg is the root as a message; choices the root's choices.
	msg                chatAnswer
	choices            []chatAnswer
	hasMsg, hasChoices bool
	model              string
	usage              any
}

// readChat reads the document whose root starts at root when it is one of
// the two shapes an eval harness saves of an OpenAI model's answer: an
// assistant message {"role": "assistant", "content": ..., "tool_calls":
// [...]}, or a Chat Completions response {"choices": [{"message": ...}],
// "usage": ..., "model": ...} whose messages are such messages and make at
// least one call. It decodes straight into the calls, as the v1 reader
// does, and gives the cassette the generic path (detect, readTranscript,
// readCompletion) gives: FuzzChat holds the two equal. For any other
// shape, and for a document with a problem, it returns nil having
// recorded nothing, and recording reads the document generically.
func (d *decoder) readChat(root int) *Cassette {
	if d.data[root] != '{' {
		return nil
	}
	r := &chatReader{d: d}
	d.object(root, r.rootMember)
	var c *Cassette
	switch {
	case r.fail || !d.clean() || r.hasMsg == r.hasChoices:
	case r.hasMsg && r.msg.role && r.msg.toolCalls:
		// A message of its own may carry its model and usage.
		c = &Cassette{Format: FormatOpenAI, Model: r.model}
		c.Runs = []Run{r.run(c, &r.msg, r.usage)}
	case r.hasChoices && r.calls():
		c = &Cassette{Format: FormatOpenAI, Model: r.model}
		for i := range r.choices {
			c.Runs = append(c.Runs, r.run(&Cassette{Format: FormatOpenAI}, &r.choices[i], nil))
		}
		if len(c.Runs) == 1 {
			var u usageSum
			u.add(r.usage)
			if tok := u.tokens(); tok != nil {
				c.Runs[0].Tokens = tok
			}
		}
	}
	if c == nil {
		d.forget() // read again generically, from a clean slate
	}
	return c
}

// calls reports whether a choice's message has tool calls: without them
// the usage or the content would decide the format.
func (r *chatReader) calls() bool {
	for _, m := range r.choices {
		if m.toolCalls {
			return true
		}
	}
	return false
}

// run is the run of one message with its usage, as readTranscript reads
// it.
func (r *chatReader) run(c *Cassette, m *chatAnswer, usage any) Run {
	t := newTranscript(r.d.w, c)
	t.say(m.content)
	if m.calls != nil {
		t.turn()
		for _, call := range m.calls {
			cl := Call{Arguments: call.arguments}
			cl.Server, cl.Tool = splitMCP(call.name)
			t.addCall(call.id, cl)
		}
	}
	t.usage.add(usage)
	return t.finish()
}

// skip passes over a value once the shape is known not to fit.
func (r *chatReader) skip(v int) int {
	r.fail = true
	return r.d.skip(v, false)
}

func (r *chatReader) rootMember(key string, _, v int) int {
	d := r.d
	if r.fail {
		return d.skip(v, false)
	}
	switch key {
	case "role", "content", "tool_calls", "refusal", "annotations":
		r.hasMsg = true
		return r.messageMember(&r.msg, key, v)
	case "choices":
		r.hasChoices = true
		if d.data[v] != '[' {
			return r.skip(v)
		}
		return d.array(v, func(_, e int) int { return r.choice(e) })
	case "model":
		if d.data[v] == '"' {
			var end int
			r.model, end = d.str(v, true)
			return end
		}
		return d.discard(v)
	case "usage":
		var end int
		r.usage, end = d.value(v)
		return end
	case "id", "object", "created", "system_fingerprint", "service_tier":
		return d.discard(v)
	}
	return r.skip(v)
}

// choice reads one element of "choices": {"message": ..., "index": ...,
// "finish_reason": ..., "logprobs": ...}.
func (r *chatReader) choice(i int) int {
	d := r.d
	if r.fail || d.data[i] != '{' {
		return r.skip(i)
	}
	var m chatAnswer
	has := false
	end := d.object(i, func(key string, _, v int) int {
		switch {
		case r.fail:
			return d.skip(v, false)
		case key == "message":
			has = true
			return r.message(&m, v)
		case key == "index", key == "finish_reason", key == "logprobs":
			return d.discard(v)
		}
		return r.skip(v)
	})
	if !has {
		r.fail = true
	}
	r.choices = append(r.choices, m)
	return end
}

// message reads a message object that is not the root.
func (r *chatReader) message(m *chatAnswer, i int) int {
	d := r.d
	if d.data[i] != '{' {
		return r.skip(i)
	}
	end := d.object(i, func(key string, _, v int) int {
		if r.fail {
			return d.skip(v, false)
		}
		return r.messageMember(m, key, v)
	})
	if !m.role {
		r.fail = true
	}
	return end
}

// messageMember reads one member of an assistant message.
func (r *chatReader) messageMember(m *chatAnswer, key string, v int) int {
	d := r.d
	switch key {
	case "role":
		m.role = true
		if d.data[v] != '"' {
			return r.skip(v)
		}
		role, end := d.str(v, true)
		if role != "assistant" {
			r.fail = true
		}
		return end
	case "content":
		switch d.data[v] {
		case '"':
			var end int
			m.content, end = d.str(v, false)
			return end
		case 'n':
			return v + 4
		}
		return r.skip(v)
	case "tool_calls":
		m.toolCalls = true
		switch d.data[v] {
		case 'n':
			return v + 4
		case '[':
			m.calls = []chatCall{}
			return d.array(v, func(_, e int) int { return r.call(m, e) })
		}
		return r.skip(v)
	case "refusal", "annotations":
		return d.discard(v)
	}
	return r.skip(v)
}

// call reads one element of tool_calls: {"id": ..., "type": ...,
// "function": {"name": ..., "arguments": ...}}.
func (r *chatReader) call(m *chatAnswer, i int) int {
	d := r.d
	if r.fail || d.data[i] != '{' {
		return r.skip(i)
	}
	var c chatCall
	fn := false
	end := d.object(i, func(key string, _, v int) int {
		switch {
		case r.fail:
			return d.skip(v, false)
		case key == "id" && d.data[v] == '"':
			var end int
			c.id, end = d.str(v, false)
			return end
		case key == "function":
			fn = true
			return r.function(&c, v)
		}
		return d.discard(v)
	})
	if !fn {
		r.fail = true
	}
	m.calls = append(m.calls, c)
	return end
}

// function reads a call's {"name": ..., "arguments": ...}; arguments is
// a JSON string, read as JSON text, or a value kept as its text.
func (r *chatReader) function(c *chatCall, i int) int {
	d := r.d
	if d.data[i] != '{' {
		return r.skip(i)
	}
	end := d.object(i, func(key string, _, v int) int {
		switch {
		case r.fail:
			return d.skip(v, false)
		case key == "name":
			if d.data[v] != '"' || d.data[v+1] == '"' {
				return r.skip(v)
			}
			var end int
			c.name, end = d.str(v, true)
			return end
		case key == "arguments" && d.data[v] == '"' && d.counting && !jsonpos.MayBeOverBudget(d.strEnd(v)-v):
			return d.strEnd(v) // a JSON string: no problem of it is the document's
		case key == "arguments" && d.data[v] == '"':
			s, end := d.str(v, false)
			c.arguments = arguments(s)
			return end
		case key == "arguments":
			var end int
			c.arguments, end = d.args(v)
			return end
		}
		return d.discard(v)
	})
	if c.name == "" {
		r.fail = true
	}
	return end
}
