package jsonfile_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/jsonfile"
)

// allocated returns the bytes f allocates on the heap (runtime.MemStats'
// TotalAlloc: a count, not a time, so the same on a loaded machine).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// deepDoc is a file with one unknown member nested depth objects deep,
// each key keyLen bytes long.
func deepDoc(depth, keyLen int) []byte {
	key := `"` + strings.Repeat("k", keyLen) + `":`
	var b bytes.Buffer
	b.WriteString(`{"name":"r","x":`)
	for range depth {
		b.WriteString("{" + key)
	}
	b.WriteString("1")
	b.WriteString(strings.Repeat("}", depth))
	b.WriteString("}")
	return b.Bytes()
}

// TestRed19DeepNestingMemory: a file nested deep with long keys (here
// 2,000 levels of 200-byte keys, a 400 KB file) made Decode build the
// path of every member as a string, 2,000 × 1,000 / 2 × 200 bytes: about
// 400 MB for this file, and more than 4 GB for a 3.6 MB registry
// (9,000 levels of 400-byte keys), which `ctx setup --registry` reads
// from any server (red19 finding 1). What a walk allocates must grow with
// the file, not with the square of its depth.
func TestRed19DeepNestingMemory(t *testing.T) {
	data := deepDoc(2000, 200)
	var v struct {
		Name string `json:"name"`
	}
	for _, unknown := range []bool{false, true} {
		var err error
		got := allocated(func() {
			err = jsonfile.Decode("f.json", data, &v, jsonfile.Options{AllowUnknown: unknown})
		})
		if unknown != (err == nil) {
			t.Errorf("AllowUnknown %v: err = %v", unknown, err)
		}
		if limit := uint64(40 * len(data)); got > limit {
			t.Errorf("AllowUnknown %v: Decode of a %d-byte file allocated %d MB (over %d MB)", unknown, len(data), got>>20, limit>>20)
		}
	}
	got := allocated(func() { _ = jsonfile.UnknownFields(data, &v) })
	if limit := uint64(40 * len(data)); got > limit {
		t.Errorf("UnknownFields of a %d-byte file allocated %d MB (over %d MB)", len(data), got>>20, limit>>20)
	}
}

// manyMissing is a file of n entries that each lack both required fields.
func manyMissing(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"contexts":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("{}")
	}
	b.WriteString("]}")
	return b.Bytes()
}

type red19Reg struct {
	Contexts []struct {
		Name        string `json:"name" validate:"required"`
		Description string `json:"description" validate:"required"`
	} `json:"contexts" validate:"dive"`
}

// TestRed19ManyProblemsLinear: each problem's line:column was found by
// reading the file again from its start (Find), so a file of n bad
// entries cost n² tokens: a 9 KB registry of 3,000 `{}` took 2.7 s of CPU
// in `ctx setup`, a 43 KB lock of 4,000 35 s, and a registry may be 8 MB
// (red19 finding 2). Four times the entries must cost about four times
// the work, not sixteen; and the list printed is bounded.
func TestRed19ManyProblemsLinear(t *testing.T) {
	v := jsonfile.NewValidator()
	cost := func(n int) (uint64, error) {
		data := manyMissing(n)
		var err error
		got := allocated(func() {
			var r red19Reg
			err = jsonfile.Decode("r.json", data, &r, jsonfile.Options{Validator: v})
		})
		return got, err
	}
	small, _ := cost(500)
	big, err := cost(2000)
	if ratio := float64(big) / float64(small); ratio > 8 {
		t.Errorf("2,000 bad entries allocated %.1f× what 500 did (%d KB, %d KB): the work grows with the square of the problems", ratio, big>>10, small>>10)
	}
	if err == nil {
		t.Fatal("no error for 2,000 entries without their required fields")
	}
	if lines := strings.Count(err.Error(), "\n") + 1; lines > 110 {
		t.Errorf("the error has %d lines: a file's problems are listed up to a bound, then counted", lines)
	}
	if !strings.Contains(err.Error(), "r.json:1:14: contexts[0].name") {
		t.Errorf("the first problem is not first:\n%.300s", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("and %d more", 2*2000-jsonfile.MaxErrors)) {
		t.Errorf("the error does not count the problems left out:\n…%s", err.Error()[max(0, len(err.Error())-300):])
	}
}

// TestRed19PositionsOnePass: Positions finds many paths in one reading,
// each as it finds one alone (the longest existing prefix for a missing
// one); TestRed19PositionsAsOldFind compares it with the old Find.
func TestRed19PositionsOnePass(t *testing.T) {
	data := []byte("{\n \"a\": [\n  {\"b\": 1},\n  {\"c\": {\"d\": 2}}\n ],\n \"e\": \"x\"\n}")
	paths := [][]string{{"a", "0", "b"}, {"a", "1", "c", "d"}, {"e"}, {"a", "1", "zz"}, {"a", "7"}, {"q"}, {}}
	got := jsonfile.Positions(data, paths)
	for i, p := range paths {
		if want := jsonfile.Positions(data, [][]string{p})[0]; got[i] != want {
			t.Errorf("Positions of %q among others = %v, alone = %v", p, got[i], want)
		}
	}
}
