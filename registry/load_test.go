package registry

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctx-dev/ctx/gitengine"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func reg(name string, imports []string, contexts ...string) string {
	var cs []string
	for _, c := range contexts {
		n, repo, _ := strings.Cut(c, "=")
		cs = append(cs, fmt.Sprintf(`{"name":%q,"description":"about %s","repo":%q,"tags":[%q]}`, n, n, repo, name))
	}
	var is []string
	for _, i := range imports {
		is = append(is, fmt.Sprintf("%q", i))
	}
	return fmt.Sprintf(`{"name":%q,"contexts":[%s],"imports":[%s]}`, name, strings.Join(cs, ","), strings.Join(is, ","))
}

type recorder struct {
	mu       sync.Mutex
	warnings []string
	notes    []string
}

func (r *recorder) loader() *Loader {
	return &Loader{
		Warn: func(m string) { r.mu.Lock(); r.warnings = append(r.warnings, m); r.mu.Unlock() },
		Note: func(m string) { r.mu.Lock(); r.notes = append(r.notes, m); r.mu.Unlock() },
		Git:  failingGit{},
	}
}

type failingGit struct{}

func (failingGit) Resolve(ctx context.Context, url, ref string) (gitengine.Resolved, error) {
	return gitengine.Resolved{}, &gitengine.Error{Kind: gitengine.KindNetwork, URL: url, Op: "list refs"}
}
func (failingGit) ReadFile(ctx context.Context, req gitengine.FetchRequest) ([]byte, error) {
	panic("not reached")
}

func TestLoadCycleEachOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.json"), reg("a", []string{"./b.json"}, "one=https://h/one.git"))
	writeFile(t, filepath.Join(dir, "b.json"), reg("b", []string{"a.json", filepath.Join(dir, "a.json")}, "two=https://h/two.git", "one-again=https://H/one"))
	var rec recorder
	res, err := rec.loader().Load(context.Background(), filepath.Join(dir, "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Loaded) != 2 || len(rec.notes) != 2 {
		t.Fatalf("loaded %v, want a and b once each", res.Loaded)
	}
	if got := strings.Join(res.Names(), ","); got != "one,two" {
		t.Errorf("contexts %s, want one,two (duplicate merged)", got)
	}
	if tags := res.Contexts[0].Tags; len(tags) != 2 {
		t.Errorf("duplicate's tags not merged: %v", tags)
	}
	if len(rec.warnings) != 0 {
		t.Errorf("unexpected warnings %v", rec.warnings)
	}
}

func TestLoadDepthLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// r0 -> r1 -> ... -> r7
	for i := 0; i < 8; i++ {
		var imps []string
		if i < 7 {
			imps = []string{fmt.Sprintf("r%d.json", i+1)}
		}
		writeFile(t, filepath.Join(dir, fmt.Sprintf("r%d.json", i)), reg(fmt.Sprintf("r%d", i), imps, fmt.Sprintf("c%d=https://h/c%d.git", i, i)))
	}
	var rec recorder
	l := rec.loader()
	res, err := l.Load(context.Background(), filepath.Join(dir, "r0.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Loaded) != DefaultMaxDepth+1 {
		t.Errorf("loaded %d registries, want %d", len(res.Loaded), DefaultMaxDepth+1)
	}
	if len(rec.warnings) != 1 || !strings.Contains(rec.warnings[0], "import depth limit (5)") || !strings.Contains(rec.warnings[0], "r6.json") {
		t.Errorf("warnings %q", rec.warnings)
	}
}

func TestLoadBadImportsWarnAndSkip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "root.json"), reg("root", []string{"missing.json", "broken.json", "https://git.invalid/x.git", "ok.json"}, "one=./one"))
	writeFile(t, filepath.Join(dir, "broken.json"), "{\n  \"name\": ,\n}")
	writeFile(t, filepath.Join(dir, "ok.json"), reg("ok", nil, "two=https://h/two.git", "one=https://h/other.git"))
	var rec recorder
	res, err := rec.loader().Load(context.Background(), filepath.Join(dir, "root.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Names(), ","); got != "one,two" {
		t.Errorf("contexts %s", got)
	}
	if res.Contexts[0].Repo != filepath.Join(dir, "one") {
		t.Errorf("relative repo not resolved: %s", res.Contexts[0].Repo)
	}
	all := strings.Join(rec.warnings, "\n")
	for _, want := range []string{"missing.json: no such file", "broken.json:2:11: invalid JSON", "git.invalid/x.git", `context "one" (https://h/other.git) has the name of a different context`} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
}

func TestLoadRootErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "bad.json"), "{\"name\": \"x\", \"contexts\": [ {\"name\": 1} ]}")
	var rec recorder
	_, err := rec.loader().Load(context.Background(), filepath.Join(dir, "bad.json"))
	if err == nil || !strings.Contains(err.Error(), "contexts.name: expected a string") && !strings.Contains(err.Error(), "expected a string") {
		t.Fatalf("got %v", err)
	}
	_, err = rec.loader().Load(context.Background(), filepath.Join(dir, "nope.json"))
	if err == nil {
		t.Fatal("missing root: want an error")
	}
}

