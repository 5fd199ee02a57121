package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// browser is headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: commands on fd 3, replies on fd 4, each
// message a JSON object ended by a NUL byte), so a test can size the
// viewport, watch the console and the network, click, and read element
// boxes, with nothing but the standard library.
type browser struct {
	t       testing.TB
	cmd     *exec.Cmd
	out     *os.File
	session string

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpMessage
	events  []cdpMessage
	changed chan struct{}
}

type cdpMessage struct {
	ID     int             `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// startBrowser starts Chromium with a fresh profile and no background
// networking and opens one page target; it stops when the test ends.
func startBrowser(t testing.TB, chromium string) *browser {
	t.Helper()
	toChrome, ourEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromChrome, theirEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
		"--hide-scrollbars", "--user-data-dir=" + t.TempDir(), "--remote-debugging-pipe", "about:blank"}
	cmd := exec.CommandContext(ctx, chromium, args...)
	cmd.ExtraFiles = []*os.File{toChrome, theirEnd}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start chromium: %v", err)
	}
	toChrome.Close()
	theirEnd.Close()
	b := &browser{t: t, cmd: cmd, out: ourEnd, waiting: map[int]chan cdpMessage{}, changed: make(chan struct{}, 1)}
	go b.read(fromChrome)
	t.Cleanup(func() {
		ourEnd.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		cancel()
		fromChrome.Close()
	})
	var target struct{ TargetID string }
	b.browserCall("Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	b.browserCall("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	for _, domain := range []string{"Page.enable", "Runtime.enable", "Log.enable", "Network.enable"} {
		b.call(domain, nil, nil)
	}
	return b
}

func (b *browser) read(r *os.File) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if ch, ok := b.waiting[m.ID]; ok && m.ID != 0 {
			delete(b.waiting, m.ID)
			ch <- m
		} else if m.Method != "" {
			b.events = append(b.events, m)
			select {
			case b.changed <- struct{}{}:
			default:
			}
		}
		b.mu.Unlock()
	}
}

func (b *browser) send(session, method string, params any, into any) {
	b.t.Helper()
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if params == nil {
		msg["params"] = map[string]any{}
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.out.Write(append(data, 0)); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			b.t.Fatalf("%s: %s", method, m.Error.Message)
		}
		if into != nil {
			if err := json.Unmarshal(m.Result, into); err != nil {
				b.t.Fatalf("%s: %v", method, err)
			}
		}
	case <-time.After(90 * time.Second):
		b.t.Fatalf("%s: no answer from chromium in 90s", method)
	}
}

func (b *browser) browserCall(method string, params, into any) { b.send("", method, params, into) }

// call sends a command to the page.
func (b *browser) call(method string, params, into any) { b.send(b.session, method, params, into) }

// open loads url at a viewport width × height and waits for its load
// event; the events of earlier pages are dropped.
func (b *browser) open(url string, width, height int) {
	b.t.Helper()
	b.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}, nil)
	b.mu.Lock()
	b.events = nil
	b.mu.Unlock()
	b.call("Page.navigate", map[string]any{"url": url}, nil)
	b.waitEvent("Page.loadEventFired", 60*time.Second)
}

func (b *browser) waitEvent(method string, limit time.Duration) {
	b.t.Helper()
	deadline := time.After(limit)
	for {
		b.mu.Lock()
		for _, e := range b.events {
			if e.Method == method {
				b.mu.Unlock()
				return
			}
		}
		b.mu.Unlock()
		select {
		case <-b.changed:
		case <-deadline:
			b.t.Fatalf("no %s in %s", method, limit)
		}
	}
}

// eval runs a JavaScript expression in the page (awaiting a promise) and
// decodes its value into into.
func (b *browser) eval(expr string, into any) {
	b.t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res)
	if e := res.ExceptionDetails; e != nil {
		b.t.Fatalf("evaluate %.80q: %s %s", expr, e.Text, e.Exception.Description)
	}
	if into != nil && len(res.Result.Value) > 0 {
		if err := json.Unmarshal(res.Result.Value, into); err != nil {
			b.t.Fatalf("evaluate %.80q: %v (%s)", expr, err, res.Result.Value)
		}
	}
}

// screenshot writes the viewport (or, with full, the whole page) to a
// PNG file.
func (b *browser) screenshot(path string, full bool) {
	b.t.Helper()
	var shot struct{ Data string }
	b.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": full}, &shot)
	data, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// problems lists what the page logged as an error (a console error, an
// uncaught exception, a CSP violation) and every request it made other
// than for the page itself.
func (b *browser) problems(page string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, e := range b.events {
		var p struct {
			Type      string                            `json:"type"`
			Args      []struct{ Value any }             `json:"args"`
			Entry     struct{ Level, Text, URL string } `json:"entry"`
			Request   struct{ URL string }              `json:"request"`
			Exception struct {
				Text string `json:"text"`
			} `json:"exceptionDetails"`
		}
		_ = json.Unmarshal(e.Params, &p)
		switch {
		case e.Method == "Runtime.consoleAPICalled" && (p.Type == "error" || p.Type == "warning" || p.Type == "assert"):
			out = append(out, fmt.Sprintf("console.%s %v", p.Type, p.Args))
		case e.Method == "Runtime.exceptionThrown":
			out = append(out, "exception: "+p.Exception.Text)
		case e.Method == "Log.entryAdded" && (p.Entry.Level == "error" || p.Entry.Level == "warning"):
			out = append(out, "log "+p.Entry.Level+": "+p.Entry.Text)
		case e.Method == "Network.requestWillBeSent" && strings.Split(p.Request.URL, "#")[0] != strings.Split(page, "#")[0]:
			out = append(out, "request: "+p.Request.URL)
		}
	}
	return out
}

// box is an element's border box in CSS pixels, relative to the page.
type box struct {
	X, Y, W, H float64
}

// boxes reads the boxes of the first element each selector matches;
// a selector that matches nothing has no entry.
func (b *browser) boxes(selectors ...string) map[string]box {
	sel, _ := json.Marshal(selectors)
	var out map[string]box
	b.eval(`(function(){var o={};`+string(sel)+`.forEach(function(s){var e=document.querySelector(s);if(!e){return;}
var r=e.getBoundingClientRect();o[s]={X:r.left+scrollX,Y:r.top+scrollY,W:r.width,H:r.height};});return o;})()`, &out)
	return out
}
