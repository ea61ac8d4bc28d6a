package workspace

// Crash safety. Every change to a package goes through the same steps:
//
//  1. stage:   Materialize into .tmp/<alias>.new, hash it, write the state it
//              will have to .tmp/<alias>.state (not for a patch: its journal
//              carries what the state changes by, stateDelta, and the state
//              is written once, in step 3).
//  2. journal: write .tmp/<alias>.journal (atomically): what the lock and the
//              manifest will say. From here on the change rolls forward.
//  3. swap:    packages/<alias> → .tmp/<alias>.old, .tmp/<alias>.new →
//              packages/<alias>, .tmp/<alias>.state → .state/<alias>.json.
//              An installed package whose state ctx has is patched instead
//              (op "patch", patch.go): only the files that change move,
//              each to or from the same places.
//  4. commit:  write the lock and the manifest (each atomically), then delete
//              .tmp/<alias>.old and the journal.
//
// The swap keeps what it replaces (.tmp/<alias>.old, .tmp/<alias>.oldstate)
// until the commit, so when a write fails after the journal (a full disk:
// the swap cannot finish or the lock cannot be written) unswap puts the
// package back as it was and drops the journal: the lock, which still names
// the old commit, describes the disk again.
//
// Open runs recovery first: every journal left behind is rolled forward
// (steps 3 and 4 are idempotent), everything else in .tmp/ is deleted, which
// rolls back changes that never reached step 2. So after a crash at any
// moment each package is either as it was or as it should be, and the lock
// (always replaced by rename) is parseable and true to the disk.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
)

// Journal operations.
const (
	opInstall = "install" // packages/<alias> becomes .tmp/<alias>.new; lock gets Entry
	opPatch   = "patch"   // packages/<alias> changes file by file as Patch says (patch.go); lock gets Entry
	opRemove  = "remove"  // packages/<alias> goes; lock entry goes
	opLock    = "lock"    // only the lock entry changes (the files already match)
	opLink    = "link"    // only the manifest gets AddSpec (a dir source: no files, no lock entry)
	opForget  = "forget"  // only the manifest drops the spec (a dir source: its files are the user's)
)

type journal struct {
	Alias    string               `json:"alias"`
	Op       string               `json:"op"`
	Entry    *lockfile.Entry      `json:"entry,omitempty"`
	AddSpec  *project.PackageSpec `json:"addSpec,omitempty"`  // add to the manifest
	AddLocal bool                 `json:"addLocal,omitempty"` // AddSpec goes to context.local.json (PackageSpec.Local)
	AddAllow string               `json:"addAllow,omitempty"` // AddSpec's source leads here, outside the project: allowed in context.local.json (project.Manifest.Allow)
	// AddAllowWeb is what AddSpec (an https spec the user typed) asks of
	// this machine: allowed in context.local.json (project.Manifest.AllowWeb).
	AddAllowWeb *project.WebAllow `json:"addAllowWeb,omitempty"`
	// AddAllowInside lets AddSpec (a dir spec the user typed, inside the
	// project) serve its files git does not track: allowed in
	// context.local.json (project.Manifest.AllowInside).
	AddAllowInside *project.InsideAllow `json:"addAllowInside,omitempty"`
	DropSpec       bool                 `json:"dropSpec,omitempty"` // drop from the manifest
	Patch          *patch               `json:"patch,omitempty"`    // opPatch: the files that change
	// State is what opPatch changes in the package's state (patch.go):
	// nothing is staged in .tmp/<alias>.state before the journal, and
	// the state is written once, after the files are in place. nil in a
	// patch journal of an older ctx, which staged the whole state.
	State *stateDelta `json:"state,omitempty"`

	// staged is the state the change staged (written to
	// .tmp/<alias>.state before the journal, or, for a patch with State,
	// what State makes of the old state), in memory (not in the journal's
	// file): swap need not read it back nor work it out. nil for a journal
	// read from disk (recovery).
	staged *pkgState
}

// stagedState is the state j's change staged at p: j.staged (a copy),
// else read from p.
func (j *journal) stagedState(p string) (*pkgState, error) {
	if j.staged == nil {
		return readStateFile(p)
	}
	s := *j.staged
	s.Files = slices.Clone(s.Files)
	return &s, nil
}

func (w *Workspace) tmp(name string) string { return w.path(project.TmpDir, name) }

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// stageDir is where a package is materialized before the swap.
func (w *Workspace) stageDir(alias string) string { return w.tmp(alias + ".new") }

// discardStage removes what stage left for alias (before a journal exists).
func (w *Workspace) discardStage(alias string) {
	w.fs.RemoveAll(w.tmp(alias + ".new"))
	w.fs.Remove(w.tmp(alias + ".state"))
}

