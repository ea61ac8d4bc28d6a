// Package jsonpos turns byte offsets and field paths of a JSON document into
// line:column positions, so that configuration errors can say where they are.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/safetext"
)

// Pos is a 1-based line and column (columns count bytes).
type Pos struct {
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Valid reports whether p is a real position.
func (p Pos) Valid() bool { return p.Line > 0 }

// Offset returns the position of byte offset off in data.
func Offset(data []byte, off int64) Pos {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return Pos{Line: line, Col: col}
}

// DecodeError returns the position of a JSON decoding error (syntax or type
// error) and a message without Go's "json: " prefix. ok is false when err
// carries no offset.
func DecodeError(data []byte, err error) (pos Pos, msg string, ok bool) {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset is just past the offending byte.
		off := se.Offset - 1
		if off < 0 {
			off = 0
		}
		return Offset(data, off), se.Error(), true
	case errors.As(err, &te):
		field := te.Field
		pos := Offset(data, te.Offset-1)
		if field == "" {
			field = "value"
		} else if p := Find(data, SplitPath(field)); p.Valid() {
			pos = p
		}
		return pos, fmt.Sprintf("%s: cannot use JSON %s as %s", field, te.Value, goTypeName(te.Type.String())), true
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return Offset(data, int64(len(data))), "unexpected end of JSON input", true
	}
	var pe *time.ParseError
	if errors.As(err, &pe) {
		msg := fmt.Sprintf("%s is not a time in RFC 3339 form (2006-01-02T15:04:05Z)", safetext.Quote(pe.Value))
		if i := bytes.Index(data, []byte(`"`+pe.Value+`"`)); i >= 0 {
			return Offset(data, int64(i)), msg, true
		}
		return Pos{}, msg, false
	}
	return Pos{}, strings.TrimPrefix(err.Error(), "json: "), false
}

func goTypeName(t string) string {
	switch {
	case strings.HasPrefix(t, "map["):
		return "an object"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "a number"
	case t == "string":
		return "a string"
	case t == "bool":
		return "a boolean"
	}
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		t = t[i+1:]
	}
	return "a " + t
}

// SplitPath splits a field path such as `packages[2].alias` or
// `packages[my.docs].commit` into its segments ("packages", "2", "alias").
// Text inside brackets is one segment, dots and all.
func SplitPath(p string) []string {
	var segs []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			segs = append(segs, cur.String())
			cur.Reset()
		}
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '.':
			flush()
		case '[':
			flush()
			j := strings.IndexByte(p[i+1:], ']')
			if j < 0 {
				cur.WriteString(p[i+1:])
				i = len(p)
				break
			}
			segs = append(segs, p[i+1:i+1+j])
			i += j + 1
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return segs
}

// Find returns the position of the member at path (object keys and array
// indices as decimal strings). When the path does not exist in full, it
// returns the position of its longest existing prefix (for a missing
// required field: the object that lacks it). A document that does not parse
// gives the zero Pos.
func Find(data []byte, path []string) Pos {
	dec := json.NewDecoder(bytes.NewReader(data))
	f := finder{dec: dec, data: data, target: path, best: -1}
	start := skip(data, 0)
	if err := f.value(nil); err != nil && f.best < 0 {
		return Pos{}
	}
	if f.best < 0 {
		return Offset(data, start)
	}
	return Offset(data, f.bestOff)
}

type finder struct {
	dec     *json.Decoder
	data    []byte
	target  []string
	best    int // length of the longest matched prefix
	bestOff int64
	done    bool
}

// skip moves past white space and one separator (',' or ':').
func skip(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

func (f *finder) match(path []string, off int64) {
	if len(path) > len(f.target) || len(path) <= f.best {
		return
	}
	for i := range path {
		if path[i] != f.target[i] {
			return
		}
	}
	f.best, f.bestOff = len(path), off
	if len(path) == len(f.target) {
		f.done = true
	}
}

func (f *finder) value(path []string) error {
	tok, err := f.dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		for f.dec.More() && !f.done {
			off := skip(f.data, f.dec.InputOffset())
			k, err := f.dec.Token()
			if err != nil {
				return err
			}
			key, _ := k.(string)
			child := append(path[:len(path):len(path)], key)
			f.match(child, off)
			if f.done {
				return nil
			}
			if err := f.value(child); err != nil {
				return err
			}
		}
	case '[':
		for i := 0; f.dec.More() && !f.done; i++ {
			off := skip(f.data, f.dec.InputOffset())
			child := append(path[:len(path):len(path)], strconv.Itoa(i))
			f.match(child, off)
			if f.done {
				return nil
			}
			if err := f.value(child); err != nil {
				return err
			}
		}
	}
	if f.done {
		return nil
	}
	_, err = f.dec.Token() // closing delimiter
	return err
}

// Problem is one thing wrong with a file.
type Problem struct {
	Pos   Pos    // zero when unknown
	Field string // JSON path, e.g. packages[docs].commit; "" for syntax errors
	Msg   string
}

// List is every problem found in one file, with a hint on what to do.
type List struct {
	File     string
	Problems []Problem
	Hint     string
}

func (l *List) Error() string {
	var b strings.Builder
	for i, p := range l.Problems {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(l.File)
		if p.Pos.Valid() {
			fmt.Fprintf(&b, ":%d:%d", p.Pos.Line, p.Pos.Col)
		}
		b.WriteString(": ")
		if p.Field != "" {
			b.WriteString(p.Field + ": ")
		}
		b.WriteString(p.Msg)
	}
	if l.Hint != "" {
		b.WriteString("\n(" + l.Hint + ")")
	}
	return b.String()
}

// FindKey returns the position of the first object member named key, at any
// depth (for errors such as an unknown field that carry no path), or the
// zero Pos.
func FindKey(data []byte, key string) Pos {
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func() (int64, bool, error)
	walk = func() (int64, bool, error) {
		tok, err := dec.Token()
		if err != nil {
			return 0, false, err
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return 0, false, nil
		}
		for dec.More() {
			if d == '{' {
				off := skip(data, dec.InputOffset())
				k, err := dec.Token()
				if err != nil {
					return 0, false, err
				}
				if k == key {
					return off, true, nil
				}
			}
			if off, found, err := walk(); found || err != nil {
				return off, found, err
			}
		}
		_, err = dec.Token()
		return 0, false, err
	}
	off, found, _ := walk()
	if !found {
		return Pos{}
	}
	return Offset(data, off)
}

// Duplicates returns a problem for every object member whose key already
// appeared in the same object (encoding/json would silently keep the last).
// A document that does not parse gives what was found before the error.
func Duplicates(data []byte) []Problem {
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []Problem
	var walk func(path string) error
	walk = func(path string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		seen := map[string]bool{}
		for i := 0; dec.More(); i++ {
			child := path + "[" + strconv.Itoa(i) + "]"
			if d == '{' {
				off := skip(data, dec.InputOffset())
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key, _ := k.(string)
				child = key
				if path != "" {
					child = path + "." + key
				}
				if seen[key] {
					out = append(out, Problem{Pos: Offset(data, off), Field: path, Msg: fmt.Sprintf("duplicate key %s (keep only one)", safetext.Quote(key))})
				}
				seen[key] = true
			}
			if err := walk(child); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	_ = walk("")
	return out
}
