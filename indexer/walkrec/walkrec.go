// Package walkrec is the format of the freshness check's walk record
// (index/walks.bin; what it means and when it holds: the indexer's
// walkrecord.go): the records, and the file's bytes. It imports nothing
// heavier than fileid and varintbuf, so that the early walk (indexer/prewalk), which
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

	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/internal/varintbuf"
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
	r := varintbuf.New(b) // the paths are slices of b
	// The least bytes of each item as encoded (a string's length, a
	// number: one byte each), for r.Count (a Seen is 56 bytes in memory).
	const pkgSize, seenSize, docSize = 7, 6, 1
	recs := map[string]Rec{}
	for range r.Count(pkgSize) {
		rec := Rec{Alias: r.String(), Key: r.String(), Stamp: r.String(), At: r.Varint()}
		rec.Seen = make([]Seen, r.Count(seenSize))
		for i := range rec.Seen {
			s := Seen{Path: r.String()}
			flags := r.Varint()
			s.Above, s.Absent = flags&1 != 0, flags&2 != 0
			s.St = fileid.Stamp{Size: r.Varint(), MTime: r.Varint(), CTime: r.Varint(), Ino: r.Uvarint()}
			rec.Seen[i] = s
		}
		rec.Docs = make([]string, r.Count(docSize))
		for i := range rec.Docs {
			rec.Docs[i] = r.String()
		}
		held := r.Varint()
		if held < 0 || held > int64(len(b)) { // a count, no larger than the file: a corrupt one is no record
			r.Fail()
		}
		rec.Held = int(held)
		for _, p := range rec.Docs {
			if !fs.ValidPath(p) || p == "." {
				r.Fail()
			}
		}
		for _, s := range rec.Seen {
			if !fs.ValidPath(s.Path) {
				r.Fail()
			}
		}
		if r.Bad() {
			return nil, ErrRecord
		}
		recs[rec.Alias] = rec
	}
	if r.Bad() || r.Len() != 0 {
		return nil, ErrRecord
	}
	return recs, nil
}
