package workspace

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ctx-dev/ctx/changes"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/source/kinds"
)

// execute does what p says, package by package in parallel (each one
// stage, journal, swap: see txn.go), then commits their journals (one write
// of the lock and of the manifest) and brings the index up to date. When
// it fetches, the index is brought up to date as packages land (an
// indexer.Stream: each package is parsed, and on a first build indexed,
// while the others are still being fetched); what readers see changes
// only at the end, after the commit. A step
// that fails turns its package's planned result into Failed or Skipped.
func (w *Workspace) execute(ctx context.Context, p *plan) (*Report, error) {
	ts := p.tasks
	if err := w.fs.MkdirAll(project.TmpDir, 0o755); err != nil {
		return nil, err
	}
	stamp := now()
	w.attachEngine(ts)
	go indexer.Prepare(w.Dir()) // while the fetches wait on the network
	var sum *pendingChanges
	iopts := w.indexOptions(indexer.Options{})
	if p.summarize {
		sum = &pendingChanges{done: make(chan struct{})}
		iopts.Recent = sum.recent
	}
	stream := w.startIndex(ctx, ts, iopts)
	parallel(len(ts), w.opts.Jobs, func(i int) {
		if err := ctx.Err(); err != nil {
			ts[i].fail(err)
			return
		}
		w.apply(ctx, ts[i], p.force, stamp)
		if t := ts[i]; stream != nil && t.step == stepInstall && t.j != nil {
			// Swapped in: its files are where the index reads them.
			if pkg := (indexer.Package{Alias: t.alias, Kind: t.kind()}); t.j.Patch != nil {
				stream.LandedFiles(pkg, t.j.Patch.paths()) // the index reads those, not the folder
			} else {
				stream.Landed(pkg)
			}
		}
	})
	if stream != nil {
		stream.AllLanded() // the index opens for writing while the lock is committed
	}
	var js []*journal
	for _, t := range ts {
		if errors.Is(t.res.Err, errStopped) {
			abortIndex(stream)
			return nil, t.res.Err // a simulated crash: leave everything as it is
		}
		if t.j != nil {
			js = append(js, t.j)
		}
	}
	if err := w.commit(js, p.frozen); err != nil {
		abortIndex(stream)
		return nil, err
	}
	rep := p.report()
	changed := false
	for _, r := range rep.Packages {
		switch r.Action {
		case Installed, Updated, Removed, Linked:
			changed = true
		}
	}
	if err := w.hook("committed", ""); err != nil {
		abortIndex(stream)
		return rep, err // a simulated crash after the commit
	}
	if err := ctx.Err(); err != nil {
		// Ctrl-C after the commit: the packages are in place, the index
		// is not (a first build leaves none); the next install, update
		// or setup builds it (IndexStale), as ctx index does.
		abortIndex(stream)
		w.warnIndexInterrupted()
		return rep, err
	}
	if sum != nil {
		states := map[string]*pkgState{}
		for _, t := range ts {
			if t.j != nil && t.j.staged != nil {
				states[t.alias] = t.j.staged
			}
		}
		go sum.work(ctx, w, rep, states)
	}
	if changed || w.IndexStale() {
		rep.Index = w.syncIndex(ctx, stream, iopts)
	} else {
		abortIndex(stream)
	}
	if sum != nil {
		<-sum.done
		rep.Changes, rep.ChangesErr = sum.set, sum.err
		rep.ChangesNoted = rep.Index != nil && sum.noted.Load()
	}
	return rep, nil
}

// pendingChanges is an update's summary (UpdateOptions.Changes), worked
// out while the index is brought up to date, and handed to the index
// (indexer.Options.Recent) for its one render of INDEX.md.
type pendingChanges struct {
	done  chan struct{} // closed when set and err are known
	set   *changes.Set
	err   error
	noted atomic.Bool // the index asked for it (recent)
}

// work computes the changes of the packages rep moved (Updated), then
// closes done.
func (c *pendingChanges) work(ctx context.Context, w *Workspace, rep *Report, states map[string]*pkgState) {
	defer close(c.done)
	var moved []string
	for _, r := range rep.Packages {
		if r.Action == Updated {
			moved = append(moved, r.Alias)
		}
	}
	if len(moved) > 0 {
		c.set, c.err = w.Changes(ctx, ChangesOptions{Aliases: moved, LastChange: true, states: states})
	}
}

