package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/engine/report"
	"github.com/mcptest/mcptest/engine/safefile"
)

// viewContext is the lifetime of `mcptest view`'s server: until an
// interrupt. Tests replace it with a context they cancel.
var viewContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// viewListening, when set, is told the server's address once it listens.
var viewListening func(base string)

// view is `mcptest view RUN.json`: it serves the run's HTML report on a
// loopback port, with the envelope at /run.json and the snapshot viewer at
// /snapshot, and prints the run's snapshot address. With --snapshot FILE
// it writes the snapshot viewer page to FILE and prints a file:// address
// that carries the envelope and opens without any server.
func (c *Command) view(args []string) error {
	fs := c.newFlags("view", "mcptest view [RUN.json | --latest | --run ID] [--open] [--addr 127.0.0.1:0] [--snapshot FILE [--no-serve]]\n  With no RUN.json, view serves the newest run stored in the workspace (.mcptest/runs/).")
	latest := fs.Bool("latest", false, "serve the newest run stored in the workspace (the default without RUN.json)")
	runID := fs.String("run", "", "serve the stored run `ID` (its run_id, as list_runs and the report show it)")
	open := fs.Bool("open", false, "open the report in the default browser once it is served")
	addr := fs.String("addr", "127.0.0.1:0", "serve on `HOST:PORT`, a loopback address (port 0 picks a free port)")
	snapshot := fs.String("snapshot", "", "write the snapshot viewer page to `FILE` and print the run's file:// snapshot address, which opens without any server")
	noServe := fs.Bool("no-serve", false, "with --snapshot: write the viewer, print the address and exit instead of serving")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *noServe && *snapshot == "" {
		return inputErr("--no-serve goes with --snapshot FILE")
	}
	file, err := c.viewedRun(pos, *latest, *runID)
	if err != nil {
		return err
	}
	env, err := c.readRun(file)
	if err != nil {
		return err
	}
	frag, err := annotate.SnapshotFragment(env)
	if err != nil {
		return err
	}
	if *snapshot != "" {
		if err := safefile.WriteOutput(*snapshot, annotate.SnapshotPage(), 0o644); err != nil {
			return fmt.Errorf("write snapshot viewer: %w", err)
		}
		abs, err := filepath.Abs(*snapshot)
		if err != nil {
			return fmt.Errorf("write snapshot viewer: %w", err)
		}
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), Fragment: frag}
		fmt.Fprintf(c.Stdout, "snapshot: %s\n", u.String())
	}
	if *noServe {
		return nil
	}

	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return inputErr("--addr %q: %v", *addr, err)
	}
	if !isLoopback(host) {
		return inputErr("--addr %q: view serves on a loopback address only (127.0.0.1, ::1 or localhost)", *addr)
	}
	var js, page bytes.Buffer
	if err := (annotate.JSON{}).Report(&js, env); err != nil {
		return err
	}
	if err := (annotate.HTML{Snapshot: "/snapshot#" + frag, Viewer: "/"}).Report(&page, env); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	base := "http://" + ln.Addr().String()
	srv := &http.Server{Handler: viewHandler(page.Bytes(), annotate.SnapshotPage(), js.Bytes(), c.storePages()), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := viewContext()
	defer stop()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	fmt.Fprintf(c.Stderr, "mcptest: serving the report of %s on %s/ (Ctrl-C stops)\n", file, base)
	fmt.Fprintf(c.Stdout, "report: %s/\nsnapshot: %s/snapshot#%s\n", base, base, frag)
	if viewListening != nil {
		viewListening(base)
	}
	if *open {
		if err := openBrowser(base + "/"); err != nil {
			fmt.Fprintf(c.Stderr, "mcptest: could not open a browser (%v); open %s/ yourself\n", err, base)
		}
	}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("view: %w", err)
	}
	return nil
}

// openBrowser opens url in the default browser without waiting for it;
// tests replace it.
var openBrowser = func(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}

