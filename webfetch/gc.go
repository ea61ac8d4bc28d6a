package webfetch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/lockwait"
)

// Collecting the https cache (`ctx cache gc`). What stays:
//
//   - every snapshot used within the keep period: a snapshot's file time is
//     its last use (Cached sets it, storeSnapshot writes it), so an install
//     or update that used it keeps it;
//   - every blob a kept snapshot names;
//   - every blob written within the keep period, named or not (a Fetch
//     stores its blobs before its snapshot): when in doubt, keep.
//
// The rest is dropped, and so are the remembered 404s past notFoundTTL and
// the stale .incoming-* files of crashed downloads. A Client holds a shared
// lock on the cache (lockName, beside the https folder) from its first use
// until Close; GC holds it exclusively, so it never drops what a running
// process is reading or has just written. A cache in use is waited for up
// to GCOptions.Wait, then skipped.

// lockName is the https cache's lock file, in the cache root.
const lockName = "https.lock"

// GCOptions says how GC collects.
type GCOptions struct {
	Keep   time.Duration // what was used or written within it stays; 0 keeps nothing that is not in use now
	DryRun bool          // report what would be dropped; change nothing
	Wait   time.Duration // how long to wait for processes using the cache; 0 does not wait
	Now    time.Time     // the end of the keep period; zero means time.Now()
}

// GCResult is what GC did (or would do, in a dry run).
type GCResult struct {
	Dir                     string // <cacheDir>/https
	Skipped                 string // why the cache was left alone; "" when it was collected
	Warning                 string // what made GC keep more than the rule
	BytesBefore, BytesAfter int64
	Snapshots, Blobs        int // held before
	DroppedSnapshots        int
	DroppedBlobs            int
}

// GC collects the https cache under cacheDir (see the rule above). A
// missing cache is an empty one.
func GC(ctx context.Context, cacheDir string, o GCOptions) (GCResult, error) {
	res := GCResult{Dir: filepath.Join(cacheDir, "https")}
	if _, err := os.Stat(res.Dir); errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	fl := lockwait.File(filepath.Join(cacheDir, lockName))
	ok, err := lockwait.Exclusive(ctx, fl, o.Wait)
	if err != nil {
		return res, fmt.Errorf("lock the https cache: %w", err)
	}
	if !ok {
		res.Skipped = "in use by another ctx process"
		return res, nil
	}
	defer fl.Unlock()

	cutoff := o.Now.Add(-o.Keep)
	recent := func(fi fs.FileInfo) bool { return o.Keep > 0 && !fi.ModTime().Before(cutoff) }
	drop := func(p string, size int64) error {
		if !o.DryRun {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		res.BytesAfter -= size
		return nil
	}
	if res.BytesBefore, err = dirBytes(res.Dir); err != nil {
		return res, err
	}
	res.BytesAfter = res.BytesBefore

	// Snapshots: kept when used within the keep period; their blobs with them.
	named := map[string]bool{}
	keepAll := false
	snaps, err := readDir(filepath.Join(res.Dir, "snapshots"))
	if err != nil {
		return res, err
	}
	for _, fi := range snaps {
		name := fi.Name()
		if !fi.Mode().IsRegular() || !strings.HasSuffix(name, ".json") || checkBlob(strings.TrimSuffix(name, ".json")) != nil {
			continue // not a snapshot (a rename in flight): left alone
		}
		res.Snapshots++
		p := filepath.Join(res.Dir, "snapshots", name)
		if !recent(fi) {
			res.DroppedSnapshots++
			if err := drop(p, fi.Size()); err != nil {
				return res, err
			}
			continue
		}
		var s Snapshot
		data, err := boundedfile.ReadFile(p, maxSnapshotFile)
		if err == nil {
			err = json.Unmarshal(data, &s)
		}
		if err != nil {
			keepAll = true
			res.Warning = fmt.Sprintf("snapshot %s could not be read (%v): every blob was kept", name, err)
			continue
		}
		for _, it := range s.Items {
			named[it.Blob] = true
		}
	}

	// Blobs: kept when a kept snapshot names them or they are recent.
	blobDir := filepath.Join(res.Dir, "blobs")
	blobs, err := readDir(blobDir)
	if err != nil {
		return res, err
	}
	for _, fi := range blobs {
		name := fi.Name()
		if !fi.Mode().IsRegular() || checkBlob(name) != nil {
			continue
		}
		res.Blobs++
		if keepAll || named[name] || recent(fi) {
			continue
		}
		res.DroppedBlobs++
		if err := drop(filepath.Join(blobDir, name), fi.Size()); err != nil {
			return res, err
		}
	}
	if !o.DryRun {
		sweepIncoming(blobDir, o.Now)
	}

	// Remembered 404s past their time are no longer used.
	nf, err := readDir(filepath.Join(res.Dir, "notfound"))
	if err != nil {
		return res, err
	}
	for _, fi := range nf {
		if fi.Mode().IsRegular() && o.Now.Sub(fi.ModTime()) > notFoundTTL {
			if err := drop(filepath.Join(res.Dir, "notfound", fi.Name()), fi.Size()); err != nil {
				return res, err
			}
		}
	}
	if !o.DryRun {
		if res.BytesAfter, err = dirBytes(res.Dir); err != nil {
			return res, err
		}
	}
	return res, nil
}

// readDir lists dir's entries with their file info; a missing dir is empty.
func readDir(dir string) ([]fs.FileInfo, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the https cache: %w", err)
	}
	out := make([]fs.FileInfo, 0, len(ents))
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			out = append(out, fi)
		}
	}
	return out, nil
}

// dirBytes is the size of every file under dir.
func dirBytes(dir string) (int64, error) {
	u, err := Usage(filepath.Dir(dir))
	return u.Bytes, err
}

// hold takes the cache's shared lock for this Client, once, until Close:
// GC then leaves the cache alone while this process uses it. It waits for
// a GC in progress (a GC of the https cache takes moments), up to
// holdWait.
func (c *Client) hold() error {
	if c.o.CacheDir == "" {
		return nil
	}
	c.holdOnce.Do(func() {
		_ = os.MkdirAll(c.o.CacheDir, 0o755) // else the lock file's open says why
		fl := lockwait.File(filepath.Join(c.o.CacheDir, lockName))
		ok, err := lockwait.Shared(context.Background(), fl, holdWait)
		switch {
		case err == nil && ok:
			c.lock = fl
		case confine.CannotWrite(err):
			// A cache this user cannot write (read-only, another's): it
			// still serves what it holds, and no GC of ours can run on it.
		case err == nil:
			c.holdErr = fmt.Errorf("the https cache %s is being collected by another ctx process: try again when it ends", filepath.Join(c.o.CacheDir, "https"))
		default:
			c.holdErr = fmt.Errorf("lock the https cache: %w", err)
		}
	})
	return c.holdErr
}

// holdWait bounds how long a Client waits for a GC of the https cache.
const holdWait = 2 * time.Minute
