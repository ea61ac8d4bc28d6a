package jsonfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
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

// Positions returns, for each path (object keys and array indices as
// decimal strings), the position of the member at it; when the path does
// not exist in full, the position of its longest existing prefix (for a
// missing required field: the object that lacks it). A document that does
// not parse gives the zero Pos for a path none of which was found before
// the error. It reads data once whatever the number of paths (red19: the
// Find it replaces read a file once per problem, n² for n problems — 35
// s of CPU for a 43 KB lock). Its work grows
// with the document and the paths, not their product; the walk keeps one
// frame per level, never a copy of the path per member (a document
// 10,000 levels deep).
// With no path it returns nil at once: nothing to place, no reading.
func Positions(data []byte, paths [][]string) []Pos {
	if len(paths) == 0 {
		return nil
	}
	positionWalks.Add(1)
	data = TrimBOM(data) // as Decode reads it
	lines := newLineIndex(data)
	root := &pathNode{off: -1}
	for _, p := range paths {
		n := root
		for _, seg := range p {
			n = n.child(seg)
		}
	}
	ok := walkPositions(data, root)
	out := make([]Pos, len(paths))
	for i, p := range paths {
		n, off := root, int64(-1)
		for _, seg := range p {
			if n = n.children[seg]; n == nil || n.off < 0 {
				break
			}
			off = n.off
		}
		switch {
		case off >= 0:
			out[i] = lines.pos(off)
		case ok:
			out[i] = lines.pos(skip(data, 0))
		}
	}
	return out
}

// positionWalks counts Positions' readings of a file: the tests' seam
// (a count, steady on any Go version and GOARCH, where a bound on the
// bytes allocated was not).
var positionWalks atomic.Int64

// pathNode is one segment of the paths Positions looks for: the offset of
// the first member found at it (-1: not found), and the segments below.
type pathNode struct {
	off      int64
	children map[string]*pathNode
}

func (n *pathNode) child(seg string) *pathNode {
	if n.children == nil {
		n.children = map[string]*pathNode{}
	}
	c := n.children[seg]
	if c == nil {
		c = &pathNode{off: -1}
		n.children[seg] = c
	}
	return c
}

// walkPositions reads data once and sets the offset of each node of the
// tree under root at the first member found at its path. It reports
// whether the document read to its end.
func walkPositions(data []byte, root *pathNode) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		node  *pathNode // nil: no path looked for goes below
		array bool
		i     int
	}
	var stack []frame
	open := func(tok json.Token, node *pathNode) {
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, frame{node: node, array: d == '['})
		}
	}
	tok, err := dec.Token()
	if err != nil {
		return false
	}
	open(tok, root)
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if !dec.More() {
			if _, err := dec.Token(); err != nil { // the closing delimiter
				return false
			}
			stack = stack[:len(stack)-1]
			continue
		}
		off := skip(data, dec.InputOffset())
		var child *pathNode
		if top.array {
			if top.node != nil && top.node.children != nil {
				child = top.node.children[strconv.Itoa(top.i)]
			}
			top.i++
		} else {
			k, err := dec.Token()
			if err != nil {
				return false
			}
			if key, _ := k.(string); top.node != nil && top.node.children != nil {
				child = top.node.children[key]
			}
		}
		if child != nil && child.off < 0 {
			child.off = off
		}
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		open(tok, child)
	}
	return true
}

// lineIndex holds the offsets of a document's newlines, to turn byte
// offsets into positions without counting from the start each time.
type lineIndex struct {
	size int
	nl   []int
}

func newLineIndex(data []byte) *lineIndex {
	ix := &lineIndex{size: len(data)}
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		ix.nl = append(ix.nl, i+j)
		i += j + 1
	}
	return ix
}

// pos is what Offset returns for off, in log(lines) steps.
func (ix *lineIndex) pos(off int64) Pos {
	o := int(max(0, min(off, int64(ix.size))))
	line := sort.SearchInts(ix.nl, o) // the newlines before o
	start := 0
	if line > 0 {
		start = ix.nl[line-1] + 1
	}
	return Pos{Line: line + 1, Col: o - start + 1}
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