// fault is the one seam where tests make a write fail (the disk is full):
// it is called before every write or rename of a package's change, with
// point "write:<what>", and its error is returned as the write's.
func (w *Workspace) fault(point, alias string) error {
	if w.opts.testHook == nil {
		return nil
	}
	return w.opts.testHook("write:"+point, alias)
}

// diskFull says plainly that the disk is full when err is ENOSPC.
func diskFull(err error) error {
	if err != nil && errors.Is(err, syscall.ENOSPC) && !strings.Contains(err.Error(), "the disk is full") {
		return fmt.Errorf("the disk is full: %w (free some space and run the command again)", err)
	}
	return err
}

func (w *Workspace) writeJournal(j *journal) error {
	if err := w.fault("journal", j.Alias); err != nil {
		return err
	}
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	return w.fs.WriteFileAtomic(w.tmp(j.Alias+".journal"), append(data, '\n'), 0o644)
}

// setAside moves a package's folder pkg to old (.tmp/<alias>.old),
// removing whatever an earlier change left there: the first step of
// replacing the folder (an install) or removing it, with the fault point
// "swap-old" between the two.
func (w *Workspace) setAside(alias, pkg, old string) error {
	if err := w.fs.RemoveAll(old); err != nil {
		return err
	}
	if err := w.fault("swap-old", alias); err != nil {
		return err
	}
	return w.fs.Rename(pkg, old)
}

// swap does step 3 for j. It is idempotent: recovery runs it again.
func (w *Workspace) swap(j *journal) error {
	pkg, old, nw := w.pkgDir(j.Alias), w.tmp(j.Alias+".old"), w.tmp(j.Alias+".new")
	oldState := w.tmp(j.Alias + ".oldstate")
	switch j.Op {
	case opInstall:
		if exists(nw) {
			if exists(pkg) {
				if err := w.setAside(j.Alias, pkg, old); err != nil {
					return err
				}
			}
			if err := w.fault("swap-new", j.Alias); err != nil {
				return err
			}
			if err := w.fs.MkdirAll(filepath.Dir(pkg), 0o755); err != nil {
				return err
			}
			if err := w.fs.Rename(nw, pkg); err != nil {
				return err
			}
			atomicfile.SyncDir(filepath.Dir(pkg))
		}
		return w.swapState(j, nil)
	case opPatch:
		if j.Patch == nil {
			return errors.New("journal: a patch without its changes")
		}
		if err := w.patchForward(j); err != nil {
			return err
		}
		return w.swapState(j, func(st *pkgState) error { return w.refreshState(j, st) })
	case opRemove:
		if exists(pkg) {
			if err := w.setAside(j.Alias, pkg, old); err != nil {
				return err
			}
			atomicfile.SyncDir(filepath.Dir(pkg))
		}
		if exists(w.statePath(j.Alias)) {
			if err := w.fs.Rename(w.statePath(j.Alias), oldState); err != nil {
				return err
			}
		}
	}
	return nil
}

// swapState puts the state the change staged (.tmp/<alias>.state) in
// place, keeping the one it replaces as .tmp/<alias>.oldstate. refresh,
// when set, first updates the staged state from the disk (written back to
// .tmp/, so a crash leaves it where recovery looks). A patch with a
// State stages no file before its journal: its state is State applied
// to the old state (patchedState), refreshed and written here, once.
func (w *Workspace) swapState(j *journal, refresh func(*pkgState) error) error {
	st := w.tmp(j.Alias + ".state")
	if !exists(st) && j.State == nil {
		return nil
	}
	if j.State != nil && j.staged == nil && !exists(st) && w.stateHasHead(j.Alias, j.State.Head) {
		// Recovery after the state was written: its stamps are the files'
		// as the patch left them. Stamping them again from the disk would
		// vouch for an edit made since the crash.
		return nil
	}
	if err := w.fault("swap-state", j.Alias); err != nil {
		return err
	}
	if refresh != nil {
		s, err := w.patchedState(j, st)
		if err == nil {
			err = refresh(s)
		}
		if err == nil {
			err = w.writeStagedState(st, s)
		}
		if err != nil {
			return err
		}
	}
	if err := w.fs.MkdirAll(w.path(project.StateDir), 0o755); err != nil {
		return err
	}
	oldState := w.tmp(j.Alias + ".oldstate")
	if exists(w.statePath(j.Alias)) && !exists(oldState) {
		if err := w.fs.Rename(w.statePath(j.Alias), oldState); err != nil {
			return err
		}
	}
	return w.fs.Rename(st, w.statePath(j.Alias))
}

