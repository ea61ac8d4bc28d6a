package mcpserver

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/fsnotify/fsnotify"
)

const (
	// maxWatchDirs bounds the folders watched for all dir sources together
	// (each is an inotify watch, a limited resource). Past it the server
	// falls back to the stat comparison at request time.
	maxWatchDirs = 4096
	// watchSettle is how long a burst of changes must be quiet before a
	// re-index starts (a save writes, renames and chmods; a checkout
	// touches many files).
	watchSettle = 200 * time.Millisecond
)

// dirWatch watches the folders of the dir sources, so that an edit, a new
// file or a deleted file shows up in search and get_document without a
// call having to find it first. Where it cannot watch (too many folders,
// a file system without notifications), the stat comparison of freshen
// (a full check in the background at most every recheckAfter) still
// picks edits up.
type dirWatch struct {
	key  string // the dirs watched (watchKey), to tell when they change
	w    *fsnotify.Watcher
	only map[string]string // folder → the one file watched in it (single-file sources)
	n    int               // folders watched
}

// watchKey identifies what the live packages need watched.
func watchKey(live map[string]indexer.Package) string {
	var parts []string
	for _, p := range live {
		parts = append(parts, p.Dir+"\x00"+p.Only)
	}
	slices.Sort(parts)
	return strings.Join(parts, "\x01")
}

// rewatchLocked makes the watch match snap's dir sources: it stops the old one
// and starts a new one when they changed. The caller holds s.mu.
func (s *Server) rewatchLocked(snap snapshot) {
	key := watchKey(snap.live)
	if s.watch != nil && s.watch.key == key {
		return
	}
	if s.watch != nil {
		s.watch.w.Close() // its loop ends when Events closes
		s.watch = nil
	}
	if len(snap.live) == 0 || s.life.Err() != nil {
		return
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		s.log.Warn("cannot watch dir sources; edits are found by comparing files at request time", "error", err)
		return
	}
	dw := &dirWatch{key: key, w: w, only: map[string]string{}}
	for _, p := range snap.live {
		if !p.Present() {
			continue
		}
		if p.Only != "" {
			dw.only[p.Dir] = p.Only
			err = dw.add(p.Dir)
		} else {
			err = dw.addTree(p.Dir)
		}
		if err != nil {
			s.log.Warn("cannot watch dir source "+p.Source+"; edits are found by comparing files at request time", "error", err)
			w.Close()
			return
		}
	}
	s.watch = dw
	s.bg.Add(1)
	go s.watchLoop(dw)
}

// add watches one folder, within maxWatchDirs.
func (dw *dirWatch) add(dir string) error {
	if dw.n >= maxWatchDirs {
		return errTooManyDirs
	}
	if err := dw.w.Add(dir); err != nil {
		return err
	}
	dw.n++
	return nil
}

var errTooManyDirs = &kindError{msg: "more than 4096 folders to watch", kind: fs.ErrInvalid}

// addTree watches root and its folders, as markdown.Walk walks them: hidden
// folders (.git, .context) are not entered and symbolic links not followed.
func (dw *dirWatch) addTree(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable folder: the indexer notes it
		}
		if !d.IsDir() {
			return nil
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		return dw.add(p)
	})
}

// relevant reports whether ev may change what a dir source holds: not a
// hidden file, and in a single-file source's folder only that file.
func (dw *dirWatch) relevant(ev fsnotify.Event) bool {
	name := filepath.Base(ev.Name)
	if strings.HasPrefix(name, ".") {
		return false
	}
	if only, ok := dw.only[filepath.Dir(ev.Name)]; ok && name != only {
		// The folder of a single-file source may also be part of a folder
		// source (AGENTS.md and "." both): then every file counts.
		return dw.inTree(filepath.Dir(ev.Name))
	}
	return true
}

// inTree reports whether dir is watched as part of a folder source, not
// only for a single file.
func (dw *dirWatch) inTree(dir string) bool {
	for _, p := range strings.Split(dw.key, "\x01") {
		d, only, _ := strings.Cut(p, "\x00")
		if only == "" && (dir == d || strings.HasPrefix(dir, d+string(filepath.Separator))) {
			return true
		}
	}
	return false
}

// watchLoop waits for changes; when a burst of them has settled it marks the
// index stale and re-indexes in the background, so the next call answers
// from the new files. A new folder is watched too. It ends when the server
// closes or the watch is replaced.
func (s *Server) watchLoop(dw *dirWatch) {
	defer s.bg.Done()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	for {
		select {
		case <-s.life.Done():
			dw.w.Close()
			return
		case ev, ok := <-dw.w.Events:
			if !ok {
				return
			}
			if !dw.relevant(ev) {
				continue
			}
			if ev.Has(fsnotify.Create) && dw.inTree(filepath.Dir(ev.Name)) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
					if err := dw.addTree(ev.Name); err != nil {
						s.log.Warn("cannot watch a new folder of a dir source; its edits are found by comparing files at request time", "folder", ev.Name, "error", err)
					}
				}
			}
			settle.Reset(watchSettle)
		case err, ok := <-dw.w.Errors:
			if !ok {
				return
			}
			// An overflow drops events: re-check everything.
			s.log.Warn("watching dir sources", "error", err)
			settle.Reset(watchSettle)
		case <-settle.C:
			s.bg.Add(1) // the loop's own count is held: Close has not passed Wait
			go func() {
				defer s.bg.Done()
				s.changedOnDisk()
			}()
		}
	}
}

// changedOnDisk marks the index stale and brings it up to date in the
// background (freshen, as a call would).
func (s *Server) changedOnDisk() {
	s.mu.Lock()
	job := s.job
	s.mu.Unlock()
	if job != nil { // it may have walked the files before this change
		select {
		case <-job.done:
		case <-s.life.Done():
			return
		}
	}
	s.mu.Lock()
	s.fresh.fresh = false
	s.mu.Unlock()
	s.freshen(s.life, nil, s.snapshot())
}
