package indexer

import (
	"encoding/binary"
	"unsafe"
)

// uvReader reads the records of the index's own binary files (walks.bin:
// encodeWalks; versions.bin: encodeVersions): strings and counts as
// uvarints, signed numbers as varints. Any fault sets bad and every read
// after it returns zero, so a decoder reads a whole record and checks bad
// once. Its strings are slices of the buffer, not copies of it: the
// buffer must not change while they are used.
type uvReader struct {
	b   []byte // what is left to read
	all string // the buffer as given: the strings are slices of it
	bad bool
}

func newUVReader(b []byte) uvReader {
	return uvReader{b: b, all: unsafe.String(unsafe.SliceData(b), len(b))}
}

// uv reads an unsigned number.
func (r *uvReader) uv() uint64 {
	n, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[k:]
	return n
}

// num reads a signed number.
func (r *uvReader) num() int64 {
	n, k := binary.Varint(r.b)
	if k <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[k:]
	return n
}

// int reads an unsigned number that fits an int.
func (r *uvReader) int() int {
	n := r.uv()
	if n > uint64(int(^uint(0)>>1)) {
		r.bad = true
		return 0
	}
	return int(n)
}

// str reads a string.
func (r *uvReader) str() string {
	n := r.uv()
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return ""
	}
	off := len(r.all) - len(r.b)
	r.b = r.b[n:]
	return r.all[off : off+int(n)]
}

// count reads the number of the items that follow, each of at least size
// bytes: no more than the bytes left hold, so a damaged or planted file
// makes the decoder allocate nothing larger than what its bytes can
// describe.
func (r *uvReader) count(size int) int {
	n := r.uv()
	if r.bad || n > uint64(len(r.b)/size) {
		r.bad = true
		return 0
	}
	return int(n)
}

// done reports whether every byte was read with no fault.
func (r *uvReader) done() bool { return !r.bad && len(r.b) == 0 }
