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
//	      "repo": "https://git.acme.dev/platform-docs.git", // required: git URL or path
//	      "path": "docs",                   // optional sub-path in the repo
//	      "ref": "main",                    // optional branch, tag or commit
//	      "tags": ["backend", "ops"]        // optional
//	    }
//	  ],
//	  "imports": ["https://hub.acme.dev/ctx-registry.json"] // optional
//	}
//
// Unknown fields are ignored. A relative "repo" (starting with ./ or ../) is
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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/lockfile/jsonpos"
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
	Repo        string   `json:"repo" validate:"required,nospace"`
	Path        string   `json:"path,omitempty" validate:"omitempty,subpath"`
	Ref         string   `json:"ref,omitempty" validate:"omitempty,nospace"`
	Tags        []string `json:"tags,omitempty" validate:"dive,required,max=50,nospace"`
}

// Problem is one thing wrong with a registry file.
type Problem struct {
	File      string // the registry's location, as given
	Line, Col int    // 1-based; 0 when the problem has no position (a field rule)
	Field     string // JSON path such as contexts[2].repo; "" for syntax errors
	Msg       string
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", p.Line, p.Col)
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// ParseError lists every problem found in one registry file.
type ParseError struct {
	Problems []Problem
}

func (e *ParseError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Parse parses and validates the bytes of a registry file. name is used in
// error messages ("ctx-registry.json:3:14: …"). Every problem is reported at
// once in a *ParseError.
func Parse(name string, data []byte) (*Registry, error) {
	var r Registry
	dec := json.NewDecoder(bytes.NewReader(data))
	err := dec.Decode(&r)
	if err == nil {
		// Anything but white space after the object is an error.
		if _, terr := dec.Token(); !errors.Is(terr, io.EOF) {
			line, col := lineCol(data, dec.InputOffset())
			var se *json.SyntaxError
			if errors.As(terr, &se) {
				line, col = lineCol(data, se.Offset)
			}
			return nil, &ParseError{Problems: []Problem{{File: name, Line: line, Col: col, Msg: "unexpected data after the registry object"}}}
		}
	}
	if err != nil {
		return nil, &ParseError{Problems: []Problem{jsonProblem(name, data, err)}}
	}
	if probs := Validate(name, &r); len(probs) > 0 {
		// Point at the member (or, when it is missing, the object lacking it).
		for i := range probs {
			if probs[i].Field != "" && probs[i].Line == 0 {
				if pos := jsonpos.Find(data, jsonpos.SplitPath(probs[i].Field)); pos.Valid() {
					probs[i].Line, probs[i].Col = pos.Line, pos.Col
				}
			}
		}
		sort.SliceStable(probs, func(i, j int) bool {
			if probs[i].Line != probs[j].Line {
				return probs[i].Line < probs[j].Line
			}
			return probs[i].Col < probs[j].Col
		})
		return nil, &ParseError{Problems: probs}
	}
	return &r, nil
}

func jsonProblem(name string, data []byte, err error) Problem {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line, col := lineCol(data, se.Offset)
		return Problem{File: name, Line: line, Col: col, Msg: "invalid JSON: " + se.Error()}
	case errors.As(err, &te):
		line, col := lineCol(data, te.Offset)
		// te.Field is encoding/json's dotted path without array indexes
		// ("contexts.repo"); the position says which element.
		return Problem{File: name, Line: line, Col: col, Field: te.Field,
			Msg: fmt.Sprintf("expected %s, found a JSON %s", kindName(te.Type), te.Value)}
	case errors.Is(err, io.EOF):
		return Problem{File: name, Line: 1, Col: 1, Msg: "empty file: a registry is a JSON object with \"name\" and \"contexts\""}
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, col := lineCol(data, int64(len(data)))
		return Problem{File: name, Line: line, Col: col, Msg: "invalid JSON: unexpected end of file"}
	}
	return Problem{File: name, Msg: "invalid JSON: " + err.Error()}
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "an array"
	case reflect.Struct:
		return "an object"
	}
	return t.String()
}

// lineCol converts a byte offset into a 1-based line and column (in bytes).
// encoding/json reports the offset just past the offending byte.
func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off > 0 {
		off-- // point at the offending byte, not past it
	}
	line, col := 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// UnknownFields lists the fields of a registry file that ctx does not read,
