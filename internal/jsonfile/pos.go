package jsonfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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
