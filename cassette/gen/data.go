package gen

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

//go:embed data/livemcpbench.json data/taubench.json
var dataFS embed.FS

// server is one real MCP server's tools/list result.
type server struct {
	Name  string `json:"name"`
	Tools []tool `json:"tools"`
}

// tool is one tools/list entry. Raw keeps it verbatim for the catalog;
// the other fields are what the generator reads from it.
type tool struct {
	Name        string         `json:"name"`
	Description string         `json:"-"`
	InputSchema map[string]any `json:"inputSchema"`
	Raw         json.RawMessage
}

func (t *tool) UnmarshalJSON(b []byte) error {
	var v struct {
		Name        string         `json:"name"`
		Description *string        `json:"description"`
		InputSchema map[string]any `json:"inputSchema"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	t.Name, t.InputSchema, t.Raw = v.Name, v.InputSchema, append(json.RawMessage(nil), b...)
	if v.Description != nil {
		t.Description = *v.Description
	}
	return nil
}

// step is one call of a task's backbone: a real gold or recorded call.
// Args is nil when the source names the tool only.
type step struct {
	Server, Tool string
	Args         any
}

// task is a real prompt with the servers it needs and the calls that solve
// it, in order.
type task struct {
	Agent   string
	Prompt  string
	Servers []string
	Steps   []step
	// Airline marks a τ-bench task: its runs call the airline tools only.
	Airline bool
}

// corpus is everything the generator draws from.
type corpus struct {
	servers  map[string]*server
	order    []string // server names in file order
	tasks    []task
	examples map[string][]any // server.tool → real argument objects
	errors   []string         // real error texts of failed calls
	observed map[string]string
	chain    *markov
}

var (
	loadOnce sync.Once
	loaded   *corpus
)

// data returns the embedded corpus, decoded once. The data is part of the
// binary, so a decoding failure is a build defect and panics.
func data() *corpus {
	loadOnce.Do(func() {
		c, err := decode()
		if err != nil {
			panic("cassette/gen: embedded data: " + err.Error())
		}
		loaded = c
	})
	return loaded
}

func decode() (*corpus, error) {
	var live struct {
		Servers []server `json:"servers"`
		Tasks   []struct {
			Category string      `json:"category"`
			Question string      `json:"question"`
			Steps    [][2]string `json:"steps"`
		} `json:"tasks"`
		Examples map[string][]any `json:"examples"`
		Errors   []string         `json:"errors"`
	}
	var tau struct {
		Tools []tool `json:"tools"`
		Tasks []struct {
			Instruction string  `json:"instruction"`
			Calls       [][]any `json:"calls"`
		} `json:"tasks"`
		Observations map[string][]string `json:"observations"`
	}
	if err := unmarshalFile("data/livemcpbench.json", &live); err != nil {
		return nil, err
	}
	if err := unmarshalFile("data/taubench.json", &tau); err != nil {
		return nil, err
	}
	c := &corpus{
		servers:  map[string]*server{},
		examples: live.Examples,
		errors:   live.Errors,
		observed: map[string]string{},
	}
	for i := range live.Servers {
		s := &live.Servers[i]
		c.servers[s.Name] = s
		c.order = append(c.order, s.Name)
	}
	c.servers[airline] = &server{Name: airline, Tools: tau.Tools}
	c.order = append(c.order, airline)

	var text []string
	for _, t := range live.Tasks {
		tk := task{Agent: "research-assistant", Prompt: t.Question}
		for _, s := range t.Steps {
			if c.tool(s[0], s[1]) == nil {
				return nil, fmt.Errorf("task %q calls %s.%s, which the catalog lacks", t.Question, s[0], s[1])
			}
			tk.Steps = append(tk.Steps, step{Server: s[0], Tool: s[1]})
			if !slices.Contains(tk.Servers, s[0]) {
				tk.Servers = append(tk.Servers, s[0])
			}
		}
		c.tasks = append(c.tasks, tk)
		text = append(text, t.Question)
	}
	for _, t := range tau.Tasks {
		tk := task{Agent: "airline-support", Prompt: t.Instruction, Servers: []string{airline}, Airline: true}
		for _, call := range t.Calls {
			name, _ := call[0].(string)
			if c.tool(airline, name) == nil {
				return nil, fmt.Errorf("τ-bench task calls %q, which the airline catalog lacks", name)
			}
			tk.Steps = append(tk.Steps, step{Server: airline, Tool: name, Args: call[1]})
		}
		c.tasks = append(c.tasks, tk)
		text = append(text, t.Instruction)
	}
	for name, obs := range tau.Observations {
		if len(obs) > 0 {
			c.observed[airline+"."+name] = obs[0]
		}
	}
	for _, name := range c.order {
		for _, t := range c.servers[name].Tools {
			if ascii(t.Description) {
				text = append(text, t.Description)
			}
		}
	}
	c.chain = newMarkov(text)
	return c, nil
}

func unmarshalFile(name string, v any) error {
	b, err := dataFS.ReadFile(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// tool returns the catalog entry of server.name, nil when there is none.
func (c *corpus) tool(serverName, name string) *tool {
	s := c.servers[serverName]
	if s == nil {
		return nil
	}
	for i := range s.Tools {
		if s.Tools[i].Name == name {
			return &s.Tools[i]
		}
	}
	return nil
}

// ascii reports whether s is mostly ASCII prose, so the text chain stays in
// one language.
func ascii(s string) bool {
	if strings.TrimSpace(s) == "" {
		return false
	}
	for _, r := range s {
		if r > 0x2000 {
			return false
		}
	}
	return true
}
