package action

import (
	"encoding/json"
	"testing"
)

// TestDecodeEvent: each typed event is read when the payload holds its
// object, whatever the event's name; a payload that is not an object, or
// an object of the wrong shape, is an error.
func TestDecodeEvent(t *testing.T) {
	ev, err := decodeEvent([]byte(`{"pull_request": {"number": 7, "base": {"sha": "b"}, "head": {"sha": "h"}}}`))
	if err != nil || ev.prNumber() != 7 {
		t.Fatalf("pull_request: %+v %v", ev, err)
	}
	if base, head := ev.baseHead(); base != "b" || head != "h" {
		t.Errorf("base %q head %q", base, head)
	}
	ev, err = decodeEvent([]byte(`{"merge_group": {"base_sha": "b2", "head_sha": "h2"}, "pull_request": null}`))
	if err != nil || ev.prNumber() != 0 {
		t.Fatalf("merge_group: %+v %v", ev, err)
	}
	if base, head := ev.baseHead(); base != "b2" || head != "h2" {
		t.Errorf("merge group base %q head %q", base, head)
	}
	ev, err = decodeEvent([]byte(`{"workflow_run": {"id": 77, "event": "pull_request", "head_repository": {"full_name": "f/r", "owner": {"login": "f"}}}}`))
	if err != nil || ev.workflowRun.GetWorkflowRun().GetID() != 77 || ev.workflowRun.GetWorkflowRun().GetHeadRepository().GetOwner().GetLogin() != "f" {
		t.Fatalf("workflow_run: %+v %v", ev, err)
	}
	for _, bad := range []string{`[]`, `"x"`, `{"pull_request": {"number": "seven"}}`, `{`} {
		if _, err := decodeEvent([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// FuzzDecodeEvent: any payload decodes or is refused, never panics, and
// what it decodes to answers the Action's questions.
func FuzzDecodeEvent(f *testing.F) {
	f.Add([]byte(`{"pull_request": {"number": 7, "base": {"sha": "b"}, "head": {"sha": "h", "repo": {"full_name": "a/b"}}}}`))
	f.Add([]byte(`{"merge_group": {"base_sha": "b", "head_sha": "h"}}`))
	f.Add([]byte(`{"workflow_run": {"id": 1, "event": "pull_request", "conclusion": "success", "head_sha": "h", "head_branch": "x"}}`))
	f.Add([]byte(`{"schedule": "0 6 * * *"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := decodeEvent(data)
		if err != nil {
			return
		}
		_ = ev.prNumber()
		_, _ = ev.baseHead()
		if ev.workflowRun != nil {
			_ = ev.workflowRun.GetWorkflowRun().GetHeadRepository().GetFullName()
		}
		if (ev.pullRequest != nil || ev.mergeGroup != nil || ev.workflowRun != nil) && !json.Valid(data) {
			t.Fatalf("an event decoded from invalid JSON: %q", data)
		}
	})
}

// TestServerURL: GITHUB_SERVER_URL for the links loses its user-info,
// query and fragment; one that does not parse gives relative links ("").
func TestServerURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com":                           "https://github.com",
		"https://user:ghs_secret@ghe.example.com/?a#b": "https://ghe.example.com/",
		"http://[::1":                                  "",
		"":                                             "",
	} {
		if got := serverURL(in); got != want {
			t.Errorf("serverURL(%q) = %q, want %q", in, got, want)
		}
	}
}
