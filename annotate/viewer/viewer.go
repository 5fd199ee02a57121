package viewer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/report"
)

// Viewer serves one run: its report at /, the snapshot viewer at
// /snapshot, the envelope at /run.json, and the store's pages.
type Viewer struct {
	// Fragment is the fragment of the run's snapshot address, which
	// carries the run's report page and names its envelope by sha256.
	Fragment string

	env     *report.Envelope
	store   Store
	handler http.Handler
}

// New returns the viewer of env, with the pages of store.
func New(env *report.Envelope, store Store) (*Viewer, error) {
	frag, err := annotate.SnapshotFragment(env, store.Recorded)
	if err != nil {
		return nil, err
	}
	return &Viewer{Fragment: frag, env: env, store: store}, nil
}

// WriteSnapshot writes the snapshot viewer page to path, by rename, and
// returns the run's file:// snapshot address, which opens without any
// server.
func (v *Viewer) WriteSnapshot(path string) (string, error) {
	if err := safefile.WriteOutput(path, annotate.SnapshotPage(), 0o644); err != nil {
		return "", fmt.Errorf("write snapshot viewer: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("write snapshot viewer: %w", err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), Fragment: v.Fragment}
	return u.String(), nil
}

// Listen renders the run's pages and listens on addr, a loopback
// HOST:PORT (port 0 picks a free port); an address that does not parse or
// is not loopback is a *diag.InputError.
func (v *Viewer) Listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &diag.InputError{Err: fmt.Errorf("--addr %q: %v", addr, err)}
	}
	if !IsLoopback(host) {
		return nil, &diag.InputError{Err: fmt.Errorf("--addr %q: view serves on a loopback address only (127.0.0.1, ::1 or localhost)", addr)}
	}
	var js, page bytes.Buffer
	if err := (annotate.JSON{}).Report(&js, v.env); err != nil {
		return nil, err
	}
	if err := (annotate.HTML{Snapshot: "/snapshot#" + v.Fragment, Viewer: "/", Recorded: v.store.Recorded}).Report(&page, v.env); err != nil {
		return nil, err
	}
	v.handler = Handler(page.Bytes(), annotate.SnapshotPage(), js.Bytes(), v.store.Pages())
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("view: %w", err)
	}
	return ln, nil
}

// Serve serves the pages Listen rendered on ln until ctx ends, then shuts
// the server down, waiting at most 5 seconds for the requests in flight.
func (v *Viewer) Serve(ctx context.Context, ln net.Listener) error {
	if v.handler == nil {
		return errors.New("view: Serve before Listen")
	}
	srv := &http.Server{Handler: v.handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("view: %w", err)
	}
	return nil
}

// IsLoopback reports whether host is localhost or a loopback IP address.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Handler serves the report at /, the snapshot viewer at /snapshot, the
// envelope at /run.json and, for any other path, stored (the store's
// pages) to GET and HEAD requests whose Host is a loopback name (so a web
// page cannot reach it by DNS rebinding).
func Handler(page, snapshot, envJSON []byte, stored http.Handler) http.Handler {
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
		if !IsLoopback(host) {
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

// OpenBrowser opens url in the default browser without waiting for it.
func OpenBrowser(url string) error {
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
