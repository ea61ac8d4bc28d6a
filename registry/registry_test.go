package registry

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/jsonfile/jsonfiletest"
)

func TestParseValid(t *testing.T) {
	t.Parallel()
	data := []byte(`{
  "name": "acme",
  "description": "Acme docs",
  "contexts": [
    {"name": "platform", "description": "How we run services", "repo": "https://git.example/platform.git", "path": "docs", "ref": "main", "tags": ["ops", "backend"]},
    {"name": "style", "description": "Writing style", "repo": "git@git.example:acme/style.git"}
  ],
  "imports": ["https://hub.example/ctx-registry.json"],
  "unknownField": true
}`)
	r, err := Parse("reg.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "acme" || len(r.Contexts) != 2 || r.Contexts[0].Path != "docs" || len(r.Contexts[0].Tags) != 2 || len(r.Imports) != 1 {
		t.Fatalf("parsed wrong: %+v", r)
	}
}

func TestParseSyntaxErrorHasLineCol(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, data, want string
	}{
		{"trailing comma", "{\n  \"name\": \"a\",\n  \"contexts\": [],\n}\n", "reg.json:4:1: invalid JSON"},
		{"bad token", "{\n  \"name\": nope\n}", "reg.json:2:12: invalid JSON"},
		{"truncated", "{\n  \"name\": \"a\"", "reg.json:2:14: invalid JSON: unexpected end of file"},
		{"empty", "", "reg.json:1:1: empty file"},
		{"type", "{\"name\": 3, \"contexts\": []}", "reg.json:1:10: name: expected a string, found a JSON number"},
		{"trailing data", "{\"name\": \"a\", \"contexts\": [{\"name\":\"x\",\"description\":\"d\",\"repo\":\"r\"}]}\n{}", "reg.json:2:1: unexpected data after the top-level object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("reg.json", []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want it to contain %q", err, tc.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("not a *ParseError: %T", err)
			}
		})
	}
}

