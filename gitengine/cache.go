package gitengine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/lockwait"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// The object cache: one bare object store per remote under the cache root,
//
//	<root>/<host>_<path>-<sha256(url)[:12]>/   objects/pack/*.pack, *.idx (and loose objects)
//	<root>/<...>/ctx-commits                    commits fetched, one per line, oldest first
//	<root>/<...>/ctx-used.json                  the remote's URL and the commits used, with
//	                                            their sub-paths and last use (see useFile)
//	<root>/<...>.lock                           flock held while fetching, and by gc
//	<root>/<...>.readers.lock                   shared flock held while reading objects after a
//	                                            fetch; gc takes it exclusively
//
// A fetch adds objects (whole pack files renamed into place, or loose
// objects) under the fetch lock, records the commit and sub-path it used,
// then takes the readers lock (shared) before it lets the fetch lock go, and
// keeps it while it reads the objects it needs. gc (gc.go) deletes objects
// only while it holds both locks, so no reader ever sees a pack vanish.

func (e *Engine) cacheRoot() (string, error) {
	if e.opts.CacheDir != "" {
		return e.opts.CacheDir, nil
	}
	return "", errors.New("no cache directory: gitengine.Options.CacheDir is empty (there is no user cache directory: set CTX_CACHE)")
}

// cacheKey names the cache of a remote: naming.CacheKey of its endpoint
// (credentials are already removed from r.ep).
func cacheKey(r *remote) string {
	return naming.CacheKey(r.ep.Protocol, r.ep.Host, r.ep.Port, r.ep.Path)
}

// openCache opens the object store for r. With lock it first takes the
// remote's fetch lock (waiting for other processes, as long as ctx allows)
// and creates the store; without, it takes the readers lock (shared) if
// gc does not hold it, and fails if the store does not exist. unlock
// releases the lock.
//
// The store keeps each pack file open once read (see newStorage's keep):
// close it (st.Close) before unlock.
func (e *Engine) openCache(ctx context.Context, r *remote, lock bool) (st *filesystem.Storage, unlock func(), err error) {
	if err := e.guardCache(ctx, r); err != nil {
		return nil, nil, err
	}
	root, err := e.cacheRoot()
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Join(root, cacheKey(r))
	if !lock {
		if _, err := os.Stat(dir); err != nil {
			return nil, nil, err
		}
		rl := lockwait.File(dir + readersLockSuffix)
		if ok, err := lockwait.Shared(ctx, rl, 0); err != nil {
			return nil, nil, fmt.Errorf("lock the cache %s for reading: %w", dir, err)
		} else if !ok {
			return nil, nil, fmt.Errorf("the cache %s is being collected", dir)
		}
		return newCacheStorage(dir, true), func() { _ = rl.Unlock() }, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create cache directory: %w (set CTX_CACHE to a writable directory)", err)
	}
	fl := lockwait.File(dir + fetchLockSuffix)
	if ok, err := lockwait.Exclusive(ctx, fl, lockwait.Forever); !ok {
		return nil, nil, fmt.Errorf("lock the cache %s: %w", dir, err)
	}
	return newCacheStorage(dir, true), func() { _ = fl.Unlock() }, nil
}

// The lock files beside a remote's folder (see the layout above).
const (
	fetchLockSuffix   = ".lock"
	readersLockSuffix = ".readers.lock"
)

// readLock takes the readers lock of the store st (shared), waiting as
// long as ctx allows. It is taken while the fetch lock is held, which gc
// needs first, so it waits at most for a gc that is finishing.
func readLock(ctx context.Context, st *filesystem.Storage) (func(), error) {
	rl := lockwait.File(filepath.Clean(st.Filesystem().Root()) + readersLockSuffix)
	if ok, err := lockwait.Shared(ctx, rl, lockwait.Forever); !ok {
		return nil, fmt.Errorf("lock the cache %s for reading: %w", st.Filesystem().Root(), err)
	}
	return func() { _ = rl.Unlock() }, nil
}

// largeObject is the size above which an object is read from disk as a
// stream rather than whole into memory (go-git's LargeObjectThreshold).
const largeObject = 1 << 20

