package engine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestServerTarget: a server of a suite file is its live target with the
// suite's timeout: unless a timeout is given; an undeclared name is a
// *NoServerError listing the declared ones.
func TestServerTarget(t *testing.T) {
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite.yml")
	body := "servers:\n  a:\n    command: [echo, a]\n    timeout: 5s\n  b:\n    url: http://127.0.0.1:1/mcp\n"
	if err := os.WriteFile(suite, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ServerTarget(suite, "a", 0)
	if err != nil || got.Name != "a" || got.Timeout != 5*time.Second || got.Dir != dir || len(got.Command) != 2 {
		t.Errorf("ServerTarget a = %+v, %v", got, err)
	}
	if got, err = ServerTarget(suite, "a", time.Second); err != nil || got.Timeout != time.Second {
		t.Errorf("ServerTarget a with 1s = %+v, %v", got, err)
	}
	_, err = ServerTarget(suite, "c", 0)
	var ns *NoServerError
	if !errors.As(err, &ns) || err.Error() != suite+" declares no such server (it declares: a, b)" {
		t.Errorf("ServerTarget c: %v", err)
	}
}

// TestSetTimeout: a timeout replaces every server's timeout:; 0 keeps them.
func TestSetTimeout(t *testing.T) {
	s := &Suite{Servers: []Server{{Name: "a", Timeout: time.Second}, {Name: "b"}}}
	s.SetTimeout(0)
	if s.Servers[0].Timeout != time.Second || s.Servers[1].Timeout != 0 {
		t.Errorf("SetTimeout(0) changed %+v", s.Servers)
	}
	s.SetTimeout(time.Minute)
	if s.Servers[0].Timeout != time.Minute || s.Servers[1].Timeout != time.Minute {
		t.Errorf("SetTimeout(1m) = %+v", s.Servers)
	}
}
