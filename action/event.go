package action

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"

	"github.com/google/go-github/v62/github"
	"github.com/sethvargo/go-githubactions"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
)

// maxEventBytes bounds the event payload; GitHub caps webhook payloads at
// 25 MB.
const maxEventBytes = 32 << 20

// event is the payload of the event that started the workflow, decoded
// into go-github's typed events: each is set when the payload holds its
// object (pull_request, merge_group, workflow_run), whatever the event's
// name, so a pull_request_target payload is read as a pull request too.
type event struct {
	pullRequest *github.PullRequestEvent
	mergeGroup  *github.MergeGroupEvent
	workflowRun *github.WorkflowRunEvent
}

// readContext reads the runner's context from the environment, and the
// event payload (GITHUB_EVENT_PATH) bounded: a regular file of at most
// maxEventBytes, opened without blocking, refused from its size before it
// is read. A payload file that does not exist is no payload, as the
// runner's own library has it.
func readContext(getenv func(string) string) (*githubactions.GitHubContext, event, error) {
	noEvent := func(k string) string {
		if k == "GITHUB_EVENT_PATH" {
			return ""
		}
		return getenv(k)
	}
	gctx, err := githubactions.New(githubactions.WithGetenv(noEvent)).Context()
	if err != nil {
		return nil, event{}, diag.Input("read the GitHub Actions context: %v", err)
	}
	gctx.ServerURL = serverURL(gctx.ServerURL)
	p := getenv("GITHUB_EVENT_PATH")
	if p == "" {
		return gctx, event{}, nil
	}
	gctx.EventPath = p
	data, err := safefile.ReadFile(p, maxEventBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return gctx, event{}, nil
	}
	if err != nil {
		return nil, event{}, diag.Input("read the GitHub Actions context: the event payload (GITHUB_EVENT_PATH) %v", err)
	}
	ev, err := decodeEvent(data)
	if err != nil {
		return nil, event{}, diag.Input("read the GitHub Actions context: failed to unmarshal event payload: %v", err)
	}
	return gctx, ev, nil
}

// decodeEvent decodes a payload into the typed events whose object it
// holds.
func decodeEvent(data []byte) (event, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return event{}, err
	}
	var ev event
	if isObject(keys["pull_request"]) {
		ev.pullRequest = new(github.PullRequestEvent)
		if err := json.Unmarshal(data, ev.pullRequest); err != nil {
			return event{}, err
		}
	}
	if isObject(keys["merge_group"]) {
		ev.mergeGroup = new(github.MergeGroupEvent)
		if err := json.Unmarshal(data, ev.mergeGroup); err != nil {
			return event{}, err
		}
	}
	if isObject(keys["workflow_run"]) {
		ev.workflowRun = new(github.WorkflowRunEvent)
		if err := json.Unmarshal(data, ev.workflowRun); err != nil {
			return event{}, err
		}
	}
	return ev, nil
}

// isObject reports whether a JSON value is an object.
func isObject(raw json.RawMessage) bool {
	for _, b := range raw {
		switch b {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return b == '{'
	}
	return false
}

// prNumber is the pull request of a pull_request event, or 0.
func (ev event) prNumber() int {
	if ev.pullRequest == nil {
		return 0
	}
	return ev.pullRequest.GetPullRequest().GetNumber()
}

// baseHead is the commits a run on the event compares: a pull request's
// base and head, a merge group's base and head; empty on other events.
func (ev event) baseHead() (base, head string) {
	switch {
	case ev.pullRequest != nil:
		pr := ev.pullRequest.GetPullRequest()
		return pr.GetBase().GetSHA(), pr.GetHead().GetSHA()
	case ev.mergeGroup != nil:
		mg := ev.mergeGroup.GetMergeGroup()
		return mg.GetBaseSHA(), mg.GetHeadSHA()
	}
	return "", ""
}

// serverURL is GITHUB_SERVER_URL for the links of the summary, comment
// and issue: without user-info, query or fragment, so the links never
// carry credentials; "" (relative links) when it does not parse.
func serverURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return baseline.RedactURL(u)
}