// newStorage opens the object store in fs; objects over largeObject are
// streamed when read, and pack indexes are read whole (idxFS). With keep,
// each pack file stays open from its first read until the storage's Close
// (go-git otherwise opens, stats and closes the pack for every object it
// reads: about 100 times for one package of 20 files); the caller must
// Close it.
func newStorage(fs billy.Filesystem, keep bool) *filesystem.Storage {
	return newStorageCached(fs, keep, cache.NewObjectLRUDefault())
}

// newStorageCached is newStorage with the object cache given (a local
// repository's, shared: localRepo).
func newStorageCached(fs billy.Filesystem, keep bool, objects cache.Object) *filesystem.Storage {
	return filesystem.NewStorageWithOptions(idxFS{fs}, objects, filesystem.Options{LargeObjectThreshold: largeObject, KeepDescriptors: keep})
}

// newCacheStorage opens the store of a remote in the cache (newStorage),
// without objects/info/alternates: ctx never writes one, objects of
// another folder are not the remote's, and one that names the store itself
// made go-git recurse until the stack overflowed (red20).
func newCacheStorage(dir string, keep bool) *filesystem.Storage {
	return newStorage(noAlternates{osfs.New(dir)}, keep)
}

// noAlternates is a store's file system without objects/info/alternates.
type noAlternates struct{ billy.Filesystem }

func (f noAlternates) Open(name string) (billy.File, error) {
	return f.OpenFile(name, os.O_RDONLY, 0)
}

// OpenFile is the one open of the store's files (idxFS opens with it).
func (f noAlternates) OpenFile(name string, flag int, perm os.FileMode) (billy.File, error) {
	if filepath.ToSlash(filepath.Clean(name)) == "objects/info/alternates" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return f.Filesystem.OpenFile(name, flag, perm)
}

// idxFS reads a pack's index (a .idx file) whole when go-git opens it:
// go-git's idxfile decoder reads it a few bytes at a time (about 300
// read(2) calls for a pack of 50 objects), and the storage reads every
// index again after each fetch adds a pack (Reindex). An index over
// maxWholeIdx is handed over as a file, so that a junk one (sparse: it
// costs no disk) costs no memory before go-git checks its size (red20: 1
// GiB of one took 2.1 GB).
type idxFS struct{ billy.Filesystem }

// maxWholeIdx is the largest index read whole: 16 MiB, about 580,000
// objects, far more than a store of documentation holds.
const maxWholeIdx = 16 << 20

func (f idxFS) Open(name string) (billy.File, error) {
	// Not waiting on a fifo planted in a shared store, and only a
	// regular file read (review of own21: a fifo for a pack's index hung
	// every fetch of the remote): internal/boundedfile's rule.
	file, err := f.Filesystem.OpenFile(name, os.O_RDONLY|boundedfile.NonBlock, 0)
	if err != nil {
		return nil, err
	}
	var fi fs.FileInfo
	if s, ok := file.(interface{ Stat() (fs.FileInfo, error) }); ok {
		fi, err = s.Stat() // the open file's
	} else {
		fi, err = f.Filesystem.Stat(name)
	}
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = &boundedfile.Error{Path: filepath.Join(f.Root(), name), Kind: boundedfile.ErrNotRegular, Mode: fi.Mode()}
	case !strings.HasSuffix(name, ".idx") || fi.Size() > maxWholeIdx:
		return file, nil
	default:
		defer file.Close()
		data, err := io.ReadAll(io.LimitReader(bufio.NewReaderSize(file, int(min(max(fi.Size()+1, 512), 1<<20))), maxWholeIdx+1))
		if err != nil {
			return nil, err
		}
		if len(data) > maxWholeIdx { // it grew while read
			return nil, &boundedfile.Error{Path: filepath.Join(f.Root(), name), Kind: boundedfile.ErrTooLarge, Size: -1, Max: maxWholeIdx}
		}
		return &memFile{Reader: bytes.NewReader(data), name: file.Name(), fi: fi}, nil
	}
	file.Close()
	return nil, err
}

// memFile is a read-only billy.File of bytes read into memory.
type memFile struct {
	*bytes.Reader
	name string
	fi   fs.FileInfo
}

var errReadOnly = errors.New("read-only file")

