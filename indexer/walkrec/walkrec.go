// Package walkrec is the format of the freshness check's walk record
// (index/walks.bin; what it means and when it holds: the indexer's
// walkrecord.go): the records, and the file's bytes. It imports nothing
// heavier than fileid, so that the early walk (indexer/prewalk), which
// starts while the process's packages are still being initialised, reads
// the record the indexer writes, in one codec.
package walkrec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"unsafe"

	"github.com/ctx-dev/ctx/internal/fileid"
)

// Magic opens the file; the line after it (the header's second) is the
// indexer's version of what a walk finds (its schema and the document
// extensions): Encode's and Decode's header is both lines.
const Magic = "ctx-walks 2\n"

// Seen is one folder or .gitignore a recorded walk read: its path
// (slash-separated, in the package folder, or in the project for a
// .gitignore above it: Above), and its stamp (Absent: no such file).
type Seen struct {
	Path   string
	Above  bool
	Absent bool
	St     fileid.Stamp
}

// Rec is one package's recorded walk.
type Rec struct {
	Alias string
	Key   string // the package's folder, then the walk's options, \x00-separated (KeyDir)
	Stamp string // the catalogue part's stamp the walk matched
	At    int64  // unix nanoseconds: a stamp proves nothing unless its ctime is before this
	Seen  []Seen
	Docs  []string // the documents found, sorted
	Held  int      // documents the walk held back
}

// KeyDir is the package folder of a record's Key: its first field.
func KeyDir(key string) string {
	dir, _, _ := strings.Cut(key, "\x00")
	return dir
}

// ErrRecord is a walk record that cannot be read: ignored.
var ErrRecord = errors.New("indexer: walk record unreadable")

// Encode writes header (Magic and the version line after it) and the
// records, sorted by alias.
func Encode(header string, recs map[string]Rec) []byte {
	aliases := slices.Sorted(maps.Keys(recs))
	b := []byte(header)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	num := func(n int64) { b = binary.AppendVarint(b, n) }
	b = binary.AppendUvarint(b, uint64(len(aliases)))
	for _, a := range aliases {
		r := recs[a]
		str(r.Alias)
		str(r.Key)
		str(r.Stamp)
		num(r.At)
		b = binary.AppendUvarint(b, uint64(len(r.Seen)))
		for _, s := range r.Seen {
			str(s.Path)
			flags := int64(0)
			if s.Above {
				flags |= 1
			}
			if s.Absent {
				flags |= 2
			}
			num(flags)
			num(s.St.Size)
			num(s.St.MTime)
			num(s.St.CTime)
			b = binary.AppendUvarint(b, s.St.Ino)
		}
		b = binary.AppendUvarint(b, uint64(len(r.Docs)))
		for _, d := range r.Docs {
			str(d)
		}
		num(int64(r.Held))
	}
	return b
}

// Decode reads what Encode wrote: the header (Magic and the line after
// it, which the caller compares with its own) and the records; any fault,
// a path that is not a clean relative one (fs.ValidPath) included, is
// ErrRecord. The records' strings are b's bytes, not a copy of them (a
// search's second largest allocation was that copy: 200 KB on the shared
// corpus, ~40 page faults), so b must not change while the records are
// used.
func Decode(b []byte) (string, map[string]Rec, error) {
	if !bytes.HasPrefix(b, []byte(Magic)) {
		return "", nil, ErrRecord
	}
	end := bytes.IndexByte(b[len(Magic):], '\n')
	if end < 0 {
		return "", nil, ErrRecord
	}
	header := string(b[:len(Magic)+end+1])
	recs, err := decodeRecs(b[len(header):])
	return header, recs, err
}

func decodeRecs(b []byte) (map[string]Rec, error) {
	all := unsafe.String(unsafe.SliceData(b), len(b)) // the paths are slices of it
	bad := false
	uv := func() uint64 {
		n, k := binary.Uvarint(b)
		if k <= 0 {
			bad = true
			return 0
		}
		b = b[k:]
		return n
	}
	num := func() int64 {
		n, k := binary.Varint(b)
		if k <= 0 {
			bad = true
			return 0
		}
		b = b[k:]
		return n
	}
	str := func() string {
		n := uv()
		if bad || n > uint64(len(b)) {
			bad = true
			return ""
		}
		off := len(all) - len(b)
		b = b[n:]
		return all[off : off+int(n)]
	}
	// count reads the number of the items that follow, each of at least
	// size bytes (a string's length, a number: one byte each): no more
	// than the bytes left hold, so a corrupt file allocates nothing larger
	// than its bytes can describe (a Seen is 56 bytes).
	count := func(size int) int {
		n := uv()
		if n > uint64(len(b)/size) {
			bad = true
			return 0
		}
		return int(n)
	}
	const pkgSize, seenSize, docSize = 7, 6, 1
	recs := map[string]Rec{}
	for range count(pkgSize) {
		r := Rec{Alias: str(), Key: str(), Stamp: str(), At: num()}
		r.Seen = make([]Seen, count(seenSize))
		for i := range r.Seen {
			s := Seen{Path: str()}
			flags := num()
			s.Above, s.Absent = flags&1 != 0, flags&2 != 0
			s.St = fileid.Stamp{Size: num(), MTime: num(), CTime: num(), Ino: uv()}
			r.Seen[i] = s
		}
		r.Docs = make([]string, count(docSize))
		for i := range r.Docs {
			r.Docs[i] = str()
		}
		held := num()
		bad = bad || held < 0 || held > int64(len(all)) // a count, no larger than the file: a corrupt one is no record
		r.Held = int(held)
		for _, p := range r.Docs {
			bad = bad || !fs.ValidPath(p) || p == "."
		}
		for _, s := range r.Seen {
			bad = bad || !fs.ValidPath(s.Path)
		}
		if bad {
			return nil, ErrRecord
		}
		recs[r.Alias] = r
	}
	if bad || len(b) != 0 {
		return nil, ErrRecord
	}
	return recs, nil
}