// by path (contexts[2].descripton), so a typo can be pointed out. data must
// be a registry that Parse accepts; otherwise the result is nil.
func UnknownFields(data []byte) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return nil
	}
	known := func(t reflect.Type) map[string]bool {
		m := map[string]bool{}
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			m[name] = true
		}
		return m
	}
	var out []string
	regKnown := known(reflect.TypeFor[Registry]())
	for _, k := range sortedKeys(top) {
		if !regKnown[k] && !caseFold(regKnown, k) {
			out = append(out, k)
		}
	}
	var contexts []map[string]json.RawMessage
	if raw, ok := top["contexts"]; ok && json.Unmarshal(raw, &contexts) == nil {
		ctxKnown := known(reflect.TypeFor[Context]())
		for i, c := range contexts {
			for _, k := range sortedKeys(c) {
				if !ctxKnown[k] && !caseFold(ctxKnown, k) {
					out = append(out, fmt.Sprintf("contexts[%d].%s", i, k))
				}
			}
		}
	}
	return out
}

// caseFold: encoding/json matches field names case-insensitively, so
// "Name" is read as "name" and is not unknown.
func caseFold(known map[string]bool, k string) bool {
	for n := range known {
		if strings.EqualFold(n, k) {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// newValidator builds the validator with ctx's rules and JSON field names.
func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
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

// Validate checks r and returns every problem, each with its field path
// (contexts[2].repo). name is the registry's location for messages.
func Validate(name string, r *Registry) []Problem {
	var probs []Problem
	if err := newValidator().Struct(r); err != nil {
		var verrs validator.ValidationErrors
		if errors.As(err, &verrs) {
			for _, fe := range verrs {
				probs = append(probs, Problem{File: name, Field: fieldPath(fe.Namespace()), Msg: ruleMessage(fe)})
			}
		} else {
			probs = append(probs, Problem{File: name, Msg: err.Error()})
		}
	}
	if len(r.Contexts) == 0 && len(r.Imports) == 0 {
		probs = append(probs, Problem{File: name, Field: "contexts", Msg: "no contexts and no imports: add at least one context"})
	}
	seen := map[string]int{}
	for i, c := range r.Contexts {
		if c.Name == "" {
			continue
		}
		key := strings.ToLower(c.Name)
		if j, dup := seen[key]; dup {
			probs = append(probs, Problem{File: name, Field: fmt.Sprintf("contexts[%d].name", i),
				Msg: fmt.Sprintf("%s is also the name of contexts[%d]: names must be unique", safetext.Quote(c.Name), j)})
			continue
		}
		seen[key] = i
	}
	sort.SliceStable(probs, func(i, j int) bool { return fieldLess(probs[i].Field, probs[j].Field) })
	return probs
}

// fieldLess orders field paths as they appear in the file: contexts[2] before
// contexts[10].
func fieldLess(a, b string) bool {
	ia, ra := indexOf(a)
	ib, rb := indexOf(b)
	if ra != rb {
		return ra < rb
	}
	if ia != ib {
		return ia < ib
	}
	return a < b
}

func indexOf(f string) (int, string) {
	pre, rest, ok := strings.Cut(f, "[")
	if !ok {
		return -1, f
	}
	n := 0
	for _, c := range rest {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n, pre
}

// fieldPath drops the struct name validator puts first: "Registry.contexts[2].repo".
func fieldPath(ns string) string {
	if _, rest, ok := strings.Cut(ns, "."); ok {
		return rest
	}
	return ns
}

func ruleMessage(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "is required"
	case "max":
		if fe.Kind() == reflect.String {
			return fmt.Sprintf("is longer than %s characters", fe.Param())
		}
		return fmt.Sprintf("has more than %s entries", fe.Param())
	case "nospace":
		return fmt.Sprintf("%s must not contain white space", safetext.Quote(fmt.Sprint(fe.Value())))
	case "ctxname":
		return fmt.Sprintf("%s must not contain commas, line breaks or leading/trailing spaces", safetext.Quote(fmt.Sprint(fe.Value())))
	case "subpath":
		return fmt.Sprintf("%s must be a relative path inside the repository (no leading /, no .., no .git)", safetext.Quote(fmt.Sprint(fe.Value())))
	}
	return fmt.Sprintf("fails rule %q", fe.Tag())
}