// recent waits for the changes and returns them as INDEX.md's record
// (indexer.Options.Recent).
func (c *pendingChanges) recent() []indexer.RecentChange {
	<-c.done
	c.noted.Store(true)
	if c.set == nil {
		return nil
	}
	return recentChanges(c.set)
}

// apply does one task's step. Errors go to t.res.
func (w *Workspace) apply(ctx context.Context, t *task, force bool, stamp time.Time) {
	switch t.step {
	case stepLock:
		e := *t.locked
		e.Source, e.Ref, e.Updated = t.spec.Source, t.spec.Ref, stamp
		t.j = &journal{Alias: t.alias, Op: opLock, Entry: &e}
		if err := w.writeJournal(t.j); err != nil {
			t.j = nil
			t.fail(err)
		}
	case stepInstall:
		w.applyInstall(ctx, t, force, stamp)
	case stepRemove:
		if !w.backupDirty(t, force, stamp) {
			return
		}
		j := &journal{Alias: t.alias, Op: opRemove, DropSpec: t.dropSpec}
		w.applyJournal(t, j, "remove", nil)
	case stepLink:
		w.applyJournal(t, &journal{Alias: t.alias, Op: opLink, AddSpec: t.spec, AddLocal: t.spec.Local, AddAllowInside: t.allowIn}, "add", nil)
	case stepForget:
		w.applyJournal(t, &journal{Alias: t.alias, Op: opForget, DropSpec: true}, "remove", nil)
	}
}

// applyInstall fetches t.want into the package's stage, checks it against
// the lock entry it installs (if any), records its state, then journals and
// swaps it in: file by file when the package is installed and ctx knows
// what it installed (patch.go; the stage then holds only the files that
// are not already in the package folder), else the whole folder.
func (w *Workspace) applyInstall(ctx context.Context, t *task, force bool, stamp time.Time) {
	if !w.backupDirty(t, force, stamp) {
		return
	}
	w.discardStage(t.alias)
	stage := w.stageDir(t.alias)
	t.keep = w.keepable(t)
	err := w.fault("stage", t.alias)
	var f *fetched
	if err == nil {
		f, err = w.fetchTask(ctx, t.kind(), t, stage)
	}
	if err != nil {
		w.discardStage(t.alias)
		t.fail(err)
		return
	}
	t.res.Bytes = f.bytes
	for _, s := range f.skipped {
		w.log("warning: %s: skipped %s (%s)", t.alias, safetext.Clip(s.Path, 0), s.Reason)
	}
	// The new tree: the stage, and the files of the package folder the
	// fetch did not write (kept: the same blob and mode as installed).
	tree := stageTree{stage: stage, pkg: w.pkgDir(t.alias), kept: f.kept, sums: f.sums}
	if t.loc != nil && t.loc.state != nil {
		tree.at, tree.rulesNoted = t.loc.state.at, t.loc.state.RulesNoted
	}
	name := w.audienceFor(t)
	aud, err := w.applyAudience(t.alias, tree, name)
	lockAud := aud.lockAudience(name)
	omit := make(map[string]bool, len(aud.withheld))
	for _, p := range aud.withheld {
		omit[p] = true
	}
	// A lock entry made under other rules (another project name) pins the
	// same revision, but not the same files: its tree is checked, and the
	// entry gets the new hash.
	reapplied := t.target != nil && (t.target.Audience != lockAud || t.target.Withheld != len(aud.withheld))
	var hash string
	var sums map[string]string
	if err == nil {
		hash, sums, err = tree.hash(omit)
	}
	if err == nil && t.target != nil && (f.entry.Tree != t.target.Tree || (!reapplied && !t.relock && hash != t.target.Hash)) {
		err = fmt.Errorf("the files at %s %s hash to %s, but the lock says %s: the source changed under the same revision or the lock was edited; run `ctx update %s` to lock what the source has now", kinds.RevNoun(f.entry.Kind), naming.ShortRev(t.want, 12), hash, t.target.Hash, t.alias)
	}
	if err == nil {
		err = tree.checkKept()
	}
	var st *pkgState
	if err == nil {
		st, err = f.state(hash, omit)
	}
	if err == nil && t.spec != nil {
		st.Source = pushSource(t)
	}
	var pt *patch
	if err == nil {
		st.Audience, st.AudienceIgnored, st.AudienceChecked, st.Withheld = lockAud, aud.rules && name == "", true, aud.withheld
		var next *pkgState
		switch pt, next, err = w.planPatch(t, st); {
		case errors.Is(err, errNoPatch):
			// The folder is swapped whole: the stage needs every file.
			pt, err = nil, w.unkeep(tree, st)
		case err == nil:
			st = next
			err = w.fs.RemoveAll(w.tmp(t.alias + ".old"))
		}
	}
	if err == nil {
		st.RulesNoted = true
		for i, f := range st.Files {
			st.Files[i].Sum, st.Files[i].Rules = sums[f.Path], aud.ruled[f.Path]
		}
		err = w.fault("state", t.alias)
	}
	var delta *stateDelta
	switch {
	case err != nil:
	case pt != nil:
		// A patch stages no state: the journal carries what it changes
		// in the old one, and the swap writes it once, the new files in
		// place (swapState).
		delta = deltaOf(t.loc.state, st)
	default:
		err = w.writeState(w.tmp(t.alias+".state"), st)
	}
	if err == nil {
		err = w.hook("staged", t.alias)
	}
	if err != nil {
		if !errors.Is(err, errStopped) {
			w.discardStage(t.alias)
		}
		t.fail(err)
		return
	}
	t.res.Withheld, t.res.Audience = aud.withheld, lockAud
	entry := f.entry
	entry.Source, entry.Path, entry.Ref, entry.Hash, entry.Updated = t.spec.Source, t.spec.Path, t.spec.Ref, hash, stamp
	entry.Audience, entry.Withheld = lockAud, len(aud.withheld)
	if t.target != nil {
		entry = *t.target
		if reapplied || t.relock && hash != entry.Hash {
			entry.Hash, entry.Audience, entry.Withheld, entry.Updated = hash, lockAud, len(aud.withheld), stamp
		}
	}
	j := &journal{Alias: t.alias, Op: opInstall, Entry: &entry, staged: st}
	if pt != nil {
		j.Op, j.Patch, j.State = opPatch, pt, delta
	}
	if t.addSpec {
		j.AddSpec, j.AddAllow, j.AddAllowWeb, j.AddAllowInside = t.spec, t.allow, t.allowWeb, t.allowIn
	}
	if !w.applyJournal(t, j, "install", func() { w.discardStage(t.alias) }) {
		return
	}
	t.res.NewCommit = entry.Rev
}

