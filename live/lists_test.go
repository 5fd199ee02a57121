package live

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLoadListsReadsOnlyTheSelected: a command that needs the tools asks
// for the tools alone, not every list the server offers.
func TestLoadListsReadsOnlyTheSelected(t *testing.T) {
	_, mock := sampleMock(t)
	var mu sync.Mutex
	var methods []string
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mock }, nil)
	srv := httptest.NewServer(h)
	defer srv.Close()
	mock.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			mu.Lock()
			methods = append(methods, method)
			mu.Unlock()
			return next(ctx, method, req)
		}
	})
	for _, tc := range []struct {
		lists Lists
		want  string
	}{
		{ListTools, "tools/list"},
		{ListPrompts, "prompts/list"},
		{ListResources, "resources/list,resources/templates/list"},
		{0, ""},
		{AllLists, "tools/list,resources/list,resources/templates/list,prompts/list"},
	} {
		mu.Lock()
		methods = nil
		mu.Unlock()
		got, err := LoadLists(context.Background(), Target{URL: srv.URL}, nil, tc.lists)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		var lists []string
		for _, m := range methods {
			if strings.HasSuffix(m, "/list") {
				lists = append(lists, m)
			}
		}
		mu.Unlock()
		// The lists are asked at once, so they arrive in any order.
		want := strings.Split(tc.want, ",")
		slices.Sort(lists)
		slices.Sort(want)
		if strings.Join(lists, ",") != strings.Join(want, ",") {
			t.Errorf("lists %b: the server was asked %v; want %s", tc.lists, lists, tc.want)
		}
		if (len(got.Tools) > 0) != (tc.lists&ListTools != 0) || (len(got.Prompts) > 0) != (tc.lists&ListPrompts != 0) || (len(got.Resources) > 0) != (tc.lists&ListResources != 0) {
			t.Errorf("lists %b: catalog has %d tools, %d resources, %d prompts", tc.lists, len(got.Tools), len(got.Resources), len(got.Prompts))
		}
	}
}

// TestCatalogAsksTheListsAtOnce: the lists of a catalog are independent
// requests on the one session, sent together rather than one after the
// other's answer. The stand-in server answers none of them until all four
// have arrived; a client that waits for each answer before the next
// request would wait in vain.
func TestCatalogAsksTheListsAtOnce(t *testing.T) {
	cat, mock := sampleMock(t)
	var arrived sync.WaitGroup
	arrived.Add(4)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	mock.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if strings.HasSuffix(method, "/list") {
				arrived.Done()
				select {
				case <-all:
				case <-time.After(5 * time.Second):
					return nil, errors.New(method + ": the other lists were not asked while this one was pending")
				}
			}
			return next(ctx, method, req)
		}
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mock }, nil))
	defer srv.Close()
	got, err := Load(context.Background(), Target{URL: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tools) != len(cat.Tools) || len(got.Resources) != len(cat.Resources) || len(got.ResourceTemplates) != len(cat.ResourceTemplates) || len(got.Prompts) != len(cat.Prompts) {
		t.Errorf("catalog has %d tools, %d resources, %d templates, %d prompts; want %d, %d, %d, %d",
			len(got.Tools), len(got.Resources), len(got.ResourceTemplates), len(got.Prompts),
			len(cat.Tools), len(cat.Resources), len(cat.ResourceTemplates), len(cat.Prompts))
	}
}
