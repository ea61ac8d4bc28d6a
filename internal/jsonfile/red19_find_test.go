package jsonfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestRed19PositionsAsOldFind compares Positions, on random documents
// (duplicate keys, arrays, nesting, missing paths), with the Find that
// read the document once per path (30723c0's, below as oldFind).
func TestRed19PositionsAsOldFind(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 19))
	keys := []string{"a", "b", "0", "1", "c.d"}
	var gen func(b *strings.Builder, depth int)
	gen = func(b *strings.Builder, depth int) {
		switch k := r.IntN(4); {
		case depth > 4 || k == 0:
			fmt.Fprintf(b, "%d", r.IntN(9))
		case k == 1:
			b.WriteString("[\n")
			for i := range r.IntN(4) {
				if i > 0 {
					b.WriteString(",\n ")
				}
				gen(b, depth+1)
			}
			b.WriteString("]")
		default:
			b.WriteString("{")
			for i := range r.IntN(4) {
				if i > 0 {
					b.WriteString(", \n")
				}
				fmt.Fprintf(b, "%q: ", keys[r.IntN(len(keys))])
				gen(b, depth+1)
			}
			b.WriteString("}")
		}
	}
	for range 400 {
		var b strings.Builder
		gen(&b, 0)
		data := []byte(b.String())
		var paths [][]string
		for range 1 + r.IntN(8) {
			var p []string
			for range r.IntN(5) {
				p = append(p, keys[r.IntN(len(keys))])
			}
			paths = append(paths, p)
		}
		got := Positions(data, paths)
		for i, p := range paths {
			if want := oldFind(data, p); got[i] != want {
				t.Fatalf("%s\npath %q: Positions %v, old Find %v", data, p, got[i], want)
			}
		}
	}
	// A document that does not parse: what was found before the error.
	bad := []byte(`{"a": {"b": 1}, "c": [}`)
	for _, p := range [][]string{{"a", "b"}, {"c"}, {"zz"}} {
		if got, want := Positions(bad, [][]string{p})[0], oldFind(bad, p); got != want {
			t.Errorf("broken document, path %q: Positions %v, old Find %v", p, got, want)
		}
	}
}

func oldFind(data []byte, path []string) Pos {
	dec := json.NewDecoder(bytes.NewReader(data))
	f := oldFinder{dec: dec, data: data, target: path, best: -1}
	start := skip(data, 0)
	if err := f.value(nil); err != nil && f.best < 0 {
		return Pos{}
	}
	if f.best < 0 {
		return Offset(data, start)
	}
	return Offset(data, f.bestOff)
}

type oldFinder struct {
	dec     *json.Decoder
	data    []byte
	target  []string
	best    int // length of the longest matched prefix
	bestOff int64
	done    bool
}

func (f *oldFinder) match(path []string, off int64) {
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

func (f *oldFinder) value(path []string) error {
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
