package live

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLoadListsReadsOnlyTheSelected: a command that needs the tools asks
// for the tools alone, not every list the server offers.
func TestLoadListsReadsOnlyTheSelected(t *testing.T) {
	cat, err := ParseCatalog([]byte(sampleCatalog))
	if err != nil {
		t.Fatal(err)
	}
	mock, err := MockServer(cat)
	if err != nil {
		t.Fatal(err)
	}
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
		if strings.Join(lists, ",") != tc.want {
			t.Errorf("lists %b: the server was asked %v; want %s", tc.lists, lists, tc.want)
		}
		if (len(got.Tools) > 0) != (tc.lists&ListTools != 0) || (len(got.Prompts) > 0) != (tc.lists&ListPrompts != 0) || (len(got.Resources) > 0) != (tc.lists&ListResources != 0) {
			t.Errorf("lists %b: catalog has %d tools, %d resources, %d prompts", tc.lists, len(got.Tools), len(got.Resources), len(got.Prompts))
		}
	}
}
