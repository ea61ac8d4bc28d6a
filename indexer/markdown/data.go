package markdown

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
	"go.yaml.in/yaml/v3"
)

// Data files (YAML, JSON, TOML) are read with maintained parsers that give
// positions: go.yaml.in/yaml/v3's nodes, encoding/json's decoder offsets,
// go-toml's unstable (syntax) parser. yaml.v2 and go-toml's decoder, which
// decode front matter, do not say where a key is. The parsers run on the
// normalised lines joined with "\n", so their lines are Lines' lines.

// scanData returns the structure of a data file: its lines are Text or
// Blank, and each top-level key is a level-1 heading (see ParseFile). A
// file that does not parse has no headings and an error with its line.
func scanData(f Format, lines []string) (b Body, err error) {
	b = scanText(lines)
	for i, k := range b.Kinds {
		if k != Blank {
			b.Kinds[i] = Text
		}
	}
	text := strings.Join(lines, "\n")
	var keys []dataKey
	func() {
		// The parsers are maintained, but a repository is untrusted: a
		// panic in one is a file that does not parse, not a crash.
		defer func() {
			if r := recover(); r != nil {
				keys, err = nil, fmt.Errorf("line 1: invalid %s: the parser failed: %v", formatName(f), r)
			}
		}()
		switch f {
		case FormatYAML:
			keys, err = yamlKeys(text)
		case FormatJSON:
			keys, err = jsonKeys(text)
		case FormatTOML:
			keys, err = tomlKeys(text)
		}
	}()
	if err != nil {
		return b, err
	}
	for _, k := range keys {
		if k.line < 0 || k.line >= len(lines) {
			continue
		}
		b.Headings = append(b.Headings, Heading{Level: 1, Text: keyText(k.name), Line: k.line})
	}
	// The parsers give keys in file order; a heading per line at most.
	sort.SliceStable(b.Headings, func(i, j int) bool { return b.Headings[i].Line < b.Headings[j].Line })
	out := b.Headings[:0]
	for i, h := range b.Headings {
		if i == 0 || h.Line != b.Headings[i-1].Line {
			out = append(out, h)
		}
	}
	b.Headings = out
	return b, nil
}

// dataKey is a top-level key and its 0-based line.
type dataKey struct {
	name string
	line int
}

// keyText is a key as a heading: one line, white space collapsed, at most
// MaxHeadingBytes.
func keyText(k string) string {
	return Clip(strings.Join(strings.Fields(k), " "), MaxHeadingBytes)
}

func formatName(f Format) string {
	switch f {
	case FormatYAML:
		return "YAML"
	case FormatJSON:
		return "JSON"
	case FormatTOML:
		return "TOML"
	}
	return string(f)
}

// lineOf returns the 0-based line of byte offset off in text.
type lineIndex []int // the offset of each line's first byte

func newLineIndex(text string) lineIndex {
	idx := lineIndex{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (idx lineIndex) line(off int) int {
	return sort.SearchInts(idx, off+1) - 1
}

var yamlErrLineRE = lazyre.New(`^(?:yaml: )?line (\d+): `)

// yamlKeys returns the top-level keys of every document of a YAML stream.
func yamlKeys(text string) ([]dataKey, error) {
	var keys []dataKey
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if err == io.EOF {
			return keys, nil
		}
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), "yaml: ")
			line := 1
			if m := yamlErrLineRE().FindStringSubmatch(err.Error()); m != nil {
				line, _ = strconv.Atoi(m[1])
				msg = strings.TrimPrefix(err.Error(), m[0])
			}
			return nil, fmt.Errorf("line %d: invalid YAML: %s", line, msg)
		}
		root := &n
		if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
			root = root.Content[0]
		}
		if root.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(root.Content); i += 2 {
			k := root.Content[i]
			if k.Kind == yaml.ScalarNode {
				keys = append(keys, dataKey{k.Value, k.Line - 1})
			}
		}
	}
}

// jsonKeys returns the keys of a top-level JSON object; none for another
// top-level value.
func jsonKeys(text string) ([]dataKey, error) {
	if !json.Valid([]byte(text)) {
		var v any
		err := json.Unmarshal([]byte(text), &v)
		line := 1
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line = newLineIndex(text).line(int(min(se.Offset, int64(len(text))))-1) + 1
		}
		if err == nil {
			err = errors.New("not valid JSON")
		}
		return nil, fmt.Errorf("line %d: invalid JSON: %v", max(line, 1), err)
	}
	dec := json.NewDecoder(strings.NewReader(text))
	t, err := dec.Token()
	if err != nil || t != json.Delim('{') {
		return nil, nil // an array or a scalar: no keys
	}
	idx := newLineIndex(text)
	var keys []dataKey
	for dec.More() {
		off := int(dec.InputOffset())
		t, err := dec.Token()
		if err != nil {
			return nil, nil // json.Valid said yes: cannot happen
		}
		name, _ := t.(string)
		if q := strings.IndexByte(text[off:], '"'); q >= 0 {
			off += q
		}
		keys = append(keys, dataKey{name, idx.line(off)})
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, nil
		}
	}
	return keys, nil
}

