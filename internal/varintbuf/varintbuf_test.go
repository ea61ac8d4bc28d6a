package varintbuf

import (
	"encoding/binary"
	"math"
	"testing"
	"unsafe"
)

// reference reads b as the indexer's decoders did before this package
// owned the rule: encoding/binary's readers, and a fault when one fails.
type reference struct {
	b   []byte
	bad bool
}

// read reads one value with f (binary.Uvarint or binary.Varint).
func read[T uint64 | int64](r *reference, f func([]byte) (T, int)) T {
	n, k := f(r.b)
	if k <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[k:]
	return n
}

// TestReaderValues: every value AppendUvarint and AppendVarint write, one
// byte or ten, reads back; one cut short or too long is a fault.
func TestReaderValues(t *testing.T) {
	us := []uint64{0, 1, 0x7f, 0x80, 0x3fff, 0x4000, 1 << 35, math.MaxInt64, math.MaxUint64}
	vs := []int64{0, -1, 1, -64, 63, -65, 64, math.MinInt64, math.MaxInt64}
	var b []byte
	for _, u := range us {
		b = binary.AppendUvarint(b, u)
	}
	for _, v := range vs {
		b = binary.AppendVarint(b, v)
	}
	r := New(b)
	for _, u := range us {
		if got := r.Uvarint(); got != u {
			t.Errorf("Uvarint %d, want %d", got, u)
		}
	}
	for _, v := range vs {
		if got := r.Varint(); got != v {
			t.Errorf("Varint %d, want %d", got, v)
		}
	}
	if r.Bad() || r.Len() != 0 {
		t.Fatalf("Bad %v, Len %d", r.Bad(), r.Len())
	}
	for _, in := range [][]byte{nil, {0x80}, {0xff, 0xff}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}} {
		if r := New(in); r.Uvarint() != 0 || !r.Bad() {
			t.Errorf("Uvarint of % x: no fault", in)
		}
		if r := New(in); r.Varint() != 0 || !r.Bad() {
			t.Errorf("Varint of % x: no fault", in)
		}
	}
}

// TestReaderStringsAndCounts: a string is the input's bytes, not a copy;
// a length or a count larger than the bytes left can hold is a fault, and
// the fault is sticky.
func TestReaderStringsAndCounts(t *testing.T) {
	b := append(binary.AppendUvarint(nil, 3), "abcd"...)
	r := New(b)
	s := r.String()
	if s != "abc" || unsafe.StringData(s) != &b[1] {
		t.Fatalf("String %q, not a slice of the input", s)
	}
	if r.Len() != 1 || r.Bad() {
		t.Fatalf("Len %d, Bad %v", r.Len(), r.Bad())
	}
	if r := New([]byte{5, 'a', 'b'}); r.String() != "" || !r.Bad() {
		t.Error("a string longer than the input was read")
	}
	if r := New([]byte{2, 0, 0, 0, 0}); r.Count(2) != 2 || r.Bad() {
		t.Error("two items of two bytes in four not counted")
	}
	r = New([]byte{3, 0, 0, 0, 0})
	if r.Count(2) != 0 || !r.Bad() {
		t.Error("three items of two bytes in four counted")
	}
	r.Uvarint()
	if r.String() != "" || r.Count(1) != 0 || !r.Bad() {
		t.Error("a read after a fault was not a fault")
	}
	r = New([]byte{1, 0})
	r.Fail()
	if !r.Bad() {
		t.Error("Fail did not stick")
	}
}

// FuzzReader: on any input, Uvarint and Varint read what encoding/binary
// reads, and fault where it does.
func FuzzReader(f *testing.F) {
	f.Add([]byte{0x80, 0x01, 0x7f, 0xff}, []byte{0, 1, 0})
	f.Fuzz(func(t *testing.T, b, ops []byte) {
		r, ref := New(b), reference{b: b}
		for _, op := range ops {
			if op&1 == 0 {
				if got, want := r.Uvarint(), read(&ref, binary.Uvarint); got != want && !ref.bad {
					t.Fatalf("Uvarint %d, want %d", got, want)
				}
			} else if got, want := r.Varint(), read(&ref, binary.Varint); got != want && !ref.bad {
				t.Fatalf("Varint %d, want %d", got, want)
			}
			if r.Bad() != ref.bad {
				t.Fatalf("Bad %v, want %v", r.Bad(), ref.bad)
			}
			if ref.bad {
				return
			}
			if r.Len() != len(ref.b) {
				t.Fatalf("Len %d, want %d", r.Len(), len(ref.b))
			}
		}
	})
}
