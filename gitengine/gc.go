package gitengine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/lockwait"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/gofrs/flock"
)

// Collecting the cache (gc). Which objects a remote's store keeps:
//
//   - every commit recorded in ctx-used.json with a use within the keep
//     period (GCOptions.Keep), with all of its trees (an update offers it as
//     a have, and the server then leaves out the trees it has) and the
//     blobs under each sub-path recorded for it in that period;
//   - everything in a pack file, and every loose object, written within the
//     keep period, whatever it is (a fetch whose use was not recorded yet,
//     a store filled by an older ctx): when in doubt, keep.
//
// The rest is dropped: the kept objects of the older packs and the kept
// loose objects are written into new packs (go-git's packfile.Encoder,
// indexed by writePack), then the old packs and all loose objects are
// removed. Packs younger than the keep period are left as they are. gc
// holds the remote's fetch lock and its readers lock (exclusive) while it
// works, so no fetch or read of that remote runs meanwhile; a remote in use
// is waited for up to GCOptions.Wait, then skipped.

// DefaultKeep is the default keep period of `ctx cache gc` and of the gc
// the size limit (Options.CacheMax) starts: what was used within it stays.
const DefaultKeep = 14 * 24 * time.Hour

// staleTemp is the age past which a tmp_pack_* file is a crashed fetch's
// leftover (fetches are bounded by the idle timeout, far below it).
const staleTemp = 24 * time.Hour

// repackChunk bounds the bytes of objects one new pack holds: go-git's
// encoder keeps the objects it packs (those under largeObject whole) in
// memory.
const repackChunk = 64 << 20

// CacheRemote is one remote's store in the cache.
type CacheRemote struct {
	Key           string    // its folder under the cache root (naming.CacheKey)
	URL           string    // the remote, credentials redacted; "" when no use was recorded
	Bytes         int64     // on disk, every file of the folder
	Packs         int       // pack files
	PackedObjects int       // objects in the pack files (an object in two packs counts twice)
	LooseObjects  int       // objects stored one per file
	Commits       int       // distinct commits recorded as used
	LastUsed      time.Time // the newest recorded use (zero when none is left); the newest file's time in a store without a record
}

// CacheInfo describes every remote's store under the cache root, sorted by
// URL (then key). Files of the root that are not a remote's store (the
// https cache, lock files) are not listed.
func (e *Engine) CacheInfo(ctx context.Context) ([]CacheRemote, error) {
	root, err := e.cacheRoot()
	if err != nil {
		return nil, err
	}
	keys, err := remoteKeys(root)
	if err != nil {
		return nil, err
	}
	var out []CacheRemote
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out = append(out, inspectRemote(root, k))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].URL != out[j].URL {
			return out[i].URL < out[j].URL
		}
		return out[i].Key < out[j].Key
	})
	return out, nil
}

// remoteKeys lists the folders under root that are remote stores: their
// names end in "-" and 12 hex digits (naming.CacheKey). A missing root is
// an empty cache.
func remoteKeys(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the cache %s: %w", root, err)
	}
	var keys []string
	for _, en := range ents {
		n := en.Name()
		if !en.IsDir() || len(n) < 13 || n[len(n)-13] != '-' || !isHex(n[len(n)-12:]) {
			continue
		}
		keys = append(keys, n)
	}
	sort.Strings(keys)
	return keys, nil
}

// inspectRemote reads what CacheRemote says of root/key, without locks:
// a figure read while a fetch runs is only a little out of date.
func inspectRemote(root, key string) CacheRemote {
	dir := filepath.Join(root, key)
	cr := CacheRemote{Key: key}
	var newest time.Time
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		cr.Bytes += fi.Size()
		if fi.ModTime().After(newest) {
			newest = fi.ModTime()
		}
		rel, _ := filepath.Rel(dir, p)
		switch rel = filepath.ToSlash(rel); {
		case strings.HasPrefix(rel, "objects/pack/pack-") && strings.HasSuffix(rel, ".idx"):
			if _, hs, err := readIdx(p); err == nil {
				cr.PackedObjects += len(hs)
			}
		case strings.HasPrefix(rel, "objects/pack/pack-") && strings.HasSuffix(rel, ".pack"):
			cr.Packs++
		case isLoosePath(rel):
			cr.LooseObjects++
		}
		return nil
	})
	cr.LastUsed = newest
	if u, err := readUses(dir); err == nil {
		cr.URL = u.URL
		commits := map[string]bool{}
		var last time.Time
		for _, x := range u.Used {
			commits[x.Commit] = true
			if x.Time.After(last) {
				last = x.Time
			}
		}
		cr.Commits = len(commits)
		if _, err := os.Stat(filepath.Join(dir, useFileName)); err == nil {
			cr.LastUsed = last // zero when gc has pruned every use
		}
	}
	return cr
}

