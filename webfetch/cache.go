package webfetch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/boundedfile"
)

// The cache, under <CacheDir>/https/:
//
//	blobs/<sha256hex>          a body, named by the sha256 of its bytes
//	snapshots/<revhex>.json    a Snapshot, named by its Rev
//	notfound/<sha256hex>       the time a URL answered 404 (keyed by a hash of
//	                           the URL and whether a token was sent)
//
// Every file is written to a temporary file in the same folder and renamed
// into place, so two processes filling the cache at once each rename a
// complete file; for blobs and snapshots both write the same bytes.
const notFoundTTL = time.Hour

// staleIncoming is the age past which a .incoming-* file in the blob folder
// is a crashed process's leftover, not a download in flight: downloads are
// bounded by the idle timeout and the size limits, and a day is far past
// both.
const staleIncoming = 24 * time.Hour

// sweepIncoming removes the .incoming-* files in dir older than
// staleIncoming. Errors are ignored: a leftover only costs disk space.
func sweepIncoming(dir string, now time.Time) {
	tmps, _ := filepath.Glob(filepath.Join(dir, ".incoming-*"))
	for _, p := range tmps {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > staleIncoming {
			_ = os.Remove(p)
		}
	}
}

func (c *Client) dir(parts ...string) string {
	return filepath.Join(append([]string{c.o.CacheDir, "https"}, parts...)...)
}

// checkBlob reports whether blob is a sha256 in lower-case hex.
func checkBlob(blob string) error {
	if len(blob) != 2*sha256.Size || strings.Trim(blob, "0123456789abcdef") != "" {
		return fmt.Errorf("blob id %s is not a sha256 in lower-case hex", shownURL(blob))
	}
	return nil
}

// Open returns the cached blob, for conversion or extraction. It does not
// check the bytes against the name: Cached does.
func (c *Client) Open(blob string) (*os.File, error) {
	if err := checkBlob(blob); err != nil {
		return nil, err
	}
	if err := c.hold(); err != nil {
		return nil, err
	}
	// A regular file only, opened without waiting (internal/boundedfile;
	// no bound on its size here: the hash or the reader's own limits
	// judge it). The cache may be shared: a fifo planted as a blob held
	// the open forever, a link to /dev/zero was hashed forever (review of
	// own21); such a blob is not cached, and fetched again.
	f, err := boundedfile.Open(c.dir("blobs", blob), math.MaxInt64)
	var be *boundedfile.Error
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("blob %s: %w", blob, ErrNotCached)
	case errors.As(err, &be):
		return nil, fmt.Errorf("blob %s: %v: %w", blob, err, ErrNotCached)
	}
	return f, err
}

