// Package registry reads context registries: JSON files that list the context
// packages an organisation offers, and that may import other registries.
//
// # File format
//
// A registry is one JSON object (the same shape as nocaap-registry.json, so
// existing hubs work unchanged; ctx's own default file name is
// ctx-registry.json):
//
//	{
//	  "name": "acme",                       // required
//	  "description": "Acme engineering docs",
//	  "contexts": [                         // may be empty when imports is not
//	    {
//	      "name": "platform",               // required, unique in the file
//	      "description": "How we run services", // required
//	      "repo": "https://git.acme.dev/platform-docs.git", // git URL or path (repo or url is required)
//	      "path": "docs",                   // optional sub-path in the repo (or folder in an archive)
//	      "ref": "main",                    // optional branch, tag or commit (git only)
//	      "tags": ["backend", "ops"]        // optional
//	    },
//	    {
//	      "name": "api-guide",
//	      "description": "The public API guide",
//	      "url": "https://docs.acme.dev/llms.txt", // an https source: a document, an llms.txt or an archive
//	      "ttl": "1d"                       // optional, https only: how long its content is trusted
//	    }
//	  ],
//	  "imports": ["https://hub.acme.dev/ctx-registry.json"] // optional
//	}
//
// A context's kind is git unless it has a "url" (an https source: one
// document, an llms.txt index or a .tar.gz/.zip archive) or an explicit
// "kind": "git" or "https" ("repo" with "kind": "https" is the same as
// "url"). A "dir" context is refused: a local folder on the registry
// owner's machine is not there for teammates; publish it in a git
// repository or over https instead. There is no "tokenEnv": a registry
// must not choose which environment variable is sent to a server of its
// choosing.
//
// Unknown fields are ignored (ctx warns about them); a key repeated in one
// object is an error. A relative "repo" (starting with ./ or ../) is
// resolved against the registry's folder when the registry is local, against
// the file's URL when it came over http, and against the repository's URL
// when it came from a remote git repository (as git resolves relative
// submodule URLs: "../docs" next to https://host/org/hub.git is
// https://host/org/docs). Relative imports are resolved against the
// importing registry's location (the same repository and ref for git).
//
// Where a registry can come from is described at [ParseLocation].
package registry

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"

	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/source"
)

// DefaultFileName is the registry file ctx looks for in a git repository or a
// folder when no file is named.
const DefaultFileName = "ctx-registry.json"

// Registry is one registry file.
type Registry struct {
	Name        string    `json:"name" validate:"required,max=200"`
	Description string    `json:"description,omitempty" validate:"max=2000"`
	Contexts    []Context `json:"contexts" validate:"dive"`
	Imports     []string  `json:"imports,omitempty" validate:"dive,required,nospace"`
}

// Context is one context package a registry offers.
type Context struct {
	Name        string   `json:"name" validate:"required,max=100,ctxname"`
	Description string   `json:"description" validate:"required,max=2000"`
	Repo        string   `json:"repo,omitempty" validate:"omitempty,nospace"` // a git repository, or with Kind https an http(s) URL
	URL         string   `json:"url,omitempty" validate:"omitempty,nospace"`  // an https source; Repo must then be empty
	Kind        string   `json:"kind,omitempty"`                              // "" = git, or https when URL is set
	Path        string   `json:"path,omitempty" validate:"omitempty,subpath"`
	Ref         string   `json:"ref,omitempty" validate:"omitempty,nospace"`
	TTL         string   `json:"ttl,omitempty"` // https only: how long fetched content is trusted (source.ParseDuration)
	Tags        []string `json:"tags,omitempty" validate:"dive,required,max=50,nospace"`
}

// Context kinds a registry may name.
const (
	KindGitSource   = "git"
	KindHTTPSSource = "https"
	kindDirSource   = "dir"
)

// Source is where the context's content is: URL, else Repo.
func (c Context) Source() string {
	if c.URL != "" {
		return c.URL
	}
	return c.Repo
}

// KindOf is the context's kind: Kind, else https when it has a URL, else git.
func (c Context) KindOf() string {
	switch {
	case c.Kind != "":
		return c.Kind
	case c.URL != "":
		return KindHTTPSSource
	}
	return KindGitSource
}

// Problem is one thing wrong with a registry file.
type Problem = jsonfile.Error

// ParseError lists every problem found in one registry file. It is the
// error model of every JSON file ctx reads (internal/jsonfile).
type ParseError = jsonfile.ErrorList

