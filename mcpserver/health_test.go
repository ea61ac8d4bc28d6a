package mcpserver

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The health endpoint answers without a token and says nothing but "ok";
// the MCP endpoint still wants the token.
func TestHTTPHealth(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	h := startHTTP(t, p.dir, HTTPOptions{})
	base := strings.TrimSuffix(h.url, HTTPPath)
	get := func(method, url string) (int, string) {
		req, err := http.NewRequest(method, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Close = true // no idle connection left for the shutdown
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(http.MethodGet, base+HealthPath); code != http.StatusOK || body != "ok\n" {
		t.Errorf("GET %s: %d %q", HealthPath, code, body)
	}
	if code, _ := get(http.MethodPost, base+HealthPath); code != http.StatusMethodNotAllowed {
		t.Errorf("POST %s: %d", HealthPath, code)
	}
	if code, _ := get(http.MethodGet, h.url); code != http.StatusUnauthorized {
		t.Errorf("GET %s without a token: %d, want 401", HTTPPath, code)
	}
}