// storeBlob streams r into the blob cache while hashing it, reading at most
// max+1 bytes. It returns the blob id and the size; a body longer than max
// is not stored and gives errTooBig. Nothing is held in memory.
func (c *Client) storeBlob(r io.Reader, max int64) (blob string, n int64, err error) {
	dir := c.dir("blobs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, fmt.Errorf("cache: %w", err)
	}
	c.sweep.Do(func() { sweepIncoming(dir, time.Now()) })
	f, err := os.CreateTemp(dir, ".incoming-*")
	if err != nil {
		return "", 0, fmt.Errorf("cache: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	h := sha256.New()
	n, err = io.Copy(io.MultiWriter(f, h), io.LimitReader(r, max+1))
	if err != nil {
		f.Close()
		return "", n, err
	}
	if n > max {
		f.Close()
		return "", n, errTooBig
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", n, fmt.Errorf("cache: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", n, fmt.Errorf("cache: %w", err)
	}
	blob = hex.EncodeToString(h.Sum(nil))
	if err := os.Rename(tmp, filepath.Join(dir, blob)); err != nil {
		return "", n, fmt.Errorf("cache: %w", err)
	}
	atomicfile.SyncDir(dir)
	return blob, n, nil
}

var errTooBig = errors.New("body over the limit")

// verifyBlob checks that the cached blob exists and hashes to its name.
func (c *Client) verifyBlob(blob string) error {
	f, err := c.Open(blob)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("blob %s: %w", blob, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != blob {
		return fmt.Errorf("blob %s is corrupt (its bytes hash to %s): %w", blob, got, ErrNotCached)
	}
	return nil
}

// revOf is "sha256:<hex>" of the canonical JSON of the form and, per item in
// order, its URL and blob: what the lock pins. ETags, times and content
// types do not change it.
func revOf(form string, items []Item) string {
	type pin struct {
		URL  string `json:"url"`
		Blob string `json:"blob"`
	}
	v := struct {
		Form  string `json:"form"`
		Items []pin  `json:"items"`
	}{Form: form, Items: make([]pin, len(items))}
	for i, it := range items {
		v.Items[i] = pin{it.URL, it.Blob}
	}
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // strings only
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func revHex(rev string) (string, error) {
	h, ok := strings.CutPrefix(rev, "sha256:")
	if !ok || checkBlob(h) != nil {
		return "", fmt.Errorf("rev %s is not sha256:<64 hex digits>", shownURL(rev))
	}
	return h, nil
}

// storeSnapshot writes s to snapshots/<revhex>.json.
func (c *Client) storeSnapshot(s *Snapshot) error {
	h, err := revHex(s.Rev)
	if err != nil {
		return err
	}
	dir := c.dir("snapshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, h+".json"), append(data, '\n'), 0o644)
}

// maxSnapshotFile bounds a snapshot record read from the cache: 64 MiB, far
// more than ctx writes for an llms.txt of thousands of pages. The https
// cache may be shared: a fifo or a link to /dev/zero planted there must
// not hang ctx or fill its memory (own21, internal/boundedfile).
const maxSnapshotFile = 64 << 20

// Cached returns the snapshot rev from the cache alone, after checking that
// it is the snapshot of that rev and that every blob it names is present
// and hashes to its id. The error wraps ErrNotCached when it is absent,
// incomplete or corrupt: fetch it again. A snapshot found is marked used
// now (its file time), for GC's keep period.
func (c *Client) Cached(rev string) (*Snapshot, error) {
	h, err := revHex(rev)
	if err != nil {
		return nil, err
	}
	if err := c.hold(); err != nil {
		return nil, err
	}
	p := c.dir("snapshots", h+".json")
	data, err := boundedfile.ReadFile(p, maxSnapshotFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("snapshot %s: %w", rev, ErrNotCached)
	}
	var be *boundedfile.Error
	if errors.As(err, &be) {
		// Not a record ctx wrote (a fifo, a link to a device, a huge
		// file): as a corrupt one, fetched again and replaced.
		return nil, fmt.Errorf("snapshot %s: %v: %w", rev, err, ErrNotCached)
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", rev, err)
	}
	var s Snapshot
	if err := json.Unmarshal(data, &s); err != nil || s.Rev != rev || revOf(s.Form, s.Items) != rev || len(s.Items) == 0 {
		return nil, fmt.Errorf("snapshot %s is corrupt in the cache: %w", rev, ErrNotCached)
	}
	for _, it := range s.Items {
		if err := c.verifyBlob(it.Blob); err != nil {
			return nil, fmt.Errorf("snapshot %s: %w", rev, err)
		}
	}
	now := c.now()
	_ = os.Chtimes(p, now, now) // on a read-only cache only GC's record of the use is lost
	return &s, nil
}

// NoteUse marks the snapshot rev used now, for GC's keep period, when the
// cache holds it: an install that found its package unchanged reads
// nothing from the cache, yet the cache may hold the only copy of what the
// lock pins. Errors are ignored: a note that fails only lets a GC drop the
// snapshot sooner.
func (c *Client) NoteUse(rev string) {
	h, err := revHex(rev)
	if err != nil || c.o.CacheDir == "" || c.hold() != nil {
		return
	}
	now := c.now()
	_ = os.Chtimes(c.dir("snapshots", h+".json"), now, now)
}

// notFoundKey names the record of a 404 for u: a hash of the URL and of
// whether a token was sent (a server may hide a page from anonymous
// readers), never of the token itself.
func notFoundKey(u string, withToken bool) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("GET %s token=%t", u, withToken)))
	return hex.EncodeToString(sum[:])
}

// notFoundSince returns when u last answered 404, if that was less than
// notFoundTTL ago.
func (c *Client) notFoundSince(u string, withToken bool) (time.Time, bool) {
	if c.o.CacheDir == "" {
		return time.Time{}, false
	}
	data, err := boundedfile.ReadFile(c.dir("notfound", notFoundKey(u, withToken)), 4<<10)
	if err != nil {
		return time.Time{}, false
	}
	at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(data)))
	if err != nil {
		return time.Time{}, false
	}
	now := c.now()
	if at.After(now) || now.Sub(at) >= notFoundTTL {
		return time.Time{}, false
	}
	return at, true
}

func (c *Client) rememberNotFound(u string, withToken bool) {
	if c.o.CacheDir == "" { // a client without a cache (Check only) remembers nothing
		return
	}
	dir := c.dir("notfound")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	// A failure to remember only costs a request later.
	_ = atomicfile.WriteFile(filepath.Join(dir, notFoundKey(u, withToken)), []byte(c.now().UTC().Format(time.RFC3339Nano)+"\n"), 0o644)
}

// CacheUsage is what the https cache under a cache root holds.
type CacheUsage struct {
	Dir       string    // <CacheDir>/https
	Bytes     int64     // every file under it
	Snapshots int       // snapshots/*.json
	Blobs     int       // bodies in blobs/
	LastUsed  time.Time // the newest file's time; zero when empty
}

// Usage reads the https cache under cacheDir (its <cacheDir>/https/
// folder): the sizes and counts `ctx cache info` shows. A missing folder
// is an empty cache.
func Usage(cacheDir string) (CacheUsage, error) {
	u := CacheUsage{Dir: filepath.Join(cacheDir, "https")}
	err := filepath.WalkDir(u.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == u.Dir {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		u.Bytes += fi.Size()
		if fi.ModTime().After(u.LastUsed) {
			u.LastUsed = fi.ModTime()
		}
		switch dir, name := filepath.Base(filepath.Dir(p)), d.Name(); {
		case dir == "snapshots" && strings.HasSuffix(name, ".json"):
			u.Snapshots++
		case dir == "blobs" && checkBlob(name) == nil:
			u.Blobs++
		}
		return nil
	})
	if err != nil {
		return u, fmt.Errorf("read the https cache: %w", err)
	}
	return u, nil
}