// stateHasHead says the state in place for alias is the one head
// describes (commit, tree and content hash): a patch's new state, written
// before a crash. A patch's old state has another content hash unless
// the patch changed nothing but stamps, which the guard checks again.
func (w *Workspace) stateHasHead(alias string, head *pkgState) bool {
	cur, err := readStateFile(w.statePath(alias))
	return err == nil && cur.Rev == head.Rev && cur.Tree == head.Tree && cur.Hash == head.Hash
}

// patchedState is the state j's change staged: in memory (j.staged), else
// read from st, else, for a patch with State read back from disk, State
// applied to the old state: .tmp/<alias>.oldstate once the swap moved it
// there, else .state/<alias>.json (applying it to the new state, once in
// place, gives the new state again). A package whose old state is gone
// is scanned (every file hashed), as inspect rebuilds a lost state.
func (w *Workspace) patchedState(j *journal, st string) (*pkgState, error) {
	if j.State == nil || j.staged != nil {
		return j.stagedState(st)
	}
	if err := j.State.check(); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	base := w.tmp(j.Alias + ".oldstate")
	if !exists(base) {
		base = w.statePath(j.Alias)
	}
	old, err := readStateFile(base)
	if errors.Is(err, fs.ErrNotExist) {
		h := j.State.Head
		old, err = scanState(w.pkgDir(j.Alias), h.Rev, h.Tree, h.Hash)
	}
	if err != nil {
		return nil, fmt.Errorf("record state: %w", err)
	}
	return j.State.apply(old), nil
}

