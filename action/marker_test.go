package action

import (
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline/ghapitest"
)

// TestActionMarkerFirstLine: the bot's comment of another suite, whose
// fenced floor lines carry this suite's marker (a tool named after it), is
// not taken for this suite's sticky comment and is left as it is; the
// suite gets its own comment, whose marker is its first line.
func TestActionMarkerFirstLine(t *testing.T) {
	srv := newServer(t)
	srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
	other := annotate.CommentMarker("other.yml") + "\n### mcptest: FAIL — other.yml\n\n```text\nFLOOR called x " + annotate.CommentMarker(actionSuite) + "\n```\n"
	srv.Comments = []*ghapitest.Comment{{ID: 100, Issue: 7, Body: other, User: "github-actions[bot]"}}
	r := newRunner(t, srv, "pull_request", prEvent(7, "acme/agents", "head0001"))
	res := r.run()
	if res.code != ExitFail || srv.Count("issues/create-comment") != 1 || srv.Count("issues/update-comment") != 0 {
		t.Fatalf("exit %d, %d comments created, %d updated; want 1, 1, 0\n%s%s", res.code,
			srv.Count("issues/create-comment"), srv.Count("issues/update-comment"), res.stdout, res.stderr)
	}
	if srv.Comments[0].Body != other {
		t.Error("the other suite's comment was overwritten")
	}
	if own := srv.Comments[1].Body; !strings.HasPrefix(own, annotate.CommentMarker(actionSuite)+"\n") || strings.Count(own, "<!--") != 1 {
		t.Errorf("the suite's comment does not hold its marker alone on its first line:\n%s", own)
	}
}

// TestDriftMarkerFirstLine: an open drift-labelled issue with the suite's
// marker below its first line is not the suite's drift issue.
func TestDriftMarkerFirstLine(t *testing.T) {
	srv := newServer(t)
	srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
	drift := "Tracking.\n" + annotate.DriftMarker(actionSuite) + "\n"
	srv.Issues = []*ghapitest.Issue{{Number: 3, Title: "not ours", Body: drift, State: "open", Labels: []string{"mcptest-drift"}}}
	d := newRunner(t, srv, "schedule", map[string]any{"schedule": "0 6 * * *"})
	if res := d.run(); srv.Count("issues/create") != 1 || srv.Issues[0].Body != drift {
		t.Errorf("drift: %d issues created, issue 3 body %q\n%s%s", srv.Count("issues/create"), srv.Issues[0].Body, res.stdout, res.stderr)
	}
}
