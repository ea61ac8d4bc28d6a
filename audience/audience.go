// Package audience owns the audience rules of a document: which projects a
// document is for, as its front matter says.
//
//	---
//	ctx_include: [project-a, "shared/team-*", "*-service"]
//	ctx_exclude: [project-sensitive, "temp-*"]
//	---
//
// The keys are ctx_include and ctx_exclude; codex_sync_include and
// codex_sync_exclude are read as synonyms (a document that has both
// spellings gets the union). A scalar is a one-element list. The rules,
// in order (Allowed):
//
//  1. no include list: the document is public, allow;
//  2. include is ["*"]: allow, unless the exclude list matches;
//  3. the exclude list matches the project: deny;
//  4. the include list matches (and the exclude list does not): allow;
//  5. otherwise deny.
//
// So an exclude list without an include list changes nothing: write
// ctx_include: ["*"] beside it. A pattern matches a project name by Match.
// This is routing, not access control: whoever can read a repository can
// read every document in it.
//
// The package does no I/O; workspace applies it to the documents it
// installs.
package audience

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

// Match reports whether pattern matches the whole of name. '*' matches any
// run of bytes, '/' included, possibly empty; every other byte is literal
// (no character classes, no escapes; case matters). Names are compared
// byte by byte, which for UTF-8 text is character by character. It takes
// time linear in len(pattern)+len(name) times the pieces between stars at
// worst, never exponential: the pieces are matched left to right, each at
// its first place, and the last one at the end.
func Match(pattern, name string) bool {
	first, rest, star := strings.Cut(pattern, "*")
	if !star {
		return pattern == name
	}
	if !strings.HasPrefix(name, first) {
		return false
	}
	name = name[len(first):]
	// The piece after the last star must end the name.
	i := strings.LastIndexByte(rest, '*')
	last := rest[i+1:]
	if !strings.HasSuffix(name, last) {
		return false
	}
	name = name[:len(name)-len(last)]
	if i < 0 {
		return true // one star: it takes what is between first and last
	}
	// Between the first and the last star: each piece at its first place
	// (taking the earliest place leaves the most room to the next ones).
	for _, piece := range strings.Split(rest[:i], "*") {
		j := strings.Index(name, piece)
		if j < 0 {
			return false
		}
		name = name[j+len(piece):]
	}
	return true
}

// matchAny reports whether any of patterns matches name.
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if Match(p, name) {
			return true
		}
	}
	return false
}

// Allowed applies the rules (see the package doc) for project. A nil
// include is a missing include list; an empty, non-nil one is present and
// matches nothing.
func Allowed(include, exclude []string, project string) bool {
	switch {
	case include == nil:
		return true
	case len(include) == 1 && include[0] == "*":
		return !matchAny(exclude, project)
	case matchAny(exclude, project):
		return false
	}
	return matchAny(include, project)
}

// Keys are the front matter keys of the rules: the include keys, then the
// exclude keys.
var (
	IncludeKeys = []string{"ctx_include", "codex_sync_include"}
	ExcludeKeys = []string{"ctx_exclude", "codex_sync_exclude"}
)

// Rules are a document's audience rules.
type Rules struct {
	Include []string // nil when the document has no include list
	Exclude []string
}

// Any reports whether the document has rules at all (an include or an
// exclude list).
func (r Rules) Any() bool { return r.Include != nil || r.Exclude != nil }

// Allows applies r for project (Allowed).
func (r Rules) Allows(project string) bool { return Allowed(r.Include, r.Exclude, project) }

