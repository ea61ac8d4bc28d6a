// Package varintbuf reads the index records' binary files (walks.bin:
// indexer/walkrec; versions.bin: indexer's versionsrec.go), which a
// repository or a planted .context/index/ may hold: untrusted. It owns the
// rule both decoders share: uvarints, zigzag varints and length-prefixed
// strings read from a byte slice, a count of items no larger than the
// bytes left can describe (so a corrupt file allocates nothing larger than
// its bytes), and a sticky fault. It imports only encoding/binary and
// unsafe, so the early walk (indexer/prewalk) may use it.
package varintbuf

import (
	"encoding/binary"
	"unsafe"
)

// Reader reads b from its start. Its strings are b's bytes, not a copy
// of them, so b must not change while they are used. A fault is sticky:
// Bad reports it from then on, String and Count return "" and 0, and what
// Uvarint and Varint read after it means nothing (the caller drops the
// record once Bad says so).
//
// Uvarint, String and Count read a one-byte length or number (most of the
// records': lengths, counts, flags) inline (short, within Go's inlining
// budget) and call out only for a longer one: the closures this replaces
// were inlined, and an earlier shared type whose methods called
// binary.Uvarint was a quarter more CPU to decode (bench/README, dup23).
type Reader struct {
	s   string // the input, the strings' backing store
	i   int    // the next byte to read
	bad bool
}

// New returns a Reader of b.
func New(b []byte) Reader {
	return Reader{s: unsafe.String(unsafe.SliceData(b), len(b))}
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	if n, ok := r.short(); ok {
		return n
	}
	return r.uvarintLong()
}

// short reads a one-byte uvarint, if the next is one (inlined in Uvarint,
// String and Count, which call out only for a longer one).
func (r *Reader) short() (uint64, bool) {
	if i := r.i; i < len(r.s) && r.s[i] < 0x80 {
		r.i = i + 1
		return uint64(r.s[i]), true
	}
	return 0, false
}

func (r *Reader) uvarintLong() uint64 {
	n, k := binary.Uvarint(unsafe.Slice(unsafe.StringData(r.s[r.i:]), len(r.s)-r.i))
	if k <= 0 {
		r.bad = true
		return 0
	}
	r.i += k
	return n
}

// Varint reads a zigzag-encoded signed varint (binary.AppendVarint's).
func (r *Reader) Varint() int64 {
	u := r.Uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// String reads a uvarint length and that many bytes: a slice of the
// input, not a copy.
func (r *Reader) String() string {
	n, ok := r.short()
	if !ok {
		n = r.uvarintLong()
	}
	if r.bad || n > uint64(len(r.s)-r.i) {
		r.bad = true
		return ""
	}
	i := r.i
	r.i += int(n)
	return r.s[i:r.i]
}

// Count reads the number of the items that follow, each of at least size
// bytes as encoded (size > 0): no more than the bytes left hold, else a
// fault and 0.
func (r *Reader) Count(size int) int {
	n, ok := r.short()
	if !ok {
		n = r.uvarintLong()
	}
	if r.bad || n > uint64((len(r.s)-r.i)/size) {
		r.bad = true
		return 0
	}
	return int(n)
}

// Fail marks a fault the caller found (a value out of its range): Bad
// reports it from now on.
func (r *Reader) Fail() { r.bad = true }

// Bad reports whether any read so far failed, or Fail was called.
func (r *Reader) Bad() bool { return r.bad }

// Len is the number of bytes not read yet.
func (r *Reader) Len() int { return len(r.s) - r.i }