// runIDPattern is the shape of a run id (newRunID): 26 Crockford base32
// characters, so --run never names a path outside the store.
var runIDPattern = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{26}$`)

// viewedRun is the envelope view serves: RUN.json, the stored run --run
// names, else the newest stored run.
func (c *Command) viewedRun(pos []string, latest bool, id string) (string, error) {
	picked := 0
	for _, set := range []bool{len(pos) > 0, latest, id != ""} {
		if set {
			picked++
		}
	}
	switch {
	case len(pos) > 1:
		return "", inputErr("view takes one run envelope (the file `mcptest run --reporter json` wrote), got %d arguments", len(pos))
	case picked > 1:
		return "", inputErr("give one of RUN.json, --latest and --run ID")
	case len(pos) == 1:
		return pos[0], nil
	case id != "":
		if !runIDPattern.MatchString(id) {
			return "", inputErr("--run %q: expected a run id (26 characters, as list_runs shows)", id)
		}
		dir, err := c.storeDir("runs")
		if err != nil {
			return "", err
		}
		p := filepath.Join(dir, id+".json")
		if _, err := os.Stat(p); err != nil {
			return "", inputErr("--run %s: no such run in %s", id, dir)
		}
		return p, nil
	}
	return c.latestRun()
}

// latestRun is the newest envelope in the workspace store (run ids sort
// by time).
func (c *Command) latestRun() (string, error) {
	dir, err := c.storeDir("runs")
	if err != nil {
		return "", err
	}
	entries, _ := os.ReadDir(dir)
	for i := len(entries) - 1; i >= 0; i-- {
		name := entries[i].Name()
		if entries[i].Type().IsRegular() && runIDPattern.MatchString(strings.TrimSuffix(name, ".json")) && strings.HasSuffix(name, ".json") {
			fmt.Fprintf(c.Stderr, "mcptest: the newest stored run, %s\n", strings.TrimSuffix(name, ".json"))
			return filepath.Join(dir, name), nil
		}
	}
	return "", inputErr("no stored run in %s: run `mcptest run` first, or give RUN.json", dir)
}

// readRun opens and decodes a saved run envelope; a missing or invalid
// file is wrong input (exit 2).
func (c *Command) readRun(path string) (*report.Envelope, error) {
	f, r, err := openEnvelope(path, "")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	env, err := report.Read(r, path)
	if err != nil {
		return nil, &exitError{code: ExitInput, err: err}
	}
	return env, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// viewHandler serves the report at /, the snapshot viewer at /snapshot,
// the envelope at /run.json and the pages of the stored runs (stored:
// /runs, /run/ID, /compare, /case) to GET and HEAD requests whose Host is
// a loopback name (so a web page cannot reach it by DNS rebinding).
func viewHandler(page, snapshot, envJSON []byte, stored http.Handler) http.Handler {
	routes := map[string]struct {
		body  []byte
		ctype string
	}{
		"/":         {page, "text/html; charset=utf-8"},
		"/snapshot": {snapshot, "text/html; charset=utf-8"},
		"/run.json": {envJSON, "application/json"},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(r.Host); err == nil {
			host = h
		}
		if !isLoopback(host) {
			http.Error(w, "mcptest view answers on a loopback address only", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		route, ok := routes[r.URL.Path]
		if !ok {
			stored.ServeHTTP(w, r)
			return
		}
		h.Set("Content-Type", route.ctype)
		_, _ = w.Write(route.body)
	})
}

// openEnvelope opens a saved run envelope for reading, bounded before the
// read starts: a FIFO, a device or a file over baseline.MaxEnvelopeBytes
// is refused from its stat (exit 2) instead of blocking or filling the
// memory, and the reader stops at the limit. flag names the flag the path
// came from in messages ("--compare"), "" for an argument.
func openEnvelope(path, flag string) (*os.File, io.Reader, error) {
	name := path
	if flag != "" {
		name = flag + " " + path
	}
	f, r, err := safefile.Open(path, baseline.MaxEnvelopeBytes)
	switch {
	case err == nil:
		return f, r, nil
	case errors.Is(err, os.ErrNotExist):
		return nil, nil, inputErr("%s: no such file", name)
	case safefile.IsLimit(err):
		return nil, nil, inputErr("%s: not a run envelope: %v", name, err)
	}
	return nil, nil, fmt.Errorf("open run envelope: %w", err)
}
