package workspace

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/project"
)

// testState is a state of n files, some with names that are not UTF-8
// (written as pathBytes), some with the fields of older states left out.
func testState(n int) *pkgState {
	st := &pkgState{Rev: "c", Tree: "t", Hash: "h1:x", Audience: "team", StateHead: project.StateHead{Withheld: []string{"w.md"}}}
	for i := range n {
		f := fileState{Path: fmt.Sprintf("docs/part%d/page%03d.md", i%10, i), Blob: "b", Size: int64(i), Mode: 0o644, MTime: int64(7 * i), CTime: int64(i), Ino: uint64(i), Sum: "s", Rules: i%2 == 0}
		if i%97 == 0 {
			f.Path = fmt.Sprintf("caf\xe9-%d.md", i)
		}
		st.Files = append(st.Files, f)
	}
	return st
}

// readStateFile reads a state as json.Unmarshal into pkgState does
// (fileState's UnmarshalJSON, one file at a time), whatever the names.
func TestReadStateFileAsUnmarshal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, data := range [][]byte{
		mustMarshal(t, testState(300)),
		[]byte(`{"commit":"c","tree":"t","hash":"h1:x","files":[{"path":"a.md","blob":"b","size":3,"mode":420,"mtime":7}]}`),
		[]byte(`{"commit":"c","files":null}`),
		[]byte(`{"commit":"c","files":[null,{"pathBytes":"/w==","path":"ignored"}],"extra":1}`),
	} {
		p := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var want pkgState
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		got, err := readStateFile(p)
		if err != nil {
			t.Fatal(err)
		}
		got.at = 0
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("state %d read as\n%+v\nwant\n%+v", i, *got, want)
		}
	}
	p := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(p, []byte(`{"files":[{"path":1}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readStateFile(p); err == nil {
		t.Fatal("a state with a number for a path was read")
	}
}

func mustMarshal(t testing.TB, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// BenchmarkReadStateFile reads the state of a 500-file package.
func BenchmarkReadStateFile(b *testing.B) {
	p := filepath.Join(b.TempDir(), "s.json")
	if err := os.WriteFile(p, mustMarshal(b, testState(500)), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := readStateFile(p); err != nil {
			b.Fatal(err)
		}
	}
}

// encodeState writes what json.Marshal of the state writes, read back:
// with every name UTF-8 (its own encoding) and with some that are not
// (pathBytes), for states with and without files.
func TestEncodeStateAsMarshal(t *testing.T) {
	t.Parallel()
	utf := testState(300)
	utf.Files = slices.DeleteFunc(utf.Files, func(f fileState) bool { return !utf8.ValidString(f.Path) })
	for i, st := range []*pkgState{testState(300), utf, {Rev: "c", RulesNoted: true}, {Rev: "c", Files: []fileState{}}} {
		data, err := encodeState(st)
		if err != nil {
			t.Fatal(err)
		}
		var got, want pkgState
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatalf("state %d: %v\n%s", i, err, data)
		}
		if err := json.Unmarshal(mustMarshal(t, st), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("state %d encoded as\n%s\nwhich reads as\n%+v\nwant\n%+v", i, data, got, want)
		}
	}
}

// BenchmarkEncodeState encodes the state of a 500-file package (names
// UTF-8).
func BenchmarkEncodeState(b *testing.B) {
	st := testState(500)
	st.Files = slices.DeleteFunc(st.Files, func(f fileState) bool { return !utf8.ValidString(f.Path) })
	for b.Loop() {
		if _, err := encodeState(st); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalState is json.Marshal of the same state, fileState's
// MarshalJSON one file at a time (what encodeState replaces).
func BenchmarkMarshalState(b *testing.B) {
	st := testState(500)
	st.Files = slices.DeleteFunc(st.Files, func(f fileState) bool { return !utf8.ValidString(f.Path) })
	for b.Loop() {
		if _, err := json.Marshal(st); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStateWithheldFirst: both encodings write "withheld" as the state
// file's first key (null when nothing is withheld), so project's
// ReadStateHead reads it without the files' records, and reads what was
// written.
func TestStateWithheldFirst(t *testing.T) {
	dir := t.TempDir()
	for i, st := range []*pkgState{
		{Rev: "c", Hash: "h", StateHead: project.StateHead{Withheld: []string{"w.md", "x/y.md"}}, Files: []fileState{{Path: "a.md", Blob: "b"}}},
		{Rev: "c", Hash: "h", StateHead: project.StateHead{Withheld: []string{"w.md"}}, Files: []fileState{{Path: "bad\xff.md", Blob: "b"}}},
		{Rev: "c", Hash: "h"},
	} {
		data, err := encodeState(st)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), `{"withheld":`) || !strings.Contains(string(data), `],"commit":`) && !strings.HasPrefix(string(data), `{"withheld":null,"commit":`) {
			t.Fatalf("state %d: %.60s: withheld is not the first key, or commit the second", i, data)
		}
		p := filepath.Join(dir, fmt.Sprint(i, ".json"))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := project.ReadStateHead(p)
		if err != nil || !slices.Equal(h.Withheld, st.Withheld) || h.Commit != st.Rev {
			t.Fatalf("state %d: ReadStateHead = %v %q, %v; want %v %q", i, h.Withheld, h.Commit, err, st.Withheld, st.Rev)
		}
	}
}
