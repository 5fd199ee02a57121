package ghapitest

import (
	"net/url"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	s := Require(t)
	ok := []struct {
		method, path, query, body, id string
	}{
		{"GET", "/repos/o/r", "", "", "repos/get"},
		{"GET", "/repos/o/r/actions/workflows/mcptest-baseline.yml/runs", "branch=main&status=success&per_page=30", "", "actions/list-workflow-runs"},
		{"GET", "/repos/o/r/actions/runs/12/artifacts", "name=mcptest-baseline&per_page=100", "", "actions/list-workflow-run-artifacts"},
		{"GET", "/repos/o/r/actions/artifacts/5/zip", "", "", "actions/download-artifact"},
		{"GET", "/repos/o/r/issues/comments/7", "", "", "issues/get-comment"},
		{"PATCH", "/repos/o/r/issues/comments/7", "", `{"body":"x"}`, "issues/update-comment"},
		{"POST", "/repos/o/r/issues", "", `{"title":"t","body":"b","labels":["mcptest-drift"]}`, "issues/create"},
		{"PATCH", "/repos/o/r/issues/3", "", `{"state":"closed","state_reason":"completed"}`, "issues/update"},
	}
	for _, c := range ok {
		q, _ := url.ParseQuery(c.query)
		id, _, err := s.Check(c.method, c.path, q, []byte(c.body))
		if err != nil || id != c.id {
			t.Errorf("%s %s: got %q, %v; want %s", c.method, c.path, id, err, c.id)
		}
	}
	bad := []struct {
		method, path, query, body, want string
	}{
		{"GET", "/repos/o/r/nothing/here", "", "", "no operation"},
		{"DELETE", "/repos/o/r/actions/runs/12/artifacts", "", "", "no operation"},
		{"GET", "/repos/o/r/actions/runs/twelve/artifacts", "", "", "path parameter run_id"},
		{"GET", "/repos/o/r/actions/runs/12/artifacts", "bogus=1", "", `query parameter "bogus" is not described`},
		{"GET", "/repos/o/r/actions/runs/12/artifacts", "per_page=many", "", "query parameter per_page"},
		{"PATCH", "/repos/o/r/issues/3", "", `{"state":"shut"}`, "does not match"},
		{"POST", "/repos/o/r/issues/3/comments", "", `{"text":"x"}`, "does not match"},
		{"POST", "/repos/o/r/issues/3/comments", "", `not json`, "not JSON"},
		{"GET", "/repos/o/r", "", `{"a":1}`, "takes no request body"},
	}
	for _, c := range bad {
		q, _ := url.ParseQuery(c.query)
		_, _, err := s.Check(c.method, c.path, q, []byte(c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s?%s %s: got %v, want an error with %q", c.method, c.path, c.query, c.body, err, c.want)
		}
	}
}
