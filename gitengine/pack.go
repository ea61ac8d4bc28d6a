package gitengine

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// writePack stores a complete (not thin) pack from r in st as a pack file
// with its index, holding no whole object in memory but the bases and
// results of deltas.
//
// go-git's own pack writer (packfile.UpdateObjectStorage) indexes a pack
// with packfile.Parser, which reads every object whole into memory once the
// pack is down, whatever its size (a 300 MB file took 341 MB of RAM over
// smart HTTP). Here the pack goes to a temp file first; then each object
// that is not a delta is inflated straight into its hasher, and only
// deltas are rebuilt in memory to learn their ids. The pack and its index
// are renamed into place (index first) only once the index is complete, so
// a failed or cut-short pack never reaches the cache. It returns the
// pack's checksum, which names it.
func writePack(st *filesystem.Storage, r io.Reader) (sum plumbing.Hash, err error) {
	dir := filepath.Join(st.Filesystem().Root(), "objects", "pack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return sum, err
	}
	f, err := os.CreateTemp(dir, "tmp_pack_")
	if err != nil {
		return sum, err
	}
	tmp := f.Name()
	defer func() {
		if f != nil {
			f.Close()
		}
		if err != nil {
			_ = os.Remove(tmp)
			_ = os.Remove(tmp + ".idx")
		}
	}()
	n, err := io.Copy(f, r)
	if err != nil {
		return sum, err
	}
	if n == 0 {
		return sum, packfile.ErrEmptyPackfile
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return sum, err
	}
	var idx *idxfile.MemoryIndex
	idx, sum, err = indexPack(f)
	if err != nil {
		return sum, err
	}
	if err := f.Close(); err != nil {
		f = nil
		return sum, err
	}
	f = nil
	base := filepath.Join(dir, "pack-"+sum.String())
	if err := writeIdx(tmp+".idx", idx); err != nil {
		return sum, err
	}
	if err := os.Rename(tmp+".idx", base+".idx"); err != nil {
		return sum, err
	}
	if _, err := os.Stat(base + ".pack"); err == nil {
		// The same pack is already there (pack files are named by content).
		_ = os.Remove(tmp)
	} else if err := os.Rename(tmp, base+".pack"); err != nil {
		return sum, err
	}
	// The storage lists its packs once; make it see the new one.
	st.Reindex()
	return sum, nil
}

func writeIdx(p string, idx *idxfile.MemoryIndex) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	// Buffered: the encoder writes field by field (about 300 writes for
	// a pack of 50 objects).
	w := bufio.NewWriterSize(f, 64<<10)
	if _, err := idxfile.NewEncoder(w).Encode(idx); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// packObject is one object of a pack being indexed.
type packObject struct {
	offset int64
	typ    plumbing.ObjectType // the object's type; a delta's once resolved
	delta  bool
	base   int64         // an OFS delta's base offset
	ref    plumbing.Hash // a REF delta's base id
	crc    uint32
	id     plumbing.Hash // zero until known
}

// indexPack reads the pack in f (checking its checksum) and returns its
// index and checksum. Objects that are not deltas are hashed as they are
// inflated; deltas are resolved from their base, base first, holding one
// chain of contents in memory at a time. A REF delta must find its base in
// the same pack (thin packs are not indexed here).
func indexPack(f io.ReadSeeker) (*idxfile.MemoryIndex, plumbing.Hash, error) {
	s := packfile.NewScanner(f)
	_, count, err := s.Header()
	if err != nil {
		return nil, plumbing.ZeroHash, malformed(err)
	}
	objs := make([]packObject, 0, min(count, 1<<16))
	byOffset := make(map[int64]int, min(count, 1<<16))
	for i := uint32(0); i < count; i++ {
		oh, err := s.NextObjectHeader()
		if err != nil {
			return nil, plumbing.ZeroHash, malformed(err)
		}
		o := packObject{offset: oh.Offset, typ: oh.Type}
		var w io.Writer = io.Discard
		var h plumbing.Hasher
		switch oh.Type {
		case plumbing.OFSDeltaObject:
			o.delta, o.base = true, oh.OffsetReference
		case plumbing.REFDeltaObject:
			o.delta, o.ref = true, oh.Reference
		case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
			h = plumbing.NewHasher(oh.Type, oh.Length)
			w = h
		default:
			return nil, plumbing.ZeroHash, fmt.Errorf("%w: object at offset %d has type %d", packfile.ErrMalformedPackFile, oh.Offset, oh.Type)
		}
		_, crc, err := s.NextObject(w)
		if err != nil {
			return nil, plumbing.ZeroHash, malformed(err)
		}
		o.crc = crc
		if !o.delta {
			o.id = h.Sum()
		}
		byOffset[o.offset] = len(objs)
		objs = append(objs, o)
	}
	sum, err := s.Checksum()
	if err != nil {
		return nil, plumbing.ZeroHash, malformed(err)
	}
	if err := resolvePackDeltas(s, objs, byOffset); err != nil {
		return nil, plumbing.ZeroHash, err
	}
	w := new(idxfile.Writer)
	if err := w.OnHeader(count); err != nil {
		return nil, plumbing.ZeroHash, err
	}
	for _, o := range objs {
		if err := w.OnInflatedObjectContent(o.id, o.offset, o.crc, nil); err != nil {
			return nil, plumbing.ZeroHash, err
		}
	}
	if err := w.OnFooter(sum); err != nil {
		return nil, plumbing.ZeroHash, err
	}
	idx, err := w.Index()
	return idx, sum, err
}