// isLoosePath reports whether rel (slash-separated, in a store) is a loose
// object: objects/xx/ and 38 hex digits.
func isLoosePath(rel string) bool {
	d, f, ok := strings.Cut(strings.TrimPrefix(rel, "objects/"), "/")
	return ok && strings.HasPrefix(rel, "objects/") && len(d) == 2 && isHex(d) && len(f) == 38 && isHex(f)
}

// readIdx reads a pack index: its entries' ids and their offsets in the pack.
// It opens only a regular file, without waiting on a fifo (boundedfile;
// no bound on the size, as before): the cache may be shared
// (review of own21: a fifo there held `ctx cache` and gc forever).
func readIdx(p string) (*idxfile.MemoryIndex, []plumbing.Hash, error) {
	f, err := boundedfile.Open(p, math.MaxInt64)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(bufio.NewReader(f)).Decode(idx); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p, err)
	}
	it, err := idx.Entries()
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	var hs []plumbing.Hash
	for {
		en, err := it.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		hs = append(hs, en.Hash)
	}
	return idx, hs, nil
}

// GCOptions configure GC.
type GCOptions struct {
	// Keep is the keep period: commits used within it, and objects written
	// within it, stay. 0 keeps only what is in use now (cmd/ctx's default
	// is DefaultKeep).
	Keep time.Duration
	// DryRun reports what would be dropped and changes nothing.
	DryRun bool
	// Wait is how long to wait for a remote that another ctx is fetching
	// or reading before skipping it; 0 does not wait.
	Wait time.Duration
	// Keys limits the collection to these remotes (CacheRemote.Key), in
	// this order; nil collects every remote.
	Keys []string
	// Now is the time the keep period ends at; zero means time.Now().
	Now time.Time
}

// GCResult is what GC did with one remote (or would do, in a dry run).
type GCResult struct {
	Key string
	URL string // credentials redacted; "" when no use was recorded
	// Skipped says why the remote was left alone ("in use by another ctx
	// process"); "" when it was collected.
	Skipped string
	// Warning says what made gc keep more than the rule (an unreadable
	// record of uses: then every object is kept).
	Warning     string
	Commits     int // commits kept (used within the keep period and present, or their folder's tree: FetchRequest.Tree)
	Objects     int // distinct objects before
	Dropped     int // objects dropped
	Repacked    int // loose objects packed (or dropped)
	PacksBefore int
	PacksAfter  int
	BytesBefore int64
	BytesAfter  int64 // in a dry run, an estimate
}

// GC collects the cache: for each remote (GCOptions.Keys, else all), it
// drops the objects the keep rule (above) does not keep and packs the loose
// ones. A remote another process is using is waited for up to
// GCOptions.Wait, then skipped (GCResult.Skipped). An error stops at the
// remote it happened in; the results so far are returned with it.
func (e *Engine) GC(ctx context.Context, o GCOptions) ([]GCResult, error) {
	root, err := e.cacheRoot()
	if err != nil {
		return nil, err
	}
	keys := o.Keys
	if keys == nil {
		if keys, err = remoteKeys(root); err != nil {
			return nil, err
		}
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	var out []GCResult
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		res, err := e.gcRemote(ctx, root, k, o)
		out = append(out, res)
		if err != nil {
			return out, fmt.Errorf("gc %s: %w", filepath.Join(root, k), err)
		}
	}
	return out, nil
}