func TestLoadHTTP(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		switch r.URL.Path {
		case "/hub/a.json":
			fmt.Fprint(w, reg("a", []string{"b.json", "/private/c.json"}, "one=https://h/one.git"))
		case "/hub/b.json":
			fmt.Fprint(w, reg("b", []string{"./a.json"}, "two=https://h/two.git"))
		case "/private/c.json":
			w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
			http.Error(w, "no", http.StatusUnauthorized)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	var rec recorder
	res, err := rec.loader().Load(context.Background(), srv.URL+"/hub/a.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Names(), ","); got != "one,two" {
		t.Errorf("contexts %s", got)
	}
	if hits["/hub/a.json"] != 1 || hits["/hub/b.json"] != 1 {
		t.Errorf("hits %v: each registry should be fetched once", hits)
	}
	if len(rec.warnings) != 1 || !strings.Contains(rec.warnings[0], "401") {
		t.Errorf("warnings %q", rec.warnings)
	}
	if _, err := rec.loader().Load(context.Background(), srv.URL+"/nope.json"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("404 root: %v", err)
	}
}

// fakeGit serves files of "repositories" held in memory.
type fakeGit struct {
	repos map[string]map[string]string // url -> ref -> ... simplified: path -> content
	reqs  []gitengine.FetchRequest
}

func (f *fakeGit) Resolve(ctx context.Context, url, ref string) (gitengine.Resolved, error) {
	if _, ok := f.repos[url]; !ok {
		return gitengine.Resolved{}, &gitengine.Error{Kind: gitengine.KindNotFound, URL: url, Op: "list refs"}
	}
	return gitengine.Resolved{Ref: "refs/heads/" + ref, Commit: strings.Repeat("a", 40)}, nil
}

func (f *fakeGit) ReadFile(ctx context.Context, req gitengine.FetchRequest) ([]byte, error) {
	f.reqs = append(f.reqs, req)
	content, ok := f.repos[req.URL][req.Path]
	if !ok {
		return nil, &gitengine.Error{Kind: gitengine.KindPathNotFound, URL: req.URL, Op: "fetch"}
	}
	return []byte(content), nil
}

func TestLoadGit(t *testing.T) {
	t.Parallel()
	g := &fakeGit{repos: map[string]map[string]string{
		"https://git.example/hub.git": {
			"ctx-registry.json":  reg("hub", []string{"teams/web.json"}, "one=https://h/one.git"),
			"teams/web.json":     reg("web", []string{"../ctx-registry.json"}, "web=https://h/web.git"),
			"teams/other/x.json": "{}",
		},
	}}
	var rec recorder
	l := rec.loader()
	l.Git = g
	res, err := l.Load(context.Background(), "https://git.example/hub.git@main")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Names(), ","); got != "one,web" {
		t.Errorf("contexts %s", got)
	}
	if len(g.reqs) != 2 || g.reqs[0].Path != "ctx-registry.json" || g.reqs[1].Path != "teams/web.json" {
		t.Errorf("requests %+v", g.reqs)
	}
	if res.Loaded[1].Ref != "main" {
		t.Errorf("relative import should keep the ref: %+v", res.Loaded[1])
	}
	if _, err := l.Load(context.Background(), "https://git.example/hub.git#teams/nope.json"); err == nil || !strings.Contains(err.Error(), "no file teams/nope.json") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := l.Load(context.Background(), "https://git.example/hub.git#nodir/x.json"); err == nil || !strings.Contains(err.Error(), "no file nodir/x.json") {
		t.Errorf("missing dir: %v", err)
	}
}

// TestLoadURLContexts: a url context is kept as written (not resolved as a
// path), is merged with a duplicate of the same URL, and a relative git
// repo next to it still resolves against the registry's folder.
func TestLoadURLContexts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.json"), `{"name":"a","imports":["b.json"],"contexts":[
  {"name":"web","description":"d","url":"https://docs.example/llms.txt","tags":["a"]},
  {"name":"local","description":"d","repo":"./repos/x"}]}`)
	writeFile(t, filepath.Join(dir, "b.json"), `{"name":"b","contexts":[
  {"name":"web-again","description":"d","repo":"https://DOCS.example/llms.txt","kind":"https","tags":["b"]}]}`)
	var rec recorder
	res, err := rec.loader().Load(context.Background(), filepath.Join(dir, "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Names(), ","); got != "web,local" {
		t.Fatalf("contexts %s, want web,local (the https duplicate merged)", got)
	}
	if c := res.Contexts[0]; c.Source() != "https://docs.example/llms.txt" || c.KindOf() != "https" || len(c.Tags) != 2 {
		t.Errorf("url context %+v", c.Context)
	}
	if got, want := res.Contexts[1].Repo, filepath.Join(dir, "repos", "x"); got != want {
		t.Errorf("relative repo %s, want %s", got, want)
	}
	if len(rec.warnings) != 0 {
		t.Errorf("unexpected warnings %v", rec.warnings)
	}
}