// Parse parses and validates the bytes of a registry file. name is used in
// error messages ("ctx-registry.json:3:14: …"). Every problem is reported at
// once in a *ParseError. Unknown fields are not problems (see
// [UnknownFields]).
func Parse(name string, data []byte) (*Registry, error) {
	data = jsonfile.TrimBOM(data)
	if n := countContexts(data); n > MaxContexts {
		p := jsonfile.Positions(data, [][]string{{"contexts"}})[0]
		if !p.Valid() {
			p = jsonfile.Offset(data, 0)
		}
		return nil, &ParseError{Errors: []Problem{{File: name, Line: p.Line, Col: p.Col, Field: "contexts",
			Msg: fmt.Sprintf("%d contexts, more than the limit of %d a registry may hold: nothing was read (ask the registry's owner to offer fewer)", n, MaxContexts)}}}
	}
	var r Registry
	err := jsonfile.Decode(name, data, &r, jsonfile.Options{
		Validator:    registryValidator(),
		Message:      ruleMessage,
		Check:        func() []jsonfile.Error { return check(&r) },
		AllowUnknown: true,
	})
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// countContexts counts the elements of the top-level "contexts" arrays of
// data (every member so named, as the decode matches names: without
// regard to case) without decoding them, so that a file of millions of
// contexts is refused before the walk, the decode and the rules build
// something per context (red19 finding 4: an 8 MB registry of 2.8 million
// `{}` cost 130 s of CPU and 6.4 GB). It uses encoding/json into
// zero-size elements: one scan, nothing kept per element. A file that is
// not JSON, or whose contexts are not an array, counts what it can;
// Decode says what is wrong with it.
func countContexts(data []byte) int {
	var top struct{ Contexts contextCount }
	_ = json.Unmarshal(data, &top)
	return top.Contexts.n
}

// contextCount counts the elements of each array decoded into it.
type contextCount struct{ n int }

func (c *contextCount) UnmarshalJSON(b []byte) error {
	var elems []skipped
	if json.Unmarshal(b, &elems) == nil {
		c.n += len(elems)
	}
	return nil
}

// skipped decodes any JSON value into nothing.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// UnknownFields lists the fields of a registry file that ctx does not read,
// by path (contexts[2].descripton), so a typo can be pointed out. Fields
// whose names differ from ctx's only in case are read, so not listed. data
// must be a registry that Parse accepts; otherwise the result is nil.
func UnknownFields(data []byte) []string {
	return jsonfile.UnknownFields(data, &Registry{})
}

// registryValidator is newValidator's, built once per process (a
// validator is safe for concurrent use).
var registryValidator = sync.OnceValue(newValidator)

// newValidator builds the validator with ctx's rules and JSON field names.
func newValidator() *validator.Validate {
	v := jsonfile.NewValidator()
	must := func(err error) {
		if err != nil {
			panic(err) // only on a programming error in the tags below
		}
	}
	must(v.RegisterValidation("nospace", func(fl validator.FieldLevel) bool {
		return !strings.ContainsAny(fl.Field().String(), " \t\r\n")
	}))
	must(v.RegisterValidation("ctxname", func(fl validator.FieldLevel) bool {
		s := fl.Field().String()
		return strings.TrimSpace(s) == s && !strings.ContainsAny(s, ",\t\r\n")
	}))
	must(v.RegisterValidation("subpath", func(fl validator.FieldLevel) bool {
		return validSubPath(fl.Field().String())
	}))
	return v
}

// validSubPath reports whether p is a sub-path of a repository that
// naming.CleanSubPath accepts ("" and "." are the whole repository).
func validSubPath(p string) bool {
	_, err := naming.CleanSubPath(p)
	return err == nil
}

// check returns the problems that no single field's rule finds, each with
// its field path (contexts[2].name).
func check(r *Registry) []Problem {
	var probs []Problem
	if len(r.Contexts) == 0 && len(r.Imports) == 0 {
		probs = append(probs, Problem{Field: "contexts", Msg: "no contexts and no imports: add at least one context"})
	}
	seen := map[string]int{}
	for i, c := range r.Contexts {
		probs = append(probs, sourceProblems(i, c)...)
		if c.Name == "" {
			continue
		}
		key := strings.ToLower(c.Name)
		if j, dup := seen[key]; dup {
			probs = append(probs, Problem{Field: fmt.Sprintf("contexts[%d].name", i),
				Msg: fmt.Sprintf("%s is also the name of contexts[%d]: names must be unique", safetext.Quote(c.Name), j)})
			continue
		}
		seen[key] = i
	}
	return probs
}

// sourceProblems checks that contexts[i] names one source of a kind a
// registry may offer.
func sourceProblems(i int, c Context) []Problem {
	var probs []Problem
	bad := func(field, msg string) {
		probs = append(probs, Problem{Field: fmt.Sprintf("contexts[%d].%s", i, field), Msg: msg})
	}
	switch c.Kind {
	case "", KindGitSource, KindHTTPSSource:
	case kindDirSource:
		bad("kind", `a registry cannot offer a "dir" context: a local folder on one machine is not there for teammates; publish it in a git repository ("repo") or over https ("url")`)
		return probs
	default:
		bad("kind", fmt.Sprintf(`unknown kind %s: use "git" (with "repo") or "https" (with "url")`, safetext.Quote(c.Kind)))
		return probs
	}
	switch {
	case c.Repo == "" && c.URL == "":
		bad("repo", `is required: name the source with "repo" (a git repository) or "url" (an https document, llms.txt or archive)`)
		return probs
	case c.Repo != "" && c.URL != "":
		bad("url", `a context has "repo" or "url", not both`)
		return probs
	case c.URL != "" && c.Kind == KindGitSource:
		bad("kind", `"url" is an https source: for a git repository use "repo"`)
		return probs
	}
	if c.KindOf() != KindHTTPSSource {
		if c.TTL != "" {
			bad("ttl", "only an https source has a ttl")
		}
		return probs
	}
	if c.TTL != "" {
		if _, err := source.ParseDuration(c.TTL); err != nil {
			bad("ttl", err.Error())
		}
	}
	field := "url"
	if c.URL == "" {
		field = "repo"
	}
	if u, err := url.Parse(c.Source()); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		bad(field, fmt.Sprintf("%s is not an http or https URL: an https source is fetched from the web", safetext.Quote(c.Source())))
	}
	if c.Ref != "" {
		bad("ref", "only a git source has a ref")
	}
	return probs
}

func ruleMessage(fe validator.FieldError) string {
	switch fe.Tag() {
	case "nospace":
		return fmt.Sprintf("%s must not contain white space", safetext.Quote(fmt.Sprint(fe.Value())))
	case "ctxname":
		return fmt.Sprintf("%s must not contain commas, line breaks or leading/trailing spaces", safetext.Quote(fmt.Sprint(fe.Value())))
	case "subpath":
		return fmt.Sprintf("%s must be a relative path inside the repository (no leading /, no .., no .git)", safetext.Quote(fmt.Sprint(fe.Value())))
	}
	return "" // jsonfile.RuleMessage
}