// TrimCache keeps the git object cache within Options.CacheMax bytes: when
// the remotes' stores add up to more, it collects them (keep period
// DefaultKeep), least recently used first, until they fit. A remote in use
// is skipped. When they do not fit even so, it warns, saying what to do;
// it never drops what the keep rule keeps. It does nothing when CacheMax
// is not set (0 or less) or the cache fits.
func (e *Engine) TrimCache(ctx context.Context) ([]GCResult, error) {
	limit := e.opts.CacheMax
	if limit <= 0 || e.opts.CacheDir == "" {
		return nil, nil
	}
	remotes, err := e.CacheInfo(ctx)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, r := range remotes {
		total += r.Bytes
	}
	if total <= limit {
		return nil, nil
	}
	sort.SliceStable(remotes, func(i, j int) bool { return remotes[i].LastUsed.Before(remotes[j].LastUsed) })
	var out []GCResult
	for _, r := range remotes {
		res, err := e.GC(ctx, GCOptions{Keep: DefaultKeep, Keys: []string{r.Key}})
		out = append(out, res...)
		if err != nil {
			return out, err
		}
		for _, x := range res {
			if x.Skipped == "" {
				total += x.BytesAfter - x.BytesBefore
			}
		}
		if total <= limit {
			return out, nil
		}
	}
	e.warn(fmt.Sprintf("the git cache %s holds %d bytes, over CTX_CACHE_MAX (%d bytes), and what is left was used within the last %d days or is in use: run `ctx cache gc --keep 1d` to keep less, or raise CTX_CACHE_MAX", e.opts.CacheDir, total, limit, DefaultKeep/(24*time.Hour)))
	return out, nil
}

// lockRemote takes both locks of root/key for gc, waiting up to wait for
// each; ok is false when another process holds one.
func lockRemote(ctx context.Context, dir string, wait time.Duration) (unlock func(), ok bool, err error) {
	take := func(fl *flock.Flock) (bool, error) { return lockwait.Exclusive(ctx, fl, wait) }
	fetch := lockwait.File(dir + fetchLockSuffix)
	if ok, err := take(fetch); err != nil || !ok {
		return nil, false, err
	}
	readers := lockwait.File(dir + readersLockSuffix)
	if ok, err := take(readers); err != nil || !ok {
		_ = fetch.Unlock()
		return nil, false, err
	}
	return func() { _ = readers.Unlock(); _ = fetch.Unlock() }, true, nil
}

// packInfo is one pack file of a store.
type packInfo struct {
	hash   plumbing.Hash
	recent bool // written within the keep period: left as it is
	ids    []plumbing.Hash
	sizes  map[plumbing.Hash]int64 // bytes each object takes in the pack
	bytes  int64                   // the pack and its index
}

// gcRemote collects one remote's store (see the rule at the top).
func (e *Engine) gcRemote(ctx context.Context, root, key string, o GCOptions) (GCResult, error) {
	dir := filepath.Join(root, key)
	res := GCResult{Key: key}
	if u, err := readUses(dir); err == nil {
		res.URL = u.URL
	}
	unlock, ok, err := lockRemote(ctx, dir, o.Wait)
	if err != nil {
		return res, err
	}
	if !ok {
		res.Skipped = "in use by another ctx process"
		return res, nil
	}
	defer unlock()
	res.BytesBefore = inspectRemote(root, key).Bytes
	cutoff := o.Now.Add(-o.Keep)
	st := newCacheStorage(dir, false)

	kp := keptByUses(st, dir, cutoff)
	res.Warning, res.Commits = kp.warning, kp.commits
	inv, err := readInventory(st, dir, cutoff)
	if err != nil {
		return res, err
	}
	res.PacksBefore, res.Objects, res.Repacked = len(inv.packs), inv.objects, len(inv.loose)
	repack, dropped, freed := inv.plan(kp)
	res.Dropped = dropped
	if dropped == 0 && len(inv.loose) == 0 && len(inv.old) <= 1 {
		res.PacksAfter, res.BytesAfter = res.PacksBefore, res.BytesBefore
		return res, nil
	}
	if o.DryRun {
		res.PacksAfter = len(inv.packs) - len(inv.old)
		if len(repack) > 0 {
			res.PacksAfter++
		}
		res.BytesAfter = max(res.BytesBefore-freed, 0)
		return res, nil
	}
	if err := e.replacePacks(ctx, st, dir, inv, repack); err != nil {
		return res, err
	}
	removeEmptyLooseDirs(dir)
	sweepTempPacks(dir, o.Now)
	if err := pruneRecords(st, dir, kp.uses, kp.recentUses, kp.all); err != nil {
		return res, err
	}
	after := inspectRemote(root, key)
	res.PacksAfter, res.BytesAfter = after.Packs, after.Bytes
	return res, nil
}

// keptSet is what a store's recorded uses keep.
type keptSet struct {
	all        bool // the record cannot be read: every object is kept
	warning    string
	uses       *useFile
	recentUses []use
	ids        map[plumbing.Hash]bool
	commits    int
}

