package gitengine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/gofrs/flock"
)

// The object cache: one bare object store per remote under the cache root,
//
//	<root>/<host>_<path>-<sha256(url)[:12]>/   objects/pack/*.pack, *.idx
//	<root>/<...>/ctx-commits                    commits fetched, one per line, oldest first
//	<root>/<...>.lock                           flock held while fetching
//
// Objects are only ever added (as whole pack files, renamed into place), so
// readers need no lock; writers take the file lock so concurrent ctx
// processes do not fetch the same objects twice.

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

// openCache opens the object store for r; with lock it first takes the
// remote's file lock (waiting for other processes). unlock releases it.
func (e *Engine) openCache(ctx context.Context, r *remote, lock bool) (st *filesystem.Storage, unlock func(), err error) {
	root, err := e.cacheRoot()
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Join(root, cacheKey(r))
	if !lock {
		if _, err := os.Stat(dir); err != nil {
			return nil, nil, err
		}
		return newStorage(osfs.New(dir)), func() {}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create cache directory: %w (set CTX_CACHE to a writable directory)", err)
	}
	fl := flock.New(dir + ".lock")
	ok, err := fl.TryLockContext(ctx, 50*time.Millisecond)
	if err != nil || !ok {
		if err == nil {
			err = ctx.Err()
		}
		return nil, nil, fmt.Errorf("lock the cache %s: %w", dir, err)
	}
	return newStorage(osfs.New(dir)), func() { _ = fl.Unlock() }, nil
}

// largeObject is the size above which an object is read from disk as a
// stream rather than whole into memory (go-git's LargeObjectThreshold).
const largeObject = 1 << 20

// newStorage opens the object store in fs; objects over largeObject are
// streamed when read.
func newStorage(fs billy.Filesystem) *filesystem.Storage {
	return filesystem.NewStorageWithOptions(fs, cache.NewObjectLRUDefault(), filesystem.Options{LargeObjectThreshold: largeObject})
}

// maxHaves bounds how many recently fetched commits an update offers as haves.
const maxHaves = 32

// knownCommits returns the most recently fetched commits that are in st.
func knownCommits(st *filesystem.Storage) []plumbing.Hash {
	f, err := st.Filesystem().Open("ctx-commits")
	if err != nil {
		return nil
	}
	defer f.Close()
	var all []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); len(l) == 40 && isHex(l) {
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

// recordCommit appends c to the cache's list of fetched commits.
func recordCommit(st *filesystem.Storage, c plumbing.Hash) error {
	p := filepath.Join(st.Filesystem().Root(), "ctx-commits")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(c.String() + "\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
