// Package ctxref owns references to context documents: the two ways a
// project's own text cites a document of a package, how one is parsed
// (Parse, for the MCP server's tools and resources too) and found in a
// line of text (Find), the scan of a project's docs for them (Scan), and
// what each one points at (Classify).
//
// A reference is one of
//
//	@ctx/<name>/<path>             <name>: an installed alias or a registry context's name
//	ctx://packages/<alias>/<path>  the MCP server's document URI (percent-encoded)
//
// <path> is a slash-separated path inside the package. A "#fragment" (a
// heading anchor) and, in the URI form, a "?query" are not part of it.
package ctxref

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// The prefixes of the two forms.
const (
	AtPrefix  = "@ctx/"
	URIPrefix = "ctx://packages/"
)

// Form is how a reference is written.
type Form int

const (
	FormAt  Form = iota // @ctx/<name>/<path>
	FormURI             // ctx://packages/<alias>/<path>
)

// Ref is a parsed reference.
type Ref struct {
	Form Form
	// Name is the package's alias or, in the @ctx form, a registry
	// context's name; percent-decoded in the URI form.
	Name string
	// Path is the document's path inside the package, as written
	// (percent-decoded in the URI form); the fragment is cut off. It is not
	// checked: naming.CheckServedPath is the rule for a served path.
	Path string
}

// String is the reference in its @ctx form, or its URI (name and path
// percent-encoded element by element, as the MCP server writes them).
func (r Ref) String() string {
	if r.Form == FormAt {
		return AtPrefix + r.Name + "/" + r.Path
	}
	parts := strings.Split(r.Path, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return URIPrefix + url.PathEscape(r.Name) + "/" + strings.Join(parts, "/")
}

// IsRef reports whether s is written as a reference (it starts with one of
// the two prefixes), well-formed or not.
func IsRef(s string) bool {
	return strings.HasPrefix(s, AtPrefix) || strings.HasPrefix(s, URIPrefix)
}

// ErrNotRef is Parse's error for a string without either prefix.
var ErrNotRef = errors.New("not a reference (want @ctx/<name>/<path> or ctx://packages/<alias>/<path>)")

// Parse parses one whole reference string: its prefix, then the name up to
// the first '/', then the path. The URI form drops a "?query" and both forms
// a "#fragment"; the URI form's name and path are percent-decoded. An empty
// name or path is an error; neither is otherwise checked (naming.ValidAlias
// and naming.CheckServedPath are the rules, applied by whoever opens it).
func Parse(s string) (Ref, error) {
	var r Ref
	rest, ok := strings.CutPrefix(s, AtPrefix)
	if !ok {
		if rest, ok = strings.CutPrefix(s, URIPrefix); !ok {
			return Ref{}, fmt.Errorf("%q: %w", s, ErrNotRef)
		}
		r.Form = FormURI
		if i := strings.IndexByte(rest, '?'); i >= 0 {
			rest = rest[:i]
		}
	}
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	name, p, ok := strings.Cut(rest, "/")
	if name == "" {
		return Ref{}, fmt.Errorf("%q names no package: write %s<name>/<path>", s, prefix(r.Form))
	}
	if !ok || p == "" {
		return Ref{}, fmt.Errorf("%q names no document: write %s%s/<path inside the package>", s, prefix(r.Form), name)
	}
	if r.Form == FormURI {
		var err error
		if name, err = url.PathUnescape(name); err != nil {
			return Ref{}, fmt.Errorf("bad alias in %q: %w", s, err)
		}
		if p, err = url.PathUnescape(p); err != nil {
			return Ref{}, fmt.Errorf("bad path in %q: %w", s, err)
		}
	}
	r.Name, r.Path = name, p
	return r, nil
}

func prefix(f Form) string {
	if f == FormAt {
		return AtPrefix
	}
	return URIPrefix
}

// Match is a reference found in a line of text.
type Match struct {
	Ref
	Col  int    // 1-based byte column of its first character
	Text string // the reference as written
}

// Find returns the references in one line of text, left to right. A
// reference starts at a prefix that does not follow a letter, digit or '_'
// (so "user@ctx/..." and "xctx://..." are not references); its name is
// [A-Za-z0-9._-]+ and its path runs to the next space, quote, backquote,
// '<', '>', '(', ')', '[', ']', '{', '}' or '|' (how markdown and prose
// end a link), less trailing '.', ',', ';', ':', '!', '?' and '*'
// (punctuation of the sentence, or emphasis). What does not parse (no
// path) is not a reference.
func Find(line string) []Match {
	var out []Match
	for i := 0; i < len(line); {
		j := nextPrefix(line, i)
		if j < 0 {
			break
		}
		end := j
		for end < len(line) && !isStop(line[end]) {
			end++
		}
		text := strings.TrimRight(line[j:end], ".,;:!?*")
		r, err := Parse(text)
		if err != nil || !validName(nameOf(text)) {
			i = j + 1 // not one: a reference may still start inside it
			continue
		}
		out = append(out, Match{Ref: r, Col: j + 1, Text: text})
		i = j + len(text)
	}
	return out
}

// nextPrefix is the byte offset of the next prefix at or after i that does
// not follow a word character, or -1.
func nextPrefix(line string, i int) int {
	for i < len(line) {
		a := strings.Index(line[i:], AtPrefix)
		u := strings.Index(line[i:], URIPrefix)
		k := a
		if k < 0 || (u >= 0 && u < k) {
			k = u
		}
		if k < 0 {
			return -1
		}
		k += i
		if k == 0 || !isWord(line[k-1]) {
			return k
		}
		i = k + 1
	}
	return -1
}

// nameOf is the raw name of a reference that has a prefix.
func nameOf(text string) string {
	rest, ok := strings.CutPrefix(text, AtPrefix)
	if !ok {
		rest = strings.TrimPrefix(text, URIPrefix)
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}

// validName: what Find takes as a name, [A-Za-z0-9._-]+ (an alias's
// characters; a registry name with other characters cannot be cited).
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isWord(c) && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func isStop(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '\v', '\f', '"', '\'', '`', '<', '>', '(', ')', '[', ']', '{', '}', '|':
		return true
	}
	return false
}