// keptByUses reads the record of uses of the store in dir and walks what
// the uses since cutoff keep.
func keptByUses(st *filesystem.Storage, dir string, cutoff time.Time) keptSet {
	uses, uerr := readUses(dir)
	kp := keptSet{all: uerr != nil, uses: uses, ids: map[plumbing.Hash]bool{}}
	if kp.all {
		kp.warning = fmt.Sprintf("kept every object: the record of uses cannot be read (%v); delete %s to start it again", uerr, filepath.Join(dir, useFileName))
		kp.uses = &useFile{}
	}
	k := &keeper{st: st, keep: kp.ids, trees: map[plumbing.Hash]bool{}, blobTrees: map[plumbing.Hash]bool{}}
	commits := map[plumbing.Hash]bool{}
	for _, x := range kp.uses.Used {
		if x.Time.Before(cutoff) {
			continue
		}
		kp.recentUses = append(kp.recentUses, x)
		if k.commit(plumbing.NewHash(x.Commit), x.Path) {
			commits[plumbing.NewHash(x.Commit)] = true
		} else if len(x.Tree) == 40 && isHex(x.Tree) {
			// Installed by its tree, without the commit: the commit's use
			// keeps that tree and all below.
			t := plumbing.NewHash(x.Tree)
			k.walkTrees(t, 0)
			k.walkBlobs(t, 0)
			if k.keep[t] {
				commits[plumbing.NewHash(x.Commit)] = true
			}
		}
	}
	kp.commits = len(commits)
	return kp
}

// inventory is a store's packs and loose objects.
type inventory struct {
	packs       []*packInfo
	old         []*packInfo // the packs written before the cutoff
	inRecent    map[plumbing.Hash]bool
	loose       []plumbing.Hash
	looseRecent map[plumbing.Hash]bool
	looseSize   map[plumbing.Hash]int64
	objects     int // distinct objects in all
}

func readInventory(st *filesystem.Storage, dir string, cutoff time.Time) (*inventory, error) {
	packs, err := readPacks(dir, cutoff)
	if err != nil {
		return nil, err
	}
	inv := &inventory{packs: packs, inRecent: map[plumbing.Hash]bool{}, looseRecent: map[plumbing.Hash]bool{}, looseSize: map[plumbing.Hash]int64{}}
	all := map[plumbing.Hash]bool{}
	for _, p := range packs {
		for _, h := range p.ids {
			all[h] = true
			if p.recent {
				inv.inRecent[h] = true
			}
		}
		if !p.recent {
			inv.old = append(inv.old, p)
		}
	}
	err = st.ForEachObjectHash(func(h plumbing.Hash) error {
		inv.loose = append(inv.loose, h)
		all[h] = true
		if t, err := st.LooseObjectTime(h); err != nil || !t.Before(cutoff) {
			inv.looseRecent[h] = true
		}
		if fi, err := os.Stat(filepath.Join(dir, "objects", h.String()[:2], h.String()[2:])); err == nil {
			inv.looseSize[h] = fi.Size()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	inv.objects = len(all)
	return inv, nil
}

// plan picks the new packs' objects (the kept ones not already in a recent
// pack), counts the dropped ones, and the bytes freed.
func (inv *inventory) plan(kp keptSet) (repack []plumbing.Hash, dropped int, freed int64) {
	seen := map[plumbing.Hash]bool{}
	consider := func(h plumbing.Hash, size int64, wasLoose bool) {
		if seen[h] {
			freed += size // a second copy
			return
		}
		seen[h] = true
		switch {
		case inv.inRecent[h]:
			freed += size
		case kp.all || kp.ids[h] || (wasLoose && inv.looseRecent[h]):
			repack = append(repack, h)
		default:
			dropped++
			freed += size
		}
	}
	for _, p := range inv.old {
		for _, h := range p.ids {
			consider(h, p.sizes[h], false)
		}
	}
	for _, h := range inv.loose {
		consider(h, inv.looseSize[h], true)
	}
	return repack, dropped, freed
}

// replacePacks writes the new packs, checks that every kept object is in
// one, then removes the loose objects and the old packs.
func (e *Engine) replacePacks(ctx context.Context, st *filesystem.Storage, dir string, inv *inventory, repack []plumbing.Hash) error {
	written, err := e.repack(ctx, st, repack)
	if err != nil {
		return fmt.Errorf("repack: %w", err)
	}
	inNew := map[plumbing.Hash]bool{}
	for h := range written {
		_, ids, err := readIdx(filepath.Join(dir, "objects", "pack", "pack-"+h.String()+".idx"))
		if err != nil {
			return fmt.Errorf("repack: %w; nothing was removed", err)
		}
		for _, id := range ids {
			inNew[id] = true
		}
	}
	for _, h := range repack {
		if !inNew[h] {
			return fmt.Errorf("repack: object %s is missing from the new packs; nothing was removed", h)
		}
	}
	for _, h := range inv.loose {
		if err := st.DeleteLooseObject(h); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	for _, p := range inv.old {
		if written[p.hash] {
			continue
		}
		if err := st.DeleteOldObjectPackAndIndex(p.hash, time.Time{}); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// readPacks lists dir's packs with their objects; a pack whose file was
// written at or after cutoff is recent.
func readPacks(dir string, cutoff time.Time) ([]*packInfo, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "objects", "pack", "pack-*.pack"))
	if err != nil {
		return nil, err
	}
	var out []*packInfo
	for _, m := range matches {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m), "pack-"), ".pack")
		if len(name) != 40 || !isHex(name) {
			continue
		}
		fi, err := os.Stat(m)
		if err != nil {
			return nil, err
		}
		idxPath := strings.TrimSuffix(m, ".pack") + ".idx"
		idx, ids, err := readIdx(idxPath)
		if err != nil {
			return nil, fmt.Errorf("read the index of %s: %w (delete the pack and its index; ctx fetches what it needs again)", m, err)
		}
		p := &packInfo{hash: plumbing.NewHash(name), recent: !fi.ModTime().Before(cutoff), ids: ids, bytes: fi.Size()}
		if ifi, err := os.Stat(idxPath); err == nil {
			p.bytes += ifi.Size()
		}
		p.sizes = packedSizes(idx, ids, fi.Size())
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].hash.String() < out[j].hash.String() })
	return out, nil
}

