// Package ctxref owns references to context documents: the two ways a
// project's own text cites a document of a package, how one is parsed
// (Parse, for the MCP server's tools and resources too) and found in a
// line of text (All), the scan of a project's docs for them (Scan), and
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
	"iter"
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

// All yields the references in one line of text, left to right. A
// reference starts at a prefix that does not follow a letter, digit or '_'
// (so "user@ctx/..." and "xctx://..." are not references); its name is
// [A-Za-z0-9._-]+ and its path runs to the next space, quote, backquote,
// '<', '>', '(', ')', '[', ']', '{', '}' or '|' (how markdown and prose
// end a link), less trailing '.', ',', ';', ':', '!', '?' and '*'
// (punctuation of the sentence, or emphasis). What does not parse (no
// path) is not a reference.
//
// It yields them one at a time, so a caller can stop at a limit inside a
// long line. It takes time linear in the line's
// length, however many references (or near misses) it holds: each search
// for the next prefix, stop, '?', '#' or bad escape is remembered and
// reused by the candidates after it, and only a candidate known to parse
// is parsed.
func All(line string) iter.Seq[Match] {
	return func(yield func(Match) bool) {
		sc := newLineScan(line)
		for i := 0; i < len(line); {
			j := sc.nextPrefix(i)
			if j < 0 {
				return
			}
			te, ok := sc.candidate(j)
			if !ok {
				i = j + 1 // not one: a reference may still start inside it
				continue
			}
			text := line[j:te]
			r, err := Parse(text)
			if err != nil { // candidate said it parses: never, but not a reference then
				i = j + 1
				continue
			}
			if !yield(Match{Ref: r, Col: j + 1, Text: text}) {
				return
			}
			i = te
		}
	}
}

// cursor answers "the first position at or after i where find matches"
// for growing i, remembering its last answer: a run of queries scans each
// byte about once.
type cursor struct {
	from, at int  // at is the answer for every i in [from, at] (-1: none after from)
	ok       bool // from and at hold an answer
	find     func(i int) int
}

func (c *cursor) next(i int) int {
	if c.ok && i >= c.from && (c.at < 0 || i <= c.at) {
		return c.at
	}
	c.from, c.at, c.ok = i, c.find(i), true
	return c.at
}

// lineScan is All's state over one line.
type lineScan struct {
	line                string
	at, uri, stop       cursor
	queryOrFrag, badEsc cursor
	trimFor, trimStart  int // trimStart: where the trailing punctuation before stop trimFor begins
}

func newLineScan(line string) *lineScan {
	sc := &lineScan{line: line, trimFor: -1}
	index := func(sub string) func(int) int {
		return func(i int) int {
			if k := strings.Index(line[i:], sub); k >= 0 {
				return i + k
			}
			return -1
		}
	}
	sc.at.find = index(AtPrefix)
	sc.uri.find = index(URIPrefix)
	sc.stop.find = func(i int) int {
		for ; i < len(line); i++ {
			if isStop(line[i]) {
				return i
			}
		}
		return -1
	}
	sc.queryOrFrag.find = func(i int) int {
		if k := strings.IndexAny(line[i:], "?#"); k >= 0 {
			return i + k
		}
		return -1
	}
	sc.badEsc.find = func(i int) int {
		for {
			k := strings.IndexByte(line[i:], '%')
			if k < 0 {
				return -1
			}
			p := i + k
			if p+2 >= len(line) || !isHex(line[p+1]) || !isHex(line[p+2]) {
				return p
			}
			i = p + 1
		}
	}
	return sc
}

// nextPrefix is the byte offset of the next prefix at or after i that does
// not follow a word character, or -1.
func (sc *lineScan) nextPrefix(i int) int {
	for i < len(sc.line) {
		k := sc.at.next(i)
		if u := sc.uri.next(i); k < 0 || (u >= 0 && u < k) {
			k = u
		}
		if k < 0 {
			return -1
		}
		if k == 0 || !isWord(sc.line[k-1]) {
			return k
		}
		i = k + 1
	}
	return -1
}

// candidate reports whether the prefix at j starts a reference that Parse
// takes, and where its text ends (trailing punctuation cut), without
// reading more of the line than the searches it shares with the
// candidates after it: the name ([A-Za-z0-9._-]+, then '/'), a path that
// is not empty once '?' (URI form), '#' and the trailing punctuation are
// cut, and, in the URI form, no bad percent escape in the path.
func (sc *lineScan) candidate(j int) (te int, ok bool) {
	line := sc.line
	end := sc.stop.next(j)
	if end < 0 {
		end = len(line)
	}
	uriForm := line[j] != '@'
	k := j + len(AtPrefix)
	if uriForm {
		k = j + len(URIPrefix)
	}
	n := k
	for k < end && (isWord(line[k]) || line[k] == '.' || line[k] == '-') {
		k++
	}
	if k == n || k >= end || line[k] != '/' {
		return 0, false
	}
	s := k + 1 // the path's start
	if sc.trimFor != end {
		t := end
		for t > j && strings.IndexByte(".,;:!?*", line[t-1]) >= 0 {
			t--
		}
		sc.trimFor, sc.trimStart = end, t
	}
	te = max(sc.trimStart, s)
	if te == s || line[s] == '#' || (uriForm && line[s] == '?') { // an empty path
		return 0, false
	}
	if uriForm { // the path, to its '?' or '#', must unescape
		pe := te
		if q := sc.queryOrFrag.next(s); q >= 0 && q < pe {
			pe = q
		}
		if b := sc.badEsc.next(s); b >= 0 && b < pe {
			return 0, false
		}
	}
	return te, true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
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