func (m *memFile) Name() string               { return m.name }
func (m *memFile) Stat() (fs.FileInfo, error) { return m.fi, nil }
func (m *memFile) Write([]byte) (int, error)  { return 0, errReadOnly }
func (m *memFile) Truncate(int64) error       { return errReadOnly }
func (m *memFile) Lock() error                { return nil }
func (m *memFile) Unlock() error              { return nil }
func (m *memFile) Close() error               { return nil }

// maxHaves bounds how many recently fetched commits an update offers as haves.
const maxHaves = 32

// knownCommits returns the most recently fetched commits that are in st.
func knownCommits(st *filesystem.Storage) []plumbing.Hash {
	data, err := readCommitsRecord(st.Filesystem().Root())
	if err != nil {
		return nil
	}
	var all []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); len(l) == 40 && isHex(l) {
			all = append(all, l)
		}
	}
	seen := map[string]bool{}
	var out []plumbing.Hash
	for i := len(all) - 1; i >= 0 && len(out) < maxHaves; i-- {
		if seen[all[i]] {
			continue
		}
		seen[all[i]] = true
		h := plumbing.NewHash(all[i])
		if st.HasEncodedObject(h) == nil {
			out = append(out, h)
		}
	}
	return out
}

// maxCommitsRecord bounds ctx-commits as read: 16 MiB, some 400,000
// commits, far more than a store of documentation records.
const maxCommitsRecord = 16 << 20

// readCommitsRecord is the store dir's ctx-commits, read bounded
// (internal/boundedfile): the cache may be shared, and a fifo planted
// there held every update's open forever (own21).
func readCommitsRecord(dir string) ([]byte, error) {
	return boundedfile.ReadFile(filepath.Join(dir, "ctx-commits"), maxCommitsRecord)
}

// recordCommit appends c to the cache's list of fetched commits.
// The file is opened through an os.Root on the store: a link in a shared
// cache that leads out of the store is not written through (red20).
func recordCommit(st *filesystem.Storage, c plumbing.Hash) error {
	root, err := os.OpenRoot(st.Filesystem().Root())
	if err != nil {
		return err
	}
	defer root.Close()
	// Not waiting on a fifo planted there (own21): no reader, ENXIO.
	f, err := root.OpenFile("ctx-commits", os.O_WRONLY|os.O_CREATE|os.O_APPEND|boundedfile.NonBlock, 0o644)
	if err != nil {
		return err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = &boundedfile.Error{Path: filepath.Join(st.Filesystem().Root(), "ctx-commits"), Kind: boundedfile.ErrNotRegular, Mode: fi.Mode()}
		}
		return err
	}
	if _, err := f.WriteString(c.String() + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// useFileName is the record of what a remote's cache was used for: the
// commits installs, updates and reads used, each with its sub-paths and
// when it was last used. gc keeps what was used within its keep period.
const useFileName = "ctx-used.json"

// maxUseFile bounds ctx-used.json: 16 MiB, about 100,000 uses (a commit
// and sub-path each, about 150 bytes).
const maxUseFile = 16 << 20

// useFile is the content of ctx-used.json. It is rewritten whole
// (atomicfile.WriteFile) under the fetch lock.
type useFile struct {
	URL  string `json:"url"`  // the remote, credentials redacted
	Used []use  `json:"used"` // sorted by commit, then path
}

// use is one commit and sub-path used, and when last.
type use struct {
	Commit string `json:"commit"` // 40-hex
	Path   string `json:"path"`   // the sub-path: "" for the whole tree, a folder, or one file
	// Tree is the sub-path's tree when the commit was not fetched (an
	// install from a lock, FetchRequest.Tree): gc keeps it and all below.
	Tree string    `json:"tree,omitempty"`
	Time time.Time `json:"time"`
}

// readUses reads dir's ctx-used.json: an empty record when there is none;
// an error when it cannot be read or parsed.
//
// A record over maxUseFile is refused unread: ctx never writes one that
// large, and a junk one in a shared cache (sparse: no disk) cost its size
// in memory in every fetch (red20).
func readUses(dir string) (*useFile, error) {
	data, err := boundedfile.ReadFile(filepath.Join(dir, useFileName), maxUseFile)
	if errors.Is(err, fs.ErrNotExist) {
		return &useFile{}, nil
	}
	if errors.Is(err, boundedfile.ErrTooLarge) {
		return nil, fmt.Errorf("%s: over %d MiB, more than ctx writes: it is not read (a fetch replaces it)", filepath.Join(dir, useFileName), maxUseFile>>20)
	}
	if err != nil {
		return nil, err
	}
	var u useFile
	if err := json.Unmarshal(data, &u); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, useFileName), err)
	}
	for _, x := range u.Used {
		if len(x.Commit) != 40 || !isHex(x.Commit) {
			return nil, fmt.Errorf("%s: %s is not a commit id", filepath.Join(dir, useFileName), safetext.Quote(x.Commit))
		}
	}
	return &u, nil
}