func TestParseAllProblemsAtOnce(t *testing.T) {
	t.Parallel()
	data := []byte(`{
  "contexts": [
    {"name": "ok", "description": "fine", "repo": "https://x/ok.git"},
    {"name": "", "description": "no name", "repo": "https://x/a.git"},
    {"name": "b", "description": "", "repo": "", "path": "../escape"},
    {"name": "OK", "description": "dup", "repo": "https://x/c.git", "tags": ["", "has space"]}
  ]
}`)
	_, err := Parse("reg.json", data)
	if err == nil {
		t.Fatal("want an error")
	}
	msg := err.Error()
	for _, want := range []string{
		"reg.json:1:1: name: is required",
		"reg.json:4:6: contexts[1].name: is required",
		"reg.json:5:19: contexts[2].description: is required",
		"reg.json:5:38: contexts[2].repo: is required",
		`reg.json:5:50: contexts[2].path: "../escape" must be a relative path`,
		`reg.json:6:6: contexts[3].name: "OK" is also the name of contexts[0]`,
		"reg.json:6:78: contexts[3].tags[0]: is required",
		`reg.json:6:82: contexts[3].tags[1]: "has space" must not contain white space`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if first := err.(*ParseError).Errors[0]; first.Field != "name" {
		t.Errorf("problems not in file order: first is %v", first)
	}
	if n := len(err.(*ParseError).Errors); n != 8 {
		t.Errorf("got %d problems, want 8:\n%s", n, msg)
	}
}

func TestParseNeedsContextsOrImports(t *testing.T) {
	t.Parallel()
	_, err := Parse("r.json", []byte(`{"name":"x","contexts":[]}`))
	if err == nil || !strings.Contains(err.Error(), "no contexts and no imports") {
		t.Fatalf("got %v", err)
	}
	if _, err := Parse("r.json", []byte(`{"name":"x","contexts":[],"imports":["./b.json"]}`)); err != nil {
		t.Fatalf("imports only should be fine: %v", err)
	}
}

func TestValidSubPath(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		"": true, ".": true, "docs": true, "docs/api/": true, "a/./b": true,
		"/etc": false, "..": false, "a/../..": false, "a/../b": false, ".git/config": false, "a\\b": false, "a/.GIT": false,
		// gitengine refuses these at fetch time; the registry now says so at load time.
		"a/GIT~1": false, ".git./x": false, ".git::$DATA/x": false, "a\x00b": false, "C:/x": false,
	} {
		if got := validSubPath(p); got != want {
			t.Errorf("validSubPath(%q) = %v, want %v", p, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"name":"a","contexts":[{"name":"x","description":"d","repo":"https://h/r.git","path":"docs","tags":["t"]}],"imports":["b.json"]}`))
	f.Add([]byte(`{"name":"a","contexts":[]}`))
	f.Add([]byte("{\n\"name\": 1,\n}"))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"name":"a","contexts":[{"name":"x","description":"d","repo":"r","path":"../.."}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse("fuzz.json", data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || len(pe.Errors) == 0 {
				t.Fatalf("error is not a non-empty *ParseError: %v", err)
			}
			for _, p := range pe.Errors {
				if p.Line < 0 || p.Col < 0 || (p.Line > 0 && p.Line > strings.Count(string(data), "\n")+1) {
					t.Fatalf("bad position %d:%d in %q", p.Line, p.Col, data)
				}
			}
			return
		}
		// A registry that parses survives a round trip and stays valid.
		for _, c := range r.Contexts {
			if !validSubPath(c.Path) || c.Name == "" || c.Repo == "" {
				t.Fatalf("invalid context accepted: %+v", c)
			}
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse("again.json", out); err != nil {
			t.Fatalf("round trip failed: %v\n%s", err, out)
		}
	})
}

func TestUnknownFields(t *testing.T) {
	t.Parallel()
	data := []byte(`{"name":"a","Description":"ok","extra":1,"contexts":[{"name":"x","descripton":"d","description":"d","repo":"r","TAGS":["t"]},{"name":"y","description":"d","repo":"r","owner":"me"}]}`)
	got := strings.Join(UnknownFields(data), " ")
	if got != "extra contexts[0].descripton contexts[1].owner" {
		t.Errorf("UnknownFields = %q", got)
	}
	if UnknownFields([]byte("not json")) != nil {
		t.Error("want nil for bad JSON")
	}
}

// TestParseErrorModel: each kind of problem in a registry, each at
// file:line:col, and all of a file's problems at once. Before
// internal/jsonfile a registry's duplicate keys were silently merged (the
// last won) and a wrong type named no element (contexts.repo).
func TestParseErrorModel(t *testing.T) {
	t.Parallel()
	ctx := `{"name": "x", "description": "d", "repo": "r"}`
	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"syntax", "{\n  \"name\": \"a\",\n  \"contexts\": [" + ctx + "]]\n}", []string{
			`reg.json:3:63: invalid JSON: invalid character ']' after object key:value pair`}},
		{"duplicate key", "{\n  \"name\": \"a\",\n  \"contexts\": [" + ctx + "],\n  \"name\": \"b\"\n}", []string{
			`reg.json:4:3: duplicate key "name" (first at 2:3; keep only one)`}},
		{"validation", "{\n  \"name\": \"a\",\n  \"contexts\": [\n    {\"name\": \"x\", \"description\": \"d\", \"repo\": \"has space\"}\n  ]\n}", []string{
			`reg.json:4:39: contexts[0].repo: "has space" must not contain white space`}},
		{"types at once", "{\n  \"name\": \"a\",\n  \"contexts\": [\n    " + ctx + ",\n    {\"name\": \"y\", \"description\": \"d\", \"repo\": 7, \"tags\": \"t\"}\n  ]\n}", []string{
			`reg.json:5:47: contexts[1].repo: expected a string, found a JSON number`,
			`reg.json:5:58: contexts[1].tags: expected an array, found a JSON string`}},
		{"all at once", "{\n  \"name\": \"\",\n  \"contexts\": [\n    {\"name\": \"x\", \"name\": \"y\", \"description\": \"d\", \"repo\": \"r\"}\n  ]\n}", []string{
			`reg.json:2:3: name: is required`,
			`reg.json:4:19: contexts[0]: duplicate key "name" (first at 4:6; keep only one)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("reg.json", []byte(tc.data))
			jsonfiletest.WantInOrder(t, err, tc.want)
		})
	}
	// Unknown fields are not errors in a registry (nocaap registries carry
	// their own); they are listed, by path, for a warning.
	data := []byte("{\n  \"name\": \"a\",\n  \"contexts\": [{\"name\": \"x\", \"descripton\": \"d\", \"description\": \"d\", \"repo\": \"r\"}]\n}")
	if _, err := Parse("reg.json", data); err != nil {
		t.Fatalf("unknown field refused: %v", err)
	}
	if got := strings.Join(UnknownFields(data), " "); got != "contexts[0].descripton" {
		t.Fatalf("UnknownFields = %q", got)
	}
}

