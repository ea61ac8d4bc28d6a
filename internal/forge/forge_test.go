package forge

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestOpenPRRequest checks the request OpenPR sends to the GitHub REST API
// (an httptest server stands in for it): method, path, headers and body.
func TestOpenPRRequest(t *testing.T) {
	t.Parallel()
	var got struct {
		method, path, auth, accept string
		body                       map[string]string
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.method, got.path = r.Method, r.URL.Path
		got.auth, got.accept = r.Header.Get("Authorization"), r.Header.Get("Accept")
		data, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(data, &got.body); err != nil {
			t.Errorf("body %q: %v", data, err)
		}
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"html_url": "https://github.com/acme/handbook/pull/7", "number": 7}`)
	}))
	defer srv.Close()
	repo, ok := Parse("https://github.com/acme/handbook.git")
	if !ok {
		t.Fatal("Parse: not a GitHub remote")
	}
	u, err := OpenPR(context.Background(), Options{Token: "tok", API: srv.URL}, PR{Repo: repo, Base: "main", Head: "ctx/api-1234567", Title: "Fix a typo", Body: "from ctx push"})
	if err != nil {
		t.Fatal(err)
	}
	if u != "https://github.com/acme/handbook/pull/7" {
		t.Errorf("URL %q", u)
	}
	if got.method != http.MethodPost || got.path != "/repos/acme/handbook/pulls" {
		t.Errorf("request %s %s, want POST /repos/acme/handbook/pulls", got.method, got.path)
	}
	if got.auth != "Bearer tok" || got.accept != "application/vnd.github+json" {
		t.Errorf("headers: Authorization %q, Accept %q", got.auth, got.accept)
	}
	want := map[string]string{"title": "Fix a typo", "head": "ctx/api-1234567", "base": "main", "body": "from ctx push"}
	for k, v := range want {
		if got.body[k] != v {
			t.Errorf("body %s = %q, want %q", k, got.body[k], v)
		}
	}
	if len(got.body) != len(want) {
		t.Errorf("body %v, want exactly %v", got.body, want)
	}
}

// TestOpenPRRefused: an API error says the status, GitHub's message and
// what to do.
func TestOpenPRRefused(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnprocessableEntity)
		io.WriteString(w, `{"message": "Validation Failed", "errors": [{"message": "A pull request already exists for acme:ctx/api-1."}]}`)
	}))
	defer srv.Close()
	repo, _ := Parse("git@github.com:acme/handbook.git")
	_, err := OpenPR(context.Background(), Options{Token: "tok", API: srv.URL}, PR{Repo: repo, Base: "main", Head: "ctx/api-1"})
	if err == nil || !strings.Contains(err.Error(), "422") || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("err = %v", err)
	}
	if _, err := OpenPR(context.Background(), Options{API: srv.URL}, PR{Repo: repo}); err == nil || !strings.Contains(err.Error(), "GITHUB_TOKEN") {
		t.Fatalf("no token: err = %v", err)
	}
}

// TestOpenPRExists: a pull request of the branch that is open already
// (the same edits pushed again) is the answer, through the API and
// through gh, not an error.
func TestOpenPRExists(t *testing.T) {
	t.Parallel()
	var query string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			query = r.URL.RawQuery
			io.WriteString(w, `[{"html_url": "https://github.com/acme/handbook/pull/9"}]`)
			return
		}
		w.WriteHeader(http.StatusUnprocessableEntity)
		io.WriteString(w, `{"message": "Validation Failed", "errors": [{"message": "A pull request already exists for acme:ctx/api-1."}]}`)
	}))
	defer srv.Close()
	repo, _ := Parse("git@github.com:acme/handbook.git")
	u, err := OpenPR(context.Background(), Options{Token: "tok", API: srv.URL}, PR{Repo: repo, Base: "main", Head: "ctx/api-1"})
	if err != nil || u != "https://github.com/acme/handbook/pull/9" {
		t.Fatalf("API: %q, %v", u, err)
	}
	if query != "base=main&head=acme%3Actx%2Fapi-1&state=open" {
		t.Errorf("the lookup's query is %q", query)
	}

	if runtime.GOOS == "windows" {
		return
	}
	gh := filepath.Join(t.TempDir(), "gh")
	script := "#!/bin/sh\nif [ \"$1\" = auth ]; then exit 0; fi\n" +
		"echo 'a pull request for branch \"ctx/api-1\" into branch \"main\" already exists:' >&2\n" +
		"echo 'https://github.com/acme/handbook/pull/9' >&2\nexit 1\n"
	if err := os.WriteFile(gh, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	u, err = OpenPR(context.Background(), Options{Gh: gh}, PR{Repo: repo, Base: "main", Head: "ctx/api-1"})
	if err != nil || u != "https://github.com/acme/handbook/pull/9" {
		t.Fatalf("gh: %q, %v", u, err)
	}
}

func TestCompareURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ remote, want string }{
		{"https://github.com/acme/handbook.git", "https://github.com/acme/handbook/compare/main...ctx/api-1?expand=1"},
		{"git@github.com:acme/handbook.git", "https://github.com/acme/handbook/compare/main...ctx/api-1?expand=1"},
		{"ssh://git@gitlab.com/acme/docs/handbook.git", "https://gitlab.com/acme/docs/handbook/-/merge_requests/new?merge_request%5Bsource_branch%5D=ctx%2Fapi-1&merge_request%5Btarget_branch%5D=main"},
		{"https://user:secret@bitbucket.org/acme/handbook", "https://bitbucket.org/acme/handbook/pull-requests/new?dest=main&source=ctx%2Fapi-1"},
		{"https://git.example.com/acme/handbook.git", ""},
		{"/srv/handbook.git", ""},
	} {
		r, ok := Parse(c.remote)
		got := ""
		if ok {
			got = r.CompareURL("main", "ctx/api-1")
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.remote, got, c.want)
		}
	}
}