// packedSizes is the bytes each object takes in a pack of packSize bytes:
// the distance to the next object's offset (the last one ends at the
// 20-byte checksum).
func packedSizes(idx *idxfile.MemoryIndex, ids []plumbing.Hash, packSize int64) map[plumbing.Hash]int64 {
	type at struct {
		h   plumbing.Hash
		off int64
	}
	offs := make([]at, 0, len(ids))
	for _, h := range ids {
		if off, err := idx.FindOffset(h); err == nil {
			offs = append(offs, at{h, off})
		}
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i].off < offs[j].off })
	sizes := make(map[plumbing.Hash]int64, len(offs))
	for i, a := range offs {
		end := packSize - 20
		if i+1 < len(offs) {
			end = offs[i+1].off
		}
		sizes[a.h] = max(end-a.off, 0)
	}
	return sizes
}

// repack writes objs into new packs of at most repackChunk bytes of
// objects each, indexed and renamed into place by writePack, and returns
// the packs written. go-git's encoder writes them: objects up to
// largeObject with a delta window of 10 (git's default), which holds them
// in memory; larger ones without deltas, so that they are streamed from
// the store rather than read whole.
func (e *Engine) repack(ctx context.Context, st *filesystem.Storage, objs []plumbing.Hash) (map[plumbing.Hash]bool, error) {
	written := map[plumbing.Hash]bool{}
	encode := func(chunk []plumbing.Hash, window uint) error {
		if len(chunk) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			_, err := packfile.NewEncoder(pw, st, false).Encode(chunk, window)
			pw.CloseWithError(err)
			done <- err
		}()
		h, err := writePack(st, pr)
		pr.CloseWithError(errors.New("pack not read to its end"))
		if eerr := <-done; eerr != nil && err == nil {
			err = eerr
		}
		if err != nil {
			return err
		}
		written[h] = true
		return nil
	}
	type batch struct {
		ids  []plumbing.Hash
		size int64
	}
	var small, large batch
	for _, h := range objs {
		n, err := st.EncodedObjectSize(h)
		if err != nil {
			return nil, fmt.Errorf("object %s: %w", h, err)
		}
		b, window := &small, uint(10)
		if n > largeObject {
			b, window = &large, 0
		}
		if b.size+n > repackChunk && len(b.ids) > 0 {
			if err := encode(b.ids, window); err != nil {
				return nil, err
			}
			*b = batch{}
		}
		b.ids = append(b.ids, h)
		b.size += n
	}
	if err := encode(small.ids, 10); err != nil {
		return nil, err
	}
	if err := encode(large.ids, 0); err != nil {
		return nil, err
	}
	return written, nil
}

// removeEmptyLooseDirs removes the objects/xx folders left empty.
func removeEmptyLooseDirs(dir string) {
	ents, _ := os.ReadDir(filepath.Join(dir, "objects"))
	for _, en := range ents {
		if en.IsDir() && len(en.Name()) == 2 && isHex(en.Name()) {
			_ = os.Remove(filepath.Join(dir, "objects", en.Name())) // fails unless empty
		}
	}
}

