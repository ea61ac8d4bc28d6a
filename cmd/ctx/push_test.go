package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/forge"
	"github.com/ctx-dev/ctx/workspace"
)

// TestPushPRNotOpened: push --pr that opens no pull request fails (the
// command has not done what was asked), saying that the branch is pushed,
// why there is no pull request, and where to open one by hand; one that
// opens it returns its URL (runPush prints it) and succeeds.
func TestPushPRNotOpened(t *testing.T) {
	t.Parallel()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"message": "Bad credentials"}`))
			return
		}
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"html_url": "https://github.com/o/r/pull/7"}`))
	}))
	defer api.Close()
	compareGH := "https://github.com/o/r/compare/main...ctx/api-1234567?expand=1"
	for _, tc := range []struct {
		name, source, base string
		forge              forge.Options
		want               []string // in the error; none: no error
	}{
		{"gitlab", "https://gitlab.com/g/r.git", "main", forge.Options{},
			[]string{"branch ctx/api-1234567 is pushed, but no pull request was opened: ctx opens pull requests on GitHub only; open it by hand: https://gitlab.com/g/r/-/merge_requests/new?"}},
		{"another host", "https://git.example.com/r.git", "main", forge.Options{},
			[]string{"GitHub only; open one for branch ctx/api-1234567 on the repository's host"}},
		{"no default branch", "https://github.com/o/r.git", "", forge.Options{},
			[]string{"the remote's default branch is unknown; open one for branch ctx/api-1234567"}},
		{"no credentials", "https://github.com/o/r.git", "main", forge.Options{API: api.URL, Token: ""},
			[]string{"is pushed, but no pull request was opened: cannot open a pull request: gh is not installed", "open it by hand: " + compareGH}},
		{"refused", "https://github.com/o/r.git", "main", forge.Options{API: api.URL, Token: "bad"},
			[]string{"Bad credentials", "open it by hand: " + compareGH}},
		{"opened", "https://github.com/o/r.git", "main", forge.Options{API: api.URL, Token: "good"}, nil},
	} {
		var out, errOut bytes.Buffer
		opts := &pushOptions{globalOptions: &globalOptions{IO: &IOStreams{Out: &out, ErrOut: &errOut}, Env: environment{"PATH="}}, pr: true, forge: tc.forge}
		if tc.forge.Token == "" {
			opts.forge = forge.Options{} // from the environment: no gh on an empty PATH, no GITHUB_TOKEN
		}
		res := &workspace.PushResult{Alias: "api", Source: tc.source, Base: tc.base, Branch: "ctx/api-1234567", Parent: strings.Repeat("a", 40)}
		repo, known := forge.Parse(tc.source)
		u, err := openPR(context.Background(), opts, res, repo, known)
		if tc.want == nil {
			if err != nil || u != "https://github.com/o/r/pull/7" {
				t.Errorf("%s: %v, URL %q", tc.name, err, u)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error, stdout %q", tc.name, out.String())
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant it to say %q", tc.name, err, w)
			}
		}
		if out.Len() != 0 {
			t.Errorf("%s: stdout %q, want nothing", tc.name, out.String())
		}
	}
}