// tomlKeys returns the keys before the first table and every table and
// array-of-tables header, by go-toml's syntax parser (which does not check
// that a key is defined once: the structure is all ctx needs).
func tomlKeys(text string) ([]dataKey, error) {
	var p unstable.Parser
	data := []byte(text)
	p.Reset(data)
	idx := newLineIndex(text)
	var keys []dataKey
	inTable := false
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			inTable = true
		case unstable.KeyValue:
			if inTable {
				continue
			}
		default:
			continue
		}
		var parts []string
		line := -1
		it := e.Key()
		for it.Next() {
			k := it.Node()
			if line < 0 {
				line = idx.line(int(k.Raw.Offset))
			}
			parts = append(parts, string(k.Data))
		}
		if line >= 0 {
			keys = append(keys, dataKey{strings.Join(parts, "."), line})
		}
	}
	if err := p.Error(); err != nil {
		line := 1
		var pe *unstable.ParserError
		if errors.As(err, &pe) && len(pe.Highlight) > 0 {
			line = p.Shape(p.Range(pe.Highlight)).Start.Line
			err = errors.New(pe.Message)
		}
		return nil, fmt.Errorf("line %d: invalid TOML: %v", line, err)
	}
	return keys, nil
}

// Data is a data file parsed for lookups (Doc.Data, Data.Value).
type Data struct {
	format Format
	yaml   *yaml.Node                 // the first document's root
	json   map[string]json.RawMessage // the top-level object
	toml   map[string]any
}

// Data parses a data file for Value: nil when d is not a data file, does
// not parse (Doc.Err), or its top level is not a mapping. Only lookups
// decode values: yaml.v3 checks a mapping's keys for duplicates pair by
// pair, so decoding a whole 2 MB mapping into Go values can take minutes.
func (d Doc) Data() (x *Data) {
	if !d.Format.IsData() || d.Err != nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			x = nil // as in scanData: a parser's panic is a file that does not parse
		}
	}()
	text := []byte(strings.Join(d.Lines, "\n"))
	x = &Data{format: d.Format}
	switch d.Format {
	case FormatYAML:
		var n yaml.Node
		if yaml.NewDecoder(bytes.NewReader(text)).Decode(&n) != nil || len(n.Content) == 0 {
			return nil
		}
		x.yaml = n.Content[0]
	case FormatJSON:
		if json.Unmarshal(text, &x.json) != nil {
			return nil // an array or a scalar
		}
	case FormatTOML:
		if toml.Unmarshal(text, &x.toml) != nil {
			return nil
		}
	}
	return x
}

// Value returns the scalar at path: path[0] is a top-level key (of the
// first document of a YAML stream), the rest are keys of the mappings
// inside it ("info", "title"). It is what the format's parser gives for a
// scalar: a string, bool, number or TOML date; nil when x is nil, a key is
// missing, or the value is a list or a mapping.
func (x *Data) Value(path ...string) (v any) {
	if x == nil || len(path) == 0 {
		return nil
	}
	defer func() {
		if recover() != nil {
			v = nil
		}
	}()
	switch x.format {
	case FormatYAML:
		node := x.yaml
		for _, k := range path {
			if node = yamlValue(node, k); node == nil {
				return nil
			}
		}
		if node.Kind == yaml.AliasNode {
			node = node.Alias
		}
		if node == nil || node.Kind != yaml.ScalarNode || node.Decode(&v) != nil {
			return nil
		}
	case FormatJSON:
		raw := x.json[path[0]]
		for _, k := range path[1:] {
			var m map[string]json.RawMessage
			if json.Unmarshal(raw, &m) != nil {
				return nil
			}
			raw = m[k]
		}
		if raw == nil || json.Unmarshal(raw, &v) != nil {
			return nil
		}
	case FormatTOML:
		v = x.toml
		for _, k := range path {
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		}
	}
	switch v.(type) {
	case []any, map[string]any:
		return nil
	}
	return v
}

// yamlValue returns the value of key k in the mapping n (through an
// alias), or nil.
func yamlValue(n *yaml.Node, k string) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if key := n.Content[i]; key.Kind == yaml.ScalarNode && key.Value == k {
			return n.Content[i+1]
		}
	}
	return nil
}