// sweepTempPacks removes tmp_pack_* files older than staleTemp: crashed
// fetches' leftovers (gc holds the fetch lock, so none is being written).
func sweepTempPacks(dir string, now time.Time) {
	tmps, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "tmp_pack_*"))
	for _, p := range tmps {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > staleTemp {
			_ = os.Remove(p)
		}
	}
}

// pruneRecords drops the uses older than the keep period from ctx-used.json
// (unless it could not be read) and the commits no longer present from
// ctx-commits (one that is not a record ctx reads, too large or no regular
// file, is replaced by an empty one).
func pruneRecords(st *filesystem.Storage, dir string, uses *useFile, recent []use, keepAll bool) error {
	if !keepAll && len(recent) != len(uses.Used) {
		uses.Used = recent
		if err := writeUses(dir, uses); err != nil {
			return err
		}
	}
	data, err := readCommitsRecord(dir)
	var be *boundedfile.Error
	switch {
	case errors.As(err, &be) && !be.Mode.IsDir():
		// Not a record ctx wrote (over the bound, a fifo): never read,
		// so written again, empty, as no record at all (review of own21:
		// it was left, and a fetch offered no haves from then on).
		data = nil
	case err != nil:
		return nil
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); len(l) == 40 && isHex(l) && st.HasEncodedObject(plumbing.NewHash(l)) == nil {
			lines = append(lines, l+"\n")
		}
	}
	return atomicfile.WriteFile(filepath.Join(dir, "ctx-commits"), []byte(strings.Join(lines, "")), 0o644)
}

// keeper marks the objects a used commit keeps.
type keeper struct {
	st        *filesystem.Storage
	keep      map[plumbing.Hash]bool
	trees     map[plumbing.Hash]bool // trees walked for the commit's trees
	blobTrees map[plumbing.Hash]bool // trees walked for their blobs
}

// commit keeps commit c, all its trees, and the blobs under sub; it reports
// whether c is in the store. Objects that are missing (a partial store) are
// passed over.
func (k *keeper) commit(c plumbing.Hash, sub string) bool {
	co, err := object.GetCommit(k.st, c)
	if err != nil {
		return false
	}
	k.keep[c] = true
	k.walkTrees(co.TreeHash, 0)
	h, mode, ok := k.find(co.TreeHash, sub)
	switch {
	case !ok:
	case mode == filemode.Dir:
		k.walkBlobs(h, 0)
	case mode != filemode.Submodule:
		k.keep[h] = true
	}
	return true
}

// walkTrees keeps tree t and every tree below it.
func (k *keeper) walkTrees(t plumbing.Hash, depth int) {
	if k.trees[t] || depth > naming.MaxDepth {
		return
	}
	k.trees[t] = true
	tree, err := object.GetTree(k.st, t)
	if err != nil {
		return
	}
	k.keep[t] = true
	for _, en := range tree.Entries {
		if en.Mode == filemode.Dir {
			k.walkTrees(en.Hash, depth+1)
		}
	}
}

// walkBlobs keeps the blobs below tree t.
func (k *keeper) walkBlobs(t plumbing.Hash, depth int) {
	if k.blobTrees[t] || depth > naming.MaxDepth {
		return
	}
	k.blobTrees[t] = true
	tree, err := object.GetTree(k.st, t)
	if err != nil {
		return
	}
	for _, en := range tree.Entries {
		switch en.Mode {
		case filemode.Dir:
			k.walkBlobs(en.Hash, depth+1)
		case filemode.Submodule:
		default:
			k.keep[en.Hash] = true
		}
	}
}

// find walks from the root tree to sub ("" is the root itself).
func (k *keeper) find(root plumbing.Hash, sub string) (plumbing.Hash, filemode.FileMode, bool) {
	h, mode := root, filemode.Dir
	if sub == "" {
		return h, mode, true
	}
	for _, name := range strings.Split(path.Clean(sub), "/") {
		if mode != filemode.Dir {
			return plumbing.ZeroHash, 0, false
		}
		tree, err := object.GetTree(k.st, h)
		if err != nil {
			return plumbing.ZeroHash, 0, false
		}
		found := false
		for _, en := range tree.Entries {
			if en.Name == name {
				h, mode, found = en.Hash, en.Mode, true
				break
			}
		}
		if !found {
			return plumbing.ZeroHash, 0, false
		}
	}
	return h, mode, true
}
