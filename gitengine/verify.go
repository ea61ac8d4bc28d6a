package gitengine

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/internal/boundedfile"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// The cache is shared (CTX_CACHE may be a folder several users or projects
// write), so what a remote's store holds is not trusted by its id: an
// object read from it is checked against its id, as git checks what it
// receives (transfer.fsckObjects) and as objects are named in the first
// place. A store ctx wrote itself always passes: ctx indexes every pack it
// fetches by the hashes of what it inflated (pack.go). (red20: a writer of
// the cache planted objects under the ids of a commit, and ctx installed
// them, and locked them, as that commit's files.)

// verified reads the objects of the cache's store st (in dir) through
// checks: commits, trees and tags are read whole and hashed before they
// are returned; a blob's reader hashes what it reads and fails at its end
// when the content is not the blob's. An object the store's index lists
// but cannot read (a pack cut short) is reported as damaged, not as
// missing.
func verified(st *filesystem.Storage) storer.EncodedObjectStorer {
	return verifiedStore{Storage: st, dir: st.Filesystem().Root()}
}

type verifiedStore struct {
	*filesystem.Storage
	dir string
}

// CacheDamagedError is an object of a remote's store in the cache that is
// not what its id names, or that its index lists and cannot be read.
type CacheDamagedError struct {
	Dir    string // the remote's store
	Object string // the object's id
	Why    string
}

func (e *CacheDamagedError) Error() string {
	return fmt.Sprintf("the cache's store %s: object %s %s (the store was damaged, or written by someone else): delete that folder, and ctx fetches again what it needs; if several users share CTX_CACHE, give each their own", e.Dir, e.Object, e.Why)
}

func (s verifiedStore) damaged(h plumbing.Hash, why string) error {
	return &CacheDamagedError{Dir: s.dir, Object: h.String(), Why: why}
}

func (s verifiedStore) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	obj, err := s.Storage.EncodedObject(t, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) && s.Storage.HasEncodedObject(h) == nil {
		// Listed, but unreadable: go-git says "not found" for a pack cut
		// short, and a fetch would not replace it (the index still lists
		// it). An object of another type than asked is not found, as before.
		if t == plumbing.AnyObject {
			return nil, s.damaged(h, "is listed but cannot be read")
		}
		if _, aerr := s.Storage.EncodedObject(plumbing.AnyObject, h); errors.Is(aerr, plumbing.ErrObjectNotFound) {
			return nil, s.damaged(h, "is listed but cannot be read")
		}
	}
	if err != nil {
		return nil, err
	}
	if obj.Type() == plumbing.BlobObject {
		return &verifiedBlob{EncodedObject: obj, id: h, s: s}, nil
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, s.damaged(h, "cannot be read: "+err.Error())
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, s.damaged(h, "cannot be read: "+err.Error())
	}
	if got := plumbing.ComputeHash(obj.Type(), data); got != h {
		return nil, s.damaged(h, fmt.Sprintf("is a %s whose content hashes to %s", obj.Type(), got))
	}
	mo := &plumbing.MemoryObject{}
	mo.SetType(obj.Type())
	if _, err := mo.Write(data); err != nil {
		return nil, err
	}
	return mo, nil
}

// verifiedBlob is a blob of the cache whose reader checks its content.
type verifiedBlob struct {
	plumbing.EncodedObject
	id plumbing.Hash // asked for (a loose object's Hash is computed from its content)
	s  verifiedStore
}

func (b *verifiedBlob) Hash() plumbing.Hash { return b.id }

func (b *verifiedBlob) Reader() (io.ReadCloser, error) {
	rd, err := b.EncodedObject.Reader()
	if err != nil {
		return nil, b.s.damaged(b.id, "cannot be read: "+err.Error())
	}
	return &hashingReader{rc: rd, h: plumbing.NewHasher(plumbing.BlobObject, b.Size()), b: b}, nil
}

// hashingReader hashes what it reads; at the end it fails when the blob's
// content was not the one its id names (or not of its size).
type hashingReader struct {
	rc io.ReadCloser
	h  plumbing.Hasher
	n  int64
	b  *verifiedBlob
}

func (r *hashingReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	r.h.Write(p[:n])
	r.n += int64(n)
	if errors.Is(err, io.EOF) {
		if r.n != r.b.Size() {
			return n, r.b.s.damaged(r.b.id, fmt.Sprintf("holds %d bytes, not the %d its header says", r.n, r.b.Size()))
		}
		if got := r.h.Sum(); got != r.b.id {
			return n, r.b.s.damaged(r.b.id, "is a blob whose content hashes to "+got.String())
		}
	} else if err != nil {
		return n, r.b.s.damaged(r.b.id, "cannot be read: "+err.Error())
	}
	return n, err
}

func (r *hashingReader) Close() error { return r.rc.Close() }

// blobSizeTrusted reports whether the size st's header gives for blob h can be
// trusted (dropLarge skips a file for it): always for a store that is not
// the cache's; for the cache's (verified), when the object read whole is
// the blob h names. A forged object under a file's id is then not a reason
// to leave the file out: the file is kept, and writing it fails naming the
// store (review of red20). Only files over the size limit are read.
func blobSizeTrusted(st storer.EncodedObjectStorer, h plumbing.Hash) bool {
	if _, ok := st.(verifiedStore); !ok {
		return true
	}
	return drainBlob(st, h) == nil
}

// drainBlob reads blob h of st to its end: the error of a verified store's
// check, if any.
func drainBlob(st storer.EncodedObjectStorer, h plumbing.Hash) error {
	obj, err := st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return err
	}
	rd, err := obj.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()
	_, err = io.Copy(io.Discard, rd)
	return err
}

// storeDamage looks for why dir's store lacks what a fetch should have
// left: a pack whose index cannot be read (junk, refused, not a regular
// file: go-git leaves the pack out, yet the store's ctx-commits still
// names commits whose trees were in it, so the server rightly sends a
// thin pack against them) or a pack whose end is not the checksum its
// index names (cut short). It says the first one found; "" is none. Only
// a failed fetch calls it: it reads every index of the store.
func storeDamage(dir string) string {
	packs, err := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*.pack"))
	if err != nil {
		return ""
	}
	for _, p := range packs {
		idx, _, err := readIdx(strings.TrimSuffix(p, ".pack") + ".idx")
		if err != nil {
			return fmt.Sprintf("the index of %s cannot be read: %v", filepath.Base(p), err)
		}
		if sum, err := packTrailer(p); err != nil {
			return fmt.Sprintf("pack %s cannot be read: %v", p, err)
		} else if sum != idx.PackfileChecksum {
			return fmt.Sprintf("pack %s ends in %s, not the checksum %s its index names (cut short or replaced)", p, sum, idx.PackfileChecksum)
		}
	}
	return ""
}

// packTrailer is the checksum a pack file ends with (its last 20 bytes).
func packTrailer(p string) (plumbing.Hash, error) {
	var h plumbing.Hash
	f, err := boundedfile.Open(p, math.MaxInt64)
	if err != nil {
		return h, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return h, err
	}
	if fi.Size() < int64(len(h)) {
		return h, fmt.Errorf("%d bytes, shorter than a pack's checksum", fi.Size())
	}
	_, err = f.ReadAt(h[:], fi.Size()-int64(len(h)))
	return h, err
}