// applyJournal writes j, then swaps the package's folders as it says. It
// reports whether both happened; otherwise the error is in t. When the
// journal cannot be written, undo (if any) drops what was prepared for it.
// When the swap fails, the journal stays: the next run rolls it forward, and
// the lock keeps the old entry until then.
func (w *Workspace) applyJournal(t *task, j *journal, op string, undo func()) bool {
	if err := w.writeJournal(j); err != nil {
		if undo != nil {
			undo()
		}
		t.fail(err)
		return false
	}
	t.j = j
	if err := w.hook("journaled", t.alias); err != nil {
		t.fail(err)
		return false
	}
	if err := w.swap(j); err != nil {
		if errors.Is(err, errStopped) {
			t.fail(err) // a simulated crash in the middle: leave it as it is
			return false
		}
		t.j = nil
		if uerr := w.unswap(j); uerr != nil {
			t.fail(fmt.Errorf("%s: %w (run ctx again to finish it)", op, err))
		} else {
			t.fail(fmt.Errorf("%s: %w (the package is as it was)", op, err))
		}
		return false
	}
	if err := w.hook("swapped", t.alias); err != nil {
		t.fail(err)
		return false
	}
	return true
}

// backupDirty, with force, copies a package that checkDirty found dirty to
// a backup folder before its files are replaced or deleted; it reports
// whether to go on.
func (w *Workspace) backupDirty(t *task, force bool, stamp time.Time) bool {
	if !force || !t.loc.dirty() {
		return true
	}
	dir, err := w.backup(t.alias, t.loc.changes, stamp)
	if err != nil {
		t.fail(err)
		return false
	}
	t.res.Backup = dir
	return true
}

// pushSource is where the new state of t's package says ctx push sends
// its edits (pkgState.Source): the source the user typed (ctx add) or the
// first install's; an install of another repository that the manifest
// and the lock name since (a teammate's commit, a relock) keeps the one
// before, as a pull keeps git's remote: the user's word moves it (ctx
// add, push --to). Review of red20: each install wrote the manifest's
// source, so a redirect that also moved the revision sent the user's
// next push to the new repository unasked.
func pushSource(t *task) string {
	if t.addSpec || t.loc == nil || t.loc.state == nil || t.loc.state.Source == "" ||
		naming.EndpointKey(t.loc.state.Source) == naming.EndpointKey(t.spec.Source) {
		return t.spec.Source
	}
	return t.loc.state.Source
}
