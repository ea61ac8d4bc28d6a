package indexer

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/confine"
)

// durable is one durability pass over the index's derived files (issue
// 31): the catalogue's new parts and its top, written while meta.json says
// dirty, and recent.json, always (also before the mark or with none: a
// crash before the pass may lose the record, which then reads as none,
// readRecent, and INDEX.md's "Recently changed" is left out until the next
// update). Each is still written whole through a temporary file
// renamed over it (a reader sees the old file or the new one), but with
// no fsync of its own; sync makes them all durable at once, their fsyncs
// issued together and each folder synced once, and publish calls it
// before the meta.json that publishes them. A crash before that leaves
// meta.json dirty when the catalogue was written (its mark was synced before the first write into the
// live directory), so whatever a crash left of those files, torn or old,
// is rebuilt, never served (rebuildReason, Reader.FreshnessContext).
// A nil *durable writes as writeFileAtomic does (fsync, rename, folder
// fsync, one after another).
type durable struct {
	mu     sync.Mutex
	paths  []string
	synced func(paths []string) // Options.durableSynced (tests)
}

// write writes data to path (inside d) atomically; later defers its fsync
// to sync (s must not be nil then).
func (s *durable) write(d confine.Dir, path string, data []byte, later bool) error {
	if s == nil || !later {
		return writeFileAtomic(d, path, data)
	}
	if err := d.WriteCacheAtomic(path, data, 0o644); err != nil {
		return err
	}
	s.mu.Lock()
	s.paths = append(s.paths, path)
	s.mu.Unlock()
	return nil
}

// writeJSON is write of v's JSON and a newline.
func (s *durable) writeJSON(d confine.Dir, path string, v any, later bool) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.write(d, path, append(b, '\n'), later)
}

// sync makes every file written with later durable: each file's fsync
// and each of their folders' (once), all issued at once, waited for. A
// file that cannot be synced is an error (publish then leaves meta.json
// dirty); a folder's sync is best effort, as atomicfile.SyncDir's.
func (s *durable) sync() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	paths := s.paths
	s.paths = nil
	s.mu.Unlock()
	if len(paths) == 0 {
		return nil
	}
	dirs := map[string]bool{}
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		dirs[filepath.Dir(p)] = true
		wg.Go(func() { errs[i] = syncFile(p) })
	}
	for dir := range dirs {
		wg.Go(func() { atomicfile.SyncDir(dir) })
	}
	wg.Wait()
	if s.synced != nil {
		s.synced(paths)
	}
	return errors.Join(errs...)
}

// syncFile fsyncs the file at path (opened for writing: Windows flushes
// no file opened read-only).
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