// writeUses writes u to dir's ctx-used.json, atomically.
func writeUses(dir string, u *useFile) error {
	sort.Slice(u.Used, func(i, j int) bool {
		if u.Used[i].Commit != u.Used[j].Commit {
			return u.Used[i].Commit < u.Used[j].Commit
		}
		return u.Used[i].Path < u.Used[j].Path
	})
	data, err := json.MarshalIndent(u, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, useFileName), append(data, '\n'), 0o644)
}

// recordUse notes in st's ctx-used.json that commit's sub-path sub was used
// at now, and the remote's URL (redacted). The caller holds the fetch lock.
// A record that cannot be read is replaced: it only decides what gc keeps.
//
// tree is the sub-path's tree when the store lacks the commit (else zero).
func recordUse(st *filesystem.Storage, r *remote, commit plumbing.Hash, sub string, tree plumbing.Hash, now time.Time) error {
	dir := st.Filesystem().Root()
	u, err := readUses(dir)
	if err != nil {
		u = &useFile{}
	}
	u.URL = naming.RedactURL(r.raw)
	c, t := commit.String(), ""
	if !tree.IsZero() {
		t = tree.String()
	}
	found := false
	for i := range u.Used {
		if u.Used[i].Commit == c && u.Used[i].Path == sub {
			u.Used[i].Time, found = now.UTC(), true
			if t != "" || st.HasEncodedObject(commit) == nil {
				u.Used[i].Tree = t
			}
		}
	}
	if !found {
		u.Used = append(u.Used, use{Commit: c, Path: sub, Tree: t, Time: now.UTC()})
	}
	return writeUses(dir, u)
}

// noteWait bounds how long NoteUse waits for a remote another process is
// fetching: the note only decides what gc keeps.
const noteWait = 2 * time.Second

// NoteUse records in the cache that req's commit and sub-path are in use
// (a package installed at it), as every fetch through the cache does, so
// that gc keeps them for its keep period (req.Tree, when the store holds
// that tree but not the commit: a package installed by its tree). It fetches nothing. It does
// nothing for a local repository, or when the cache holds no store for the
// remote; when the remote is busy for long, it gives up without an error.
func (e *Engine) NoteUse(ctx context.Context, req FetchRequest) error {
	commit := strings.ToLower(strings.TrimSpace(req.Commit))
	if len(commit) != 40 || !isHex(commit) {
		return nil
	}
	sub, ok := cleanSubPath(req.Path)
	if !ok {
		return nil
	}
	r, err := parseRemote(req.URL)
	if err != nil || r.local != "" {
		return nil
	}
	root, err := e.cacheRoot()
	if err != nil {
		return nil
	}
	dir := filepath.Join(root, cacheKey(r))
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	fl := lockwait.File(dir + fetchLockSuffix)
	if ok, _ := lockwait.Exclusive(ctx, fl, noteWait); !ok {
		return nil
	}
	defer fl.Unlock()
	st := newCacheStorage(dir, false)
	var tree plumbing.Hash
	if st.HasEncodedObject(plumbing.NewHash(commit)) != nil {
		// Installed from a lock by its tree (FetchRequest.Tree)?
		tree = plumbing.NewHash(strings.ToLower(req.Tree))
		if len(req.Tree) != 40 || !isHex(req.Tree) || st.HasEncodedObject(tree) != nil {
			return nil
		}
	}
	return recordUse(st, r, plumbing.NewHash(commit), sub, tree, time.Now())
}
