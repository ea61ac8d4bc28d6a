package gitengine

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/internal/safetext"
)

// splitError is eachIndexName's error for a split index (a "link"
// extension: core.splitIndex): link is the extension's data. It is
// errSplitIndex (errors.Is).
type splitError struct{ link []byte }

func (e *splitError) Error() string { return errSplitIndex.Error() }
func (e *splitError) Unwrap() error { return errSplitIndex }

// unsplit returns the index data of the work tree whose git directory is
// gitDir as one index holding every name (left19; until then a split
// index was refused): data itself unless it is split (core.splitIndex,
// Documentation/gitformat-index.txt, "Split index"), else an index of the
// names of the shared index (sharedindex.<id>, in gitDir or the common
// directory) its delete bitmap keeps, and those the split index adds
// (its entries after the replaced ones; a replaced entry keeps its name),
// sorted. Only names are read (the rest of each entry is zero), which is
// all eachIndexName reads. readIndex calls it only when mayBeSplit; a
// split index whose shared index is gone is errSplitIndex's error, saying
// so.
func unsplit(gitDir string, data []byte, idLen int) ([]byte, error) {
	var split [][]byte
	err := eachIndexName(data, idLen, func(n []byte) bool {
		split = append(split, slices.Clone(n))
		return true
	})
	var se *splitError
	if !errors.As(err, &se) {
		return data, err
	}
	link := se.link
	if len(link) < idLen {
		return nil, fmt.Errorf("%w: a short link extension", errIndex)
	}
	name := "sharedindex." + hex.EncodeToString(link[:idLen])
	shared, err := readIndexFile(filepath.Join(gitDir, name))
	if errors.Is(err, fs.ErrNotExist) {
		if common, cerr := commonDir(gitDir); cerr == nil && common != gitDir {
			shared, err = readIndexFile(filepath.Join(common, name))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read the shared index of a split index (core.splitIndex): %w", safetext.ClipPathError(err))
	}
	var base [][]byte
	if err := eachIndexName(shared, idLen, func(n []byte) bool {
		base = append(base, slices.Clone(n))
		return true
	}); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	del, rest, err := ewahBits(link[idLen:], len(base))
	if err != nil {
		return nil, err
	}
	rep, _, err := ewahBits(rest, len(base))
	if err != nil {
		return nil, err
	}
	replaced := 0
	for _, b := range rep {
		if b {
			replaced++
		}
	}
	if replaced > len(split) {
		return nil, fmt.Errorf("%w: the split index replaces %d entries and holds %d", errIndex, replaced, len(split))
	}
	var names [][]byte
	for i, n := range base {
		if !del[i] {
			names = append(names, n)
		}
	}
	names = append(names, split[replaced:]...)
	slices.SortFunc(names, func(a, b []byte) int { return bytesCompare(a, b) })
	names = slices.CompactFunc(names, func(a, b []byte) bool { return bytesCompare(a, b) == 0 })
	return namesIndex(names, idLen), nil
}

// mayBeSplit reports whether gitDir holds a sharedindex.* file, so that
// its index may be split (unsplit reads it whole); when not, the index is
// streamed, and one that is split anyway is errSplitIndex (its shared
// index is gone). An index that is not split costs one listing of the
// folder. The folder is listed, not globbed: a glob reads gitDir's path
// as a pattern, and under a folder named "proj[1]" matched nothing
// (review21-start21).
func mayBeSplit(gitDir string) bool {
	d, err := os.Open(gitDir)
	if err != nil {
		return false
	}
	defer d.Close()
	for {
		names, err := d.Readdirnames(256)
		for _, n := range names {
			if strings.HasPrefix(n, "sharedindex.") {
				return true
			}
		}
		if err != nil {
			return false
		}
	}
}

func bytesCompare(a, b []byte) int { return slices.Compare(a, b) }

// namesIndex is an index (version 2) of names, every other field zero,
// and a zero checksum: what eachIndexName reads.
func namesIndex(names [][]byte, idLen int) []byte {
	b := make([]byte, 12, 12+len(names)*(48+idLen))
	copy(b, "DIRC")
	binary.BigEndian.PutUint32(b[4:], 2)
	binary.BigEndian.PutUint32(b[8:], uint32(len(names)))
	for _, n := range names {
		start := len(b)
		b = append(b, make([]byte, 40+idLen)...)
		b = binary.BigEndian.AppendUint16(b, uint16(min(len(n), 0x0fff)))
		b = append(b, n...)
		size := len(b) - start
		b = append(b, make([]byte, 8-size%8)...)
	}
	return append(b, make([]byte, idLen)...)
}

// ewahBits decodes one EWAH bitmap as git writes it (ewah/ewah_io.c: the
// bit count, the number of 64-bit words, the words, the position of the
// last run-length word; all big-endian) over size positions (the shared
// index's entries): bit i of the bitmap is bits[i], and a bit set at size
// or past it is an error, as in git (merge_base_index: "exceeds base index
// size"). Each run-length word holds a running bit (bit 0), a run length
// in words (bits 1–32) and the number of literal words that follow it
// (bits 33–63); the bit count is not checked against the words, since a
// run of zeros covers more bits than its words (ewah_set at 300 on an
// empty bitmap: two words), and not used: bits is sized by size, so a
// hostile count allocates nothing. rest is what follows the bitmap.
func ewahBits(b []byte, size int) (bits []bool, rest []byte, err error) {
	bad := func(why string) error {
		return fmt.Errorf("%w: a malformed bitmap in the split index's link extension (%s)", errIndex, why)
	}
	if len(b) < 8 {
		return nil, nil, bad("short")
	}
	words := binary.BigEndian.Uint32(b[4:8])
	if uint64(words)*8+12 > uint64(len(b)) {
		return nil, nil, bad("more words than the extension holds")
	}
	w := func(k uint32) uint64 { return binary.BigEndian.Uint64(b[8+8*k:]) }
	limit := uint64(size)
	bits = make([]bool, size)
	set := func(p uint64) error {
		if p >= limit {
			return bad(fmt.Sprintf("a bit at %d, past the shared index's %d entries", p, size))
		}
		bits[p] = true
		return nil
	}
	// pos stops at limit: past it any set bit is an error, and it cannot
	// wrap however long the runs.
	pos := uint64(0)
	for k := uint32(0); k < words; {
		rlw := w(k)
		k++
		run, lit := (rlw>>1)&0xffffffff, uint32(rlw>>33)
		end := min(pos+run*64, limit)
		if rlw&1 != 0 && run > 0 {
			if pos+run*64 > limit {
				return nil, nil, bad(fmt.Sprintf("a run of set bits past the shared index's %d entries", size))
			}
			for p := pos; p < end; p++ {
				bits[p] = true
			}
		}
		pos = end
		if lit > words-k {
			return nil, nil, bad("more literal words than the bitmap holds")
		}
		for ; lit > 0; lit-- {
			v := w(k)
			k++
			for c := uint64(0); c < 64; c++ {
				if v&(1<<c) != 0 {
					if err := set(pos + c); err != nil {
						return nil, nil, err
					}
				}
			}
			pos = min(pos+64, limit)
		}
	}
	return bits, b[8+8*int(words)+4:], nil
}