// TestParseSourceKinds: a context names a git "repo" (as every registry
// before kinds), an https "url", or "repo" with an explicit "kind".
func TestParseSourceKinds(t *testing.T) {
	t.Parallel()
	data := []byte(`{
  "name": "acme",
  "contexts": [
    {"name": "old", "description": "a git repo, as before", "repo": "https://git.example/old.git", "path": "docs", "ref": "v1"},
    {"name": "guide", "description": "an llms.txt", "url": "https://docs.example/llms.txt"},
    {"name": "bundle", "description": "an archive", "url": "https://docs.example/docs.tar.gz", "path": "site", "kind": "https"},
    {"name": "page", "description": "repo with a kind", "repo": "https://docs.example/page.md", "kind": "https"},
    {"name": "explicit", "description": "kind git", "repo": "git@git.example:acme/x.git", "kind": "git"}
  ]
}`)
	r, err := Parse("reg.json", data)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ kind, source string }{
		{"git", "https://git.example/old.git"},
		{"https", "https://docs.example/llms.txt"},
		{"https", "https://docs.example/docs.tar.gz"},
		{"https", "https://docs.example/page.md"},
		{"git", "git@git.example:acme/x.git"},
	}
	for i, w := range want {
		c := r.Contexts[i]
		if c.KindOf() != w.kind || c.Source() != w.source {
			t.Errorf("contexts[%d]: kind %q source %q, want %q %q", i, c.KindOf(), c.Source(), w.kind, w.source)
		}
	}
	if unknown := UnknownFields(data); len(unknown) != 0 {
		t.Errorf("url and kind reported as unknown fields: %v", unknown)
	}
}

// TestParseSourceKindErrors: a bad kind, a dir context, or a source that
// does not fit its kind is an error at its line:column.
func TestParseSourceKindErrors(t *testing.T) {
	t.Parallel()
	data := []byte(`{
  "name": "acme",
  "contexts": [
    {"name": "a", "description": "d", "repo": "https://x/a.git", "kind": "svn"},
    {"name": "b", "description": "d", "repo": "./notes", "kind": "dir"},
    {"name": "c", "description": "d", "url": "ftp://x/c.md"},
    {"name": "e", "description": "d", "url": "https://x/e.md", "repo": "https://x/e.git"},
    {"name": "f", "description": "d", "url": "https://x/f.md", "ref": "main"},
    {"name": "g", "description": "d", "url": "https://x/g.md", "kind": "git"},
    {"name": "h", "description": "d", "repo": "../h", "kind": "https"}
  ]
}`)
	_, err := Parse("reg.json", data)
	if err == nil {
		t.Fatal("want an error")
	}
	msg := err.Error()
	for _, want := range []string{
		`reg.json:4:66: contexts[0].kind: unknown kind "svn": use "git"`,
		`reg.json:5:58: contexts[1].kind: a registry cannot offer a "dir" context`,
		`reg.json:6:39: contexts[2].url: "ftp://x/c.md" is not an http or https URL`,
		`reg.json:7:39: contexts[3].url: a context has "repo" or "url", not both`,
		`reg.json:8:64: contexts[4].ref: only a git source has a ref`,
		`reg.json:9:64: contexts[5].kind: "url" is an https source`,
		`reg.json:10:39: contexts[6].repo: "../h" is not an http or https URL`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if n := len(err.(*ParseError).Errors); n != 7 {
		t.Errorf("%d problems, want 7:\n%s", n, msg)
	}
}

// TestParseTTL: an https context may say how long its content is trusted
// (the manifest's ttl rule); a git context, or a bad duration, is an error
// at its line:column.
func TestParseTTL(t *testing.T) {
	t.Parallel()
	good := []byte(`{"name": "acme", "contexts": [
    {"name": "news", "description": "d", "url": "https://x/llms.txt", "ttl": "1d"}
  ]}`)
	r, err := Parse("reg.json", good)
	if err != nil {
		t.Fatal(err)
	}
	if r.Contexts[0].TTL != "1d" {
		t.Errorf("ttl %q, want 1d", r.Contexts[0].TTL)
	}
	if unknown := UnknownFields(good); len(unknown) != 0 {
		t.Errorf("ttl reported as an unknown field: %v", unknown)
	}
	bad := []byte(`{"name": "acme", "contexts": [
    {"name": "a", "description": "d", "url": "https://x/a.md", "ttl": "soon"},
    {"name": "b", "description": "d", "repo": "https://x/b.git", "ttl": "1d"}
  ]}`)
	_, err = Parse("reg.json", bad)
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{
		`reg.json:2:64: contexts[0].ttl: "soon" is not a duration`,
		`reg.json:3:66: contexts[1].ttl: only an https source has a ttl`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%s", want, err)
		}
	}
}
