package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// recording is one `mcptest record --listen` proxy the front door started.
type recording struct {
	cmd    *exec.Cmd
	output string
	stderr *bytes.Buffer
	mu     *sync.Mutex
	done   chan error
}

type recordIn struct {
	Target
	Output string `json:"output,omitempty" jsonschema:"start: the cassette to write, relative to the workspace root (a .json file)"`
	Agent  string `json:"agent,omitempty" jsonschema:"start: the agent's name, recorded in the cassette"`
	Append bool   `json:"append,omitempty" jsonschema:"start: add the runs to the cassette already at output (a multi-run cassette)"`
	Stop   string `json:"stop,omitempty" jsonschema:"the recording_id of a recording to stop: the cassette is written then"`
}

var listeningRE = lazyRegexp(`point the agent at (http://\S+)`)

// recordCassette starts `mcptest record --listen 127.0.0.1:0` against the
// target and answers with the endpoint to point the agent at; stop writes
// the cassette. A recording still running when the front door exits is
// stopped (and written) then.
func (s *server) recordCassette(ctx context.Context, in recordIn) (any, error) {
	if in.Stop != "" {
		return s.stopRecording(in.Stop)
	}
	if in.Output == "" || !strings.HasSuffix(in.Output, ".json") {
		return nil, errors.New("output is required: the cassette file to write, relative to the workspace root, ending in .json")
	}
	t, err := s.target(in.Target)
	if err != nil {
		return nil, err
	}
	if err := s.prepareOutput(in.Output); err != nil {
		return nil, err
	}
	help, _, _, err := s.spawn(ctx, nil, "help")
	if err != nil {
		return nil, err
	}
	if !regexp.MustCompile(`(?m)^\s+record\s`).Match(help) {
		return nil, errors.New("record_cassette is not available in this version: this mcptest has no `mcptest record` command")
	}
	args := []string{"record", "--listen", "127.0.0.1:0", "--output", in.Output}
	if in.Append {
		args = append(args, "--append")
	}
	if in.Agent != "" {
		args = append(args, "--agent", in.Agent)
	}
	if t.URL != "" {
		args = append(args, "--url", t.URL)
		if t.BearerTokenEnv != "" {
			args = append(args, "--bearer-token-env", t.BearerTokenEnv)
		}
	} else {
		args = append(append(args, "--"), t.Command...)
	}
	cmd := exec.Command(s.opt.Exe, args...)
	cmd.Dir = s.opt.Root
	cmd.Env = os.Environ()
	for k, v := range t.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start mcptest record: %w", err)
	}
	rec := &recording{cmd: cmd, output: in.Output, stderr: &bytes.Buffer{}, mu: &sync.Mutex{}, done: make(chan error, 1)}
	// The proxy's end is told once its last line of stderr is kept:
	// Wait returns when the scanner has read the bytes, not when it has
	// kept every line of them, and stop answers with the lines kept.
	scanned := make(chan struct{})
	go func() { err := cmd.Wait(); pw.Close(); <-scanned; rec.done <- err }()
	endpoint := make(chan string, 1)
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(pr)
		sent := false
		for sc.Scan() {
			rec.mu.Lock()
			rec.stderr.WriteString(sc.Text() + "\n")
			rec.mu.Unlock()
			if m := listeningRE().FindStringSubmatch(sc.Text()); m != nil && !sent {
				endpoint <- m[1]
				sent = true
			}
		}
		if !sent {
			close(endpoint)
		}
	}()
	select {
	case ep, ok := <-endpoint:
		if !ok {
			<-rec.done
			return nil, fmt.Errorf("mcptest record did not start: %s", strings.TrimSpace(rec.text()))
		}
		id := s.opt.newRunID()
		s.recMu.Lock()
		s.recordings[id] = rec
		s.recMu.Unlock()
		return struct {
			RecordingID string `json:"recording_id"`
			Endpoint    string `json:"endpoint"`
			Output      string `json:"output"`
			Next        string `json:"next"`
		}{id, ep, in.Output, "point the agent (streamable HTTP) at endpoint, run it, then call record_cassette with stop: recording_id to write the cassette"}, nil
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		return nil, errors.New("mcptest record did not start listening within 2 minutes")
	}
}

// prepareOutput checks that the cassette record_cassette writes stays in
// the workspace, whatever links lie on its way, and makes its directory
// there. mcptest record writes it by rename, so a link at the name itself
// would be replaced; one leading out is refused all the same.
func (s *server) prepareOutput(output string) error {
	root, err := s.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	rel, err := s.inside(root, output)
	if err != nil {
		return err
	}
	if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		if isEscape(err) {
			return outside(output)
		}
		return fmt.Errorf("output %s: %w", output, err)
	}
	return nil
}

func (r *recording) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr.String()
}

// stop interrupts the proxy, which then writes the cassette, and waits.
func (r *recording) stop() (int, error) {
	_ = r.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-r.done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), nil
		}
		return 0, err
	case <-time.After(30 * time.Second):
		_ = r.cmd.Process.Kill()
		return -1, errors.New("mcptest record did not stop within 30 s after an interrupt; killed")
	}
}

func (s *server) stopRecording(id string) (any, error) {
	s.recMu.Lock()
	rec, ok := s.recordings[id]
	delete(s.recordings, id)
	s.recMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no running recording %q", id)
	}
	code, err := rec.stop()
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, fmt.Errorf("mcptest record exited %d: %s", code, strings.TrimSpace(rec.text()))
	}
	return struct {
		Output string `json:"output"`
		Log    string `json:"log"`
	}{rec.output, strings.TrimSpace(rec.text())}, nil
}

// stopAll stops every recording still running: the front door is leaving.
func (s *server) stopAll() {
	s.recMu.Lock()
	recs := s.recordings
	s.recordings = map[string]*recording{}
	s.recMu.Unlock()
	for _, r := range recs {
		_, _ = r.stop()
	}
}