// resolvePackDeltas gives every delta in objs its type and id: from each
// object whose id is known, its deltas are rebuilt (depth first, so only
// one chain of contents is in memory), which makes their ids known in turn.
func resolvePackDeltas(s *packfile.Scanner, objs []packObject, byOffset map[int64]int) error {
	ofsKids := map[int64][]int{}
	refKids := map[plumbing.Hash][]int{}
	pending := 0
	for i, o := range objs {
		switch {
		case !o.delta:
		case o.ref != plumbing.ZeroHash:
			refKids[o.ref] = append(refKids[o.ref], i)
			pending++
		default:
			if _, ok := byOffset[o.base]; !ok {
				return fmt.Errorf("%w: delta at offset %d names no object as its base", packfile.ErrMalformedPackFile, o.offset)
			}
			ofsKids[o.base] = append(ofsKids[o.base], i)
			pending++
		}
	}
	if pending == 0 {
		return nil
	}
	kids := func(i int) []int {
		return append(append([]int(nil), ofsKids[objs[i].offset]...), refKids[objs[i].id]...)
	}
	var resolve func(i int, content []byte, depth int) error
	resolve = func(i int, content []byte, depth int) error {
		if depth > maxDeltaDepth {
			return fmt.Errorf("%w: delta chain deeper than %d", packfile.ErrMalformedPackFile, maxDeltaDepth)
		}
		for _, k := range kids(i) {
			if objs[k].id != plumbing.ZeroHash {
				continue // a REF delta whose id an earlier pass found
			}
			var delta bytes.Buffer
			if _, err := s.SeekObjectHeader(objs[k].offset); err != nil {
				return err
			}
			if _, _, err := s.NextObject(&delta); err != nil {
				return malformed(err)
			}
			out, err := packfile.PatchDelta(content, delta.Bytes())
			if err != nil {
				return fmt.Errorf("delta at offset %d: %w", objs[k].offset, err)
			}
			objs[k].typ = objs[i].typ
			objs[k].id = plumbing.ComputeHash(objs[k].typ, out)
			pending--
			if err := resolve(k, out, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range objs {
		if objs[i].delta || len(kids(i)) == 0 {
			continue
		}
		content, err := readPackObject(s, objs[i].offset)
		if err != nil {
			return err
		}
		if err := resolve(i, content, 0); err != nil {
			return err
		}
	}
	if pending > 0 {
		for _, o := range objs {
			if o.delta && o.id == plumbing.ZeroHash {
				return fmt.Errorf("delta at offset %d: %w (base %s)", o.offset, packfile.ErrReferenceDeltaNotFound, o.ref)
			}
		}
	}
	return nil
}

// maxDeltaDepth is git's own ceiling on a delta chain (pack-objects).
const maxDeltaDepth = 4095

// readPackObject inflates the (non-delta) object at offset into memory.
func readPackObject(s *packfile.Scanner, offset int64) ([]byte, error) {
	if _, err := s.SeekObjectHeader(offset); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, _, err := s.NextObject(&b); err != nil {
		return nil, malformed(err)
	}
	return b.Bytes(), nil
}

func malformed(err error) error {
	if errors.Is(err, packfile.ErrMalformedPackFile) {
		return err
	}
	return fmt.Errorf("%w: %w", packfile.ErrMalformedPackFile, err)
}