// unswap undoes swap (all of it or the part that happened) while the old
// folder and state are still in .tmp/, then drops the journal and what was
// staged: the package is as it was before the command. Renames back need no
// space.
func (w *Workspace) unswap(j *journal) error {
	pkg, old, nw := w.pkgDir(j.Alias), w.tmp(j.Alias+".old"), w.tmp(j.Alias+".new")
	st, oldState := w.tmp(j.Alias+".state"), w.tmp(j.Alias+".oldstate")
	if j.Op == opInstall || j.Op == opPatch {
		// The state in place is the change's, unless the swap never moved
		// the old one (a patch with State stages no file before it).
		if !exists(st) && exists(w.statePath(j.Alias)) && (j.State == nil || exists(oldState)) {
			if err := w.fs.Rename(w.statePath(j.Alias), st); err != nil {
				return err
			}
		}
	}
	if j.Op == opPatch && j.Patch != nil {
		if err := w.patchBack(j); err != nil {
			return err
		}
	}
	if j.Op == opInstall {
		if !exists(nw) && exists(pkg) {
			if err := w.fs.Rename(pkg, nw); err != nil {
				return err
			}
		}
	}
	if j.Op == opInstall || j.Op == opPatch || j.Op == opRemove {
		if exists(oldState) && !exists(w.statePath(j.Alias)) {
			if err := w.fs.Rename(oldState, w.statePath(j.Alias)); err != nil {
				return err
			}
		}
		if exists(old) && !exists(pkg) {
			if err := w.fs.Rename(old, pkg); err != nil {
				return err
			}
		}
	}
	atomicfile.SyncDir(filepath.Dir(pkg))
	if err := w.fs.Remove(w.tmp(j.Alias + ".journal")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	w.discardStage(j.Alias)
	w.fs.RemoveAll(old)
	w.fs.Remove(oldState)
	return nil
}

// commit does step 4 for js: one write of the lock and one of the manifest,
// then the clean-up. With frozen, the lock is left alone.
func (w *Workspace) commit(js []*journal, frozen bool) error {
	if len(js) == 0 {
		return nil
	}
	sort.Slice(js, func(a, b int) bool { return js[a].Alias < js[b].Alias })
	l, err := w.readLock()
	if err != nil {
		return err
	}
	m := w.Manifest()
	manifestChanged, lockChanged := false, false
	for _, j := range js {
		lockChanged = lockChanged || (j.Op != opLink && j.Op != opForget)
		switch j.Op {
		case opInstall, opPatch, opLock:
			if j.Entry != nil {
				l.Packages[j.Alias] = *j.Entry
			}
		case opRemove:
			delete(l.Packages, j.Alias)
		}
		if j.AddSpec != nil {
			if _, ok := m.Spec(j.Alias); !ok {
				spec := *j.AddSpec
				spec.Local = j.AddLocal
				m.Packages = append(m.Packages, spec)
				manifestChanged = true
			}
		}
		if j.AddAllow != "" && !m.Allows(j.AddAllow) {
			m.AddAllow(j.AddAllow)
			manifestChanged = true
		}
		if a := j.AddAllowWeb; a != nil && !m.AllowsWeb(*a) {
			m.AllowWeb = append([]project.WebAllow(nil), m.AllowWeb...)
			m.AddAllowWeb(*a)
			manifestChanged = true
		}
		if a := j.AddAllowInside; a != nil && !m.AllowsInside(*a) {
			m.AllowInside = append([]project.InsideAllow(nil), m.AllowInside...)
			m.AddAllowInside(*a)
			manifestChanged = true
		}
		if j.DropSpec {
			for i, p := range m.Packages {
				if p.Alias == j.Alias {
					m.Packages = append(m.Packages[:i:i], m.Packages[i+1:]...)
					manifestChanged = true
					break
				}
			}
		}
	}
	w.syncStateDir(js)
	if !frozen && lockChanged {
		err := w.fault("lock", js[0].Alias)
		if err == nil {
			err = w.writeLock(l)
		}
		if err != nil {
			// The lock still names what was there before: put it back.
			var undo []error
			for _, j := range js {
				if uerr := w.unswap(j); uerr != nil {
					undo = append(undo, fmt.Errorf("%s: %w", j.Alias, uerr))
				}
			}
			if len(undo) > 0 {
				return diskFull(fmt.Errorf("write lock: %w; the packages could not be put back (%w): run ctx again to finish the change", err, errors.Join(undo...)))
			}
			return diskFull(fmt.Errorf("write lock: %w; nothing was changed", err))
		}
	}
	if manifestChanged {
		err := w.fault("manifest", js[0].Alias)
		if err == nil {
			err = w.writeManifest(&m)
		}
		if err != nil {
			// The lock is written and true to the disk; only the manifest lags.
			return diskFull(fmt.Errorf("write manifest: %w (the lock and the packages are up to date; run the command again to record the change in %s)", err, project.Rel(project.ManifestName)))
		}
	}
	if err := w.hook("locked", js[0].Alias); err != nil {
		return err
	}
	for _, j := range js {
		if err := w.fs.RemoveAll(w.tmp(j.Alias + ".old")); err != nil {
			w.log("warning: could not delete %s: %v", w.tmp(j.Alias+".old"), err)
		}
		w.fs.RemoveAll(w.tmp(j.Alias + ".new")) // what a patch did not need
		w.fs.Remove(w.tmp(j.Alias + ".oldstate"))
		w.fs.Remove(w.tmp(j.Alias + ".journal"))
	}
	return nil
}

// syncStateDir flushes .state/'s entries once the swaps of js renamed
// their states into it (and the old ones out), before the lock commits
// them and the journals go: a commit point of its own. Up to round 21 an
// update had it only by the way, from the previous lock's write (a cache
// since upd22), and an install not at all (rv-upd22).
func (w *Workspace) syncStateDir(js []*journal) {
	for _, j := range js {
		if j.Op == opInstall || j.Op == opPatch || j.Op == opRemove {
			atomicfile.SyncDir(w.path(project.StateDir))
			if w.opts.testHook != nil {
				_ = w.opts.testHook("synced:"+project.StateDir, "")
			}
			return
		}
	}
}

// recover finishes or undoes what an interrupted run left in .tmp/.
func (w *Workspace) recover() error {
	if err := w.fs.Check(project.TmpDir); err != nil {
		return err
	}
	ents, err := os.ReadDir(w.path(project.TmpDir))
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(ents) == 0) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("recover: %w", err)
	}
	var js []*journal
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".journal") || strings.HasPrefix(name, ".") {
			continue
		}
		// Bounded, and never waiting on a fifo (red23: a fifo named as a
		// journal hung every command, status and search included); an
		// unreadable one is ignored, then removed with what is left.
		data, err := boundedfile.ReadFile(w.tmp(name), project.MaxStateBytes)
		var j journal
		if err == nil {
			err = json.Unmarshal(data, &j)
		}
		if err != nil || j.Alias+".journal" != name {
			w.log("warning: ignoring unreadable journal %s: %v", w.tmp(name), err)
			continue
		}
		js = append(js, &j)
	}
	for _, j := range js {
		w.notice("recovering an interrupted %s of %s", j.Op, j.Alias)
		if err := w.swap(j); err != nil {
			return fmt.Errorf("recover %s: %w (fix the problem and run ctx again; nothing was lost: see %s)", j.Alias, err, w.path(project.TmpDir))
		}
	}
	if err := w.commit(js, false); err != nil {
		return fmt.Errorf("recover: %w", err)
	}
	// What is left never reached its journal: roll it back by deleting it.
	ents, _ = os.ReadDir(w.path(project.TmpDir))
	for _, e := range ents {
		if err := w.fs.RemoveAll(w.tmp(e.Name())); err != nil {
			w.log("warning: could not delete %s: %v", w.tmp(e.Name()), err)
		}
	}
	return nil
}