// Error is a malformed rule: the document's 1-based line and what is wrong.
// A document whose rules cannot be read is for no project (fail closed).
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Read finds the rules of the document named name (a path; its format is
// indexer/markdown's FormatOf) in its front matter (YAML, TOML or JSON, as
// indexer/markdown finds and decodes it). Only markdown has front matter:
// a YAML, JSON, TOML, text, rst or AsciiDoc document has no rules, even
// when it starts with "---" (public). A document without front matter, or
// whose front matter has no rule keys, has none too. An *Error says why
// the rules cannot be read: a value that is not a string or a list of
// strings, or front matter that cannot be decoded and names a rule key.
func Read(name string, content []byte) (Rules, error) {
	if !markdown.FormatOf(name).HasFrontMatter() || !mayHaveFrontMatter(content) {
		return Rules{}, nil
	}
	lines := markdown.Lines(content)
	fm, err := markdown.FindFrontMatter(lines)
	if err != nil {
		// The block is never closed: the document is body, unless it
		// meant to say who it is for.
		if k := mentionedKey(strings.Join(lines[:min(len(lines), maxHeadLines)], "\n")); k != "" {
			return Rules{}, &Error{Line: 1, Msg: fmt.Sprintf("%s: front matter cannot be read (%v), so who the document is for is unknown", k, err)}
		}
		return Rules{}, nil
	}
	if fm.Format == "" || mentionedKey(fm.Raw) == "" {
		return Rules{}, nil // no rules: nothing to decode
	}
	m, err := fm.Decode()
	if err != nil {
		if k := mentionedKey(fm.Raw); k != "" {
			return Rules{}, &Error{Line: fm.KeyLine(k), Msg: fmt.Sprintf("%s: front matter cannot be read (%s), so who the document is for is unknown", k, strings.TrimPrefix(err.Error(), "line "))}
		}
		return Rules{}, nil
	}
	var r Rules
	if r.Include, err = list(fm, m, IncludeKeys); err != nil {
		return Rules{}, err
	}
	if r.Exclude, err = list(fm, m, ExcludeKeys); err != nil {
		return Rules{}, err
	}
	return r, nil
}

// mayHaveFrontMatter is a quick test that spares splitting a document
// into lines: front matter (markdown.FindFrontMatter) starts with a line
// "---", "+++" or "{", after an optional byte-order mark.
func mayHaveFrontMatter(content []byte) bool {
	content = bytes.TrimPrefix(content, []byte("\xef\xbb\xbf"))
	return bytes.HasPrefix(content, []byte("---")) || bytes.HasPrefix(content, []byte("+++")) || bytes.HasPrefix(content, []byte("{"))
}

// maxHeadLines bounds how far an unclosed front matter is searched for a
// rule key.
const maxHeadLines = 200

// mentionedKey is the first rule key text names, or "".
func mentionedKey(text string) string {
	for _, k := range append(append([]string{}, IncludeKeys...), ExcludeKeys...) {
		if strings.Contains(text, k) {
			return k
		}
	}
	return ""
}

// list reads the union of keys' values: nil when none is present.
func list(fm markdown.FrontMatter, m map[string]any, keys []string) ([]string, error) {
	var out []string
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			continue
		}
		bad := func(what string) error {
			return &Error{Line: fm.KeyLine(k), Msg: fmt.Sprintf("%s must be a project name pattern or a list of them, not %s", k, what)}
		}
		if out == nil {
			out = []string{}
		}
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				s, ok := e.(string)
				if !ok {
					return nil, bad(describe(e) + " in the list")
				}
				out = append(out, s)
			}
		case []string:
			out = append(out, v...)
		default:
			return nil, bad(describe(v))
		}
	}
	if len(out) > 1 {
		sort.Strings(out)
		out = compact(out)
	}
	return out, nil
}

func compact(s []string) []string {
	j := 1
	for i := 1; i < len(s); i++ {
		if s[i] != s[j-1] {
			s[j] = s[i]
			j++
		}
	}
	return s[:j]
}

// describe names a decoded value's kind for an error.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "an empty value"
	case bool:
		return fmt.Sprintf("a boolean (%t)", v)
	case int, int64, uint64, float64:
		return fmt.Sprintf("a number (%v)", v)
	case []any:
		return "a nested list"
	case map[string]any, map[any]any:
		return "a map"
	}
	return fmt.Sprintf("a %T", v)
}
