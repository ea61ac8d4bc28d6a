package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/lockfile"
)

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)
var shortSHA = regexp.MustCompile(`^[0-9a-fA-F]{4,39}$`)

// task is one package's part in a command.
type task struct {
	alias    string
	spec     *PackageSpec    // from the manifest (or Add); nil when only locked or on disk
	locked   *lockfile.Entry // the lock's entry, if any
	target   *lockfile.Entry // install exactly this (commit known, hash verified)
	resolve  bool            // resolve spec.Ref to its newest commit
	remove   bool
	addSpec  bool // Add: record spec in the manifest on success
	dropSpec bool // Remove: drop spec from the manifest

	// Filled by resolution.
	commit     string
	refName    string
	resolveErr error

	res PackageResult
	j   *journal
}

// runOptions are what the commands share.
type runOptions struct {
	force  bool
	dryRun bool
	frozen bool
}

func sameSpec(s *PackageSpec, e *lockfile.Entry) bool {
	return s != nil && e != nil && s.Source == e.Source && s.Path == e.Path && s.Ref == e.Ref
}

func now() time.Time { return time.Now().UTC().Truncate(time.Second) }

// parallel runs fn(0..n-1) with at most jobs at a time.
func parallel(n, jobs int, fn func(i int)) {
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			fn(i)
		}()
	}
	wg.Wait()
}

// noAccess reports whether err means the user cannot read the repository.
func noAccess(err error) bool {
	switch gitengine.KindOf(err) {
	case gitengine.KindNotFound, gitengine.KindAuthRequired, gitengine.KindAuthFailed, gitengine.KindHostKey:
		return true
	}
	return false
}

func (t *task) fail(err error) {
	err = diskFull(err)
	if noAccess(err) {
		t.res.Action, t.res.Reason, t.res.Err = Skipped, SkipNoAccess, err
		return
	}
	t.res.Action, t.res.Err = Failed, err
}

// resolveTasks resolves the refs of tasks that ask for it: one ListRefs per
// remote URL, in parallel; full commit SHAs need no network at all.
func (w *Workspace) resolveTasks(ctx context.Context, ts []*task) {
	byURL := map[string][]*task{}
	for _, t := range ts {
		if !t.resolve {
			continue
		}
		if fullSHA.MatchString(t.spec.Ref) {
			t.commit = t.spec.Ref
			continue
		}
		u := w.fetchURL(t.spec.Source)
		byURL[u] = append(byURL[u], t)
	}
	urls := make([]string, 0, len(byURL))
	for u := range byURL {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	parallel(len(urls), w.opts.Jobs, func(i int) {
		u := urls[i]
		group := byURL[u]
		eng := w.engine(group[0].alias)
		remote, err := eng.ListRefs(ctx, u)
		for _, t := range group {
			if err != nil {
				t.resolveErr = err
				continue
			}
			t.commit, t.refName, t.resolveErr = resolveRef(remote, t.spec.Ref, func(msg string) { w.log("warning: %s: %s", t.alias, msg) })
			if t.resolveErr != nil && shortSHA.MatchString(t.spec.Ref) {
				// An abbreviated commit: only the repository can expand it.
				r, err := eng.Resolve(ctx, u, t.spec.Ref)
				if err == nil {
					t.commit, t.refName, t.resolveErr = r.Commit, r.Ref, nil
				}
			}
		}
	})
}

// resolveRef finds ref in an advertisement: "" (or HEAD) is the default
// branch; otherwise a full ref name, a branch, then a tag (peeled).
func resolveRef(r *gitengine.Remote, ref string, warn func(string)) (commit, name string, err error) {
	find := func(n string) (string, bool) {
		i := sort.Search(len(r.Refs), func(i int) bool { return r.Refs[i].Name >= n })
		if i < len(r.Refs) && r.Refs[i].Name == n {
			if r.Refs[i].Peel != "" {
				return r.Refs[i].Peel, true
			}
			return r.Refs[i].Hash, true
		}
		for _, x := range r.Refs { // in case a remote's list was not sorted
			if x.Name == n {
				if x.Peel != "" {
					return x.Peel, true
				}
				return x.Hash, true
			}
		}
		return "", false
	}
	var cands []string
	switch {
	case ref == "" || ref == "HEAD":
		if r.Head != "" {
			cands = []string{r.Head}
		} else {
			cands = []string{"refs/heads/main", "refs/heads/master"}
		}
	case strings.HasPrefix(ref, "refs/"):
		cands = []string{ref}
	default:
		// git's rev-parse order, as gitengine.Resolve: tags before branches.
		cands = []string{"refs/tags/" + ref, "refs/heads/" + ref}
		_, tag := find(cands[0])
		_, branch := find(cands[1])
		if tag && branch {
			warn(fmt.Sprintf("%s is both a tag and a branch; using the tag (write refs/heads/%s for the branch)", safetext.Quote(ref), safetext.Clip(ref, 0)))
		}
	}
	for _, c := range cands {
		if h, ok := find(c); ok {
			return h, c, nil
		}
	}
	what := "ref " + safetext.Quote(ref)
	if ref == "" {
		what = "a default branch"
	}
	var names []string
	for _, x := range r.Refs {
		if strings.HasPrefix(x.Name, "refs/heads/") || strings.HasPrefix(x.Name, "refs/tags/") {
			names = append(names, strings.TrimPrefix(strings.TrimPrefix(x.Name, "refs/heads/"), "refs/tags/"))
		}
		if len(names) == 10 {
			names = append(names, "…")
			break
		}
	}
	hint := "set \"ref\" to a branch, tag or commit of the repository"
	if len(names) > 0 {
		hint += " (it has: " + strings.Join(names, ", ") + ")"
	}
	return "", "", &gitengine.Error{Kind: gitengine.KindRefNotFound, URL: r.URL, Op: "resolve", Hint: hint, Err: errors.New(what + " is not there")}
}

// runTasks does the work of tasks in parallel, then commits their journals
// and brings the index up to date.
func (w *Workspace) runTasks(ctx context.Context, ts []*task, o runOptions) (*Report, error) {
	if err := w.fs.MkdirAll(tmpDir, 0o755); err != nil {
		return nil, err
	}
	stamp := now()
	if !o.dryRun {
		go indexer.Prepare() // while the fetches wait on the network
	}
	parallel(len(ts), w.opts.Jobs, func(i int) {
		if err := ctx.Err(); err != nil {
			ts[i].fail(err)
			return
		}
		w.runTask(ctx, ts[i], o, stamp)
	})
	var js []*journal
	for _, t := range ts {
		if errors.Is(t.res.Err, errStopped) {
			return nil, t.res.Err // a simulated crash: leave everything as it is
		}
		if t.j != nil {
			js = append(js, t.j)
		}
	}
	if err := w.commit(js, o.frozen); err != nil {
		return nil, err
	}
	rep := &Report{}
	changed := false
	for _, t := range ts {
		rep.Packages = append(rep.Packages, t.res)
		switch t.res.Action {
		case Installed, Updated, Removed:
			changed = changed || !o.dryRun
		}
	}
	sort.Slice(rep.Packages, func(i, j int) bool { return rep.Packages[i].Alias < rep.Packages[j].Alias })
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if !o.dryRun && (changed || !exists(w.path(indexMD))) {
		rep.Index = w.syncIndex(ctx)
	}
	return rep, nil
}

// runTask does one package: guard, stage, journal, swap. Errors go to t.res.
func (w *Workspace) runTask(ctx context.Context, t *task, o runOptions, stamp time.Time) {
	t.res.Alias = t.alias
	if t.locked != nil {
		t.res.OldCommit = t.locked.Commit
	}
	if t.resolveErr != nil {
		t.fail(t.resolveErr)
		return
	}
	// The stat shortcut is enough to choose what to do; before anything is
	// replaced or deleted, checkBeforeChange compares every file's content.
	loc, err := w.inspect(t.alias, t.locked, o.force)
	if err != nil {
		t.fail(err)
		return
	}
	if loc.state != nil && loc.present {
		t.res.OldCommit = loc.state.Commit
	}
	if t.remove {
		w.runRemove(t, loc, o, stamp)
		return
	}
	want := t.commit
	if t.target != nil {
		want = t.target.Commit
	}
	t.res.NewCommit = want
	if loc.present && loc.state != nil && loc.state.Commit == want && !(o.force && loc.dirty()) {
		sameTree := false
		if t.target != nil {
			sameTree = loc.state.Tree == t.target.Tree
		} else {
			sameTree = t.locked != nil && t.locked.Source == t.spec.Source && t.locked.Path == t.spec.Path && t.locked.Tree == loc.state.Tree
		}
		if sameTree {
			t.res.Action = Unchanged
			if t.target == nil && !sameSpec(t.spec, t.locked) {
				// Only the ref changed, to one that names the same commit.
				e := *t.locked
				e.Ref, e.Updated = t.spec.Ref, stamp
				t.res.Action = Updated
				if !o.dryRun {
					t.j = &journal{Alias: t.alias, Op: opLock, Entry: &e}
					if err := w.writeJournal(t.j); err != nil {
						t.j = nil
						t.fail(err)
					}
				}
			}
			return
		}
	}
	action := Updated
	if !loc.present || t.res.OldCommit == "" || t.res.OldCommit == want {
		action = Installed
	}
	if o.dryRun {
		t.res.Action = action
		return
	}
	if !w.guard(t, loc, o, stamp) {
		return
	}
	w.discardStage(t.alias)
	stage := w.stageDir(t.alias)
	eng := w.engine(t.alias)
	req := gitengine.FetchRequest{URL: w.fetchURL(t.specSource()), Commit: want, Ref: t.refName, Path: t.specPath()}
	if req.Ref == "" && t.spec != nil && t.spec.Ref != "" && !fullSHA.MatchString(t.spec.Ref) {
		req.Ref = t.spec.Ref
	}
	res, err := (*gitengine.Result)(nil), w.fault("stage", t.alias)
	if err == nil {
		res, err = eng.Materialize(ctx, req, stage)
	}
	if err != nil {
		w.discardStage(t.alias)
		t.fail(err)
		return
	}
	t.res.Bytes = res.Bytes
	for _, s := range res.Skipped {
		w.log("%s: skipped %s (%s)", t.alias, s.Path, s.Reason)
	}
	hash, err := lockfile.HashDir(stage)
	if err == nil && t.target != nil && (hash != t.target.Hash || res.TreeID != t.target.Tree) {
		err = fmt.Errorf("the files at commit %s hash to %s, but the lock says %s: the repository changed under the same commit or the lock was edited; run `ctx update %s` to lock what the repository has now", short(want), hash, t.target.Hash, t.alias)
	}
	var st *pkgState
	if err == nil {
		st, err = stateOf(stage, res, hash)
	}
	if err == nil {
		err = w.fault("state", t.alias)
	}
	if err == nil {
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
	entry := lockfile.Entry{Source: t.spec.Source, Path: t.spec.Path, Ref: t.spec.Ref, Commit: res.Commit, Tree: res.TreeID, Hash: hash, Updated: stamp}
	if t.target != nil {
		entry = *t.target
	}
	j := &journal{Alias: t.alias, Op: opInstall, Entry: &entry}
	if t.addSpec {
		j.AddSpec = t.spec
	}
	if !w.applyJournal(t, j, "install", func() { w.discardStage(t.alias) }) {
		return
	}
	t.res.Action = action
	t.res.NewCommit = entry.Commit
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

// guard applies the dirty-state guard before a step that replaces or deletes
// the package's files; it reports whether to go on. It compares every file's
// content with what ctx installed (stat data cannot prove a file unchanged:
// an edit may keep the size and set the mtime back).
func (w *Workspace) guard(t *task, loc *local, o runOptions, stamp time.Time) bool {
	if loc.present && loc.state != nil {
		changes, err := diff(w.pkgDir(t.alias), loc.state, true)
		if err != nil {
			t.fail(err)
			return false
		}
		loc.changes = changes
	}
	if !loc.dirty() {
		return true
	}
	t.res.DirtyFiles = dirtyList(loc.changes)
	if !o.force {
		t.res.Action, t.res.Reason = Skipped, SkipDirty
		return false
	}
	dir, err := w.backup(t.alias, loc.changes, stamp)
	if err != nil {
		t.fail(err)
		return false
	}
	t.res.Backup = dir
	return true
}

func (w *Workspace) runRemove(t *task, loc *local, o runOptions, stamp time.Time) {
	t.res.NewCommit = ""
	if o.dryRun {
		t.res.Action = Removed
		return
	}
	if !w.guard(t, loc, o, stamp) {
		return
	}
	j := &journal{Alias: t.alias, Op: opRemove, DropSpec: t.dropSpec}
	if !w.applyJournal(t, j, "remove", nil) {
		return
	}
	t.res.Action = Removed
}

func (t *task) specSource() string {
	if t.target != nil {
		return t.target.Source
	}
	return t.spec.Source
}

func (t *task) specPath() string {
	if t.target != nil {
		return t.target.Path
	}
	return t.spec.Path
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// packageDirs lists the folders under packages/ that could be packages.
func (w *Workspace) packageDirs() []string {
	ents, _ := os.ReadDir(w.path(packagesDir))
	var out []string
	for _, e := range ents {
		if naming.ValidAlias(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

func (w *Workspace) install(ctx context.Context, o InstallOptions) (*Report, error) {
	l, err := w.readLock()
	if err != nil {
		return nil, err
	}
	m := w.Manifest()
	if o.Frozen {
		if d := disagreements(&m, l); len(d) > 0 {
			return nil, fmt.Errorf("manifest and lock disagree (--frozen): %s; run `ctx install` without --frozen and commit %s", strings.Join(d, "; "), displayName(LockName))
		}
	}
	seen := map[string]bool{}
	var ts []*task
	for i := range m.Packages {
		s := &m.Packages[i]
		seen[s.Alias] = true
		t := &task{alias: s.Alias, spec: s}
		if e, ok := l.Packages[s.Alias]; ok {
			t.locked = &e
			if sameSpec(s, &e) {
				t.target = &e
			}
		}
		if t.target == nil {
			t.resolve = true
		}
		ts = append(ts, t)
	}
	for alias, e := range l.Packages {
		if !seen[alias] {
			seen[alias] = true
			ts = append(ts, &task{alias: alias, locked: &e, remove: true})
		}
	}
	for _, alias := range w.packageDirs() {
		if seen[alias] {
			continue
		}
		if !exists(w.statePath(alias)) {
			w.log("warning: %s is not a package ctx installed; leaving it alone", displayName(packagesDir+"/"+alias))
			continue
		}
		ts = append(ts, &task{alias: alias, remove: true})
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].alias < ts[j].alias })
	w.resolveTasks(ctx, ts)
	return w.runTasks(ctx, ts, runOptions{force: o.Force, frozen: o.Frozen})
}

// disagreements lists how manifest and lock differ.
func disagreements(m *Manifest, l *lockfile.Lock) []string {
	var out []string
	for i := range m.Packages {
		s := &m.Packages[i]
		e, ok := l.Packages[s.Alias]
		switch {
		case !ok:
			out = append(out, s.Alias+" is not locked")
		case !sameSpec(s, &e):
			out = append(out, s.Alias+" changed in the manifest since it was locked")
		}
	}
	var extra []string
	for alias := range l.Packages {
		if _, ok := m.spec(alias); !ok {
			extra = append(extra, alias+" is locked but not in the manifest")
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

// updateTasks builds the tasks of update and outdated.
func (w *Workspace) updateTasks(aliases []string) ([]*task, error) {
	l, err := w.readLock()
	if err != nil {
		return nil, err
	}
	m := w.Manifest()
	if len(aliases) == 0 {
		for _, s := range m.Packages {
			aliases = append(aliases, s.Alias)
		}
	}
	var ts []*task
	var unknown []string
	done := map[string]bool{}
	for _, a := range aliases {
		if done[a] {
			continue
		}
		done[a] = true
		s, ok := m.spec(a)
		if !ok {
			unknown = append(unknown, a)
			continue
		}
		t := &task{alias: a, spec: &s, resolve: true}
		if e, ok := l.Packages[a]; ok {
			t.locked = &e
		}
		ts = append(ts, t)
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("no package %s in %s (see `ctx list`)", safetext.QuoteList(unknown), displayName(ManifestName))
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].alias < ts[j].alias })
	return ts, nil
}

// pinTargets turns resolved tasks whose newest commit is the locked one into
// exact installs of the lock entry, so an unchanged package moves nothing.
func pinTargets(ts []*task) {
	for _, t := range ts {
		if t.resolveErr == nil && sameSpec(t.spec, t.locked) && t.commit == t.locked.Commit {
			t.target = t.locked
		}
	}
}

func (w *Workspace) update(ctx context.Context, aliases []string, o UpdateOptions) (*Report, error) {
	ts, err := w.updateTasks(aliases)
	if err != nil {
		return nil, err
	}
	w.resolveTasks(ctx, ts)
	pinTargets(ts)
	return w.runTasks(ctx, ts, runOptions{force: o.Force, dryRun: o.DryRun})
}

func (w *Workspace) outdated(ctx context.Context, aliases []string) ([]Change, error) {
	ts, err := w.updateTasks(aliases)
	if err != nil {
		return nil, err
	}
	w.resolveTasks(ctx, ts)
	var out []Change
	var errs []error
	for _, t := range ts {
		if t.resolveErr != nil {
			errs = append(errs, fmt.Errorf("%s: %w", t.alias, t.resolveErr))
			continue
		}
		if sameSpec(t.spec, t.locked) && t.commit == t.locked.Commit {
			continue
		}
		c := Change{Alias: t.alias, Ref: t.spec.Ref, NewCommit: t.commit}
		if t.locked != nil {
			c.OldCommit = t.locked.Commit
		}
		out = append(out, c)
	}
	return out, errors.Join(errs...)
}

func (w *Workspace) remove(ctx context.Context, aliases []string, o RemoveOptions) (*Report, error) {
	l, err := w.readLock()
	if err != nil {
		return nil, err
	}
	m := w.Manifest()
	var ts []*task
	var unknown []string
	done := map[string]bool{}
	for _, a := range aliases {
		if done[a] {
			continue
		}
		done[a] = true
		_, inM := m.spec(a)
		e, inL := l.Packages[a]
		if !inM && !inL && !exists(w.statePath(a)) {
			unknown = append(unknown, a)
			continue
		}
		t := &task{alias: a, remove: true, dropSpec: inM}
		if inL {
			t.locked = &e
		}
		ts = append(ts, t)
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("no package %s in this project (see `ctx list`)", safetext.QuoteList(unknown))
	}
	if len(ts) == 0 {
		return nil, errors.New("name the packages to remove (see `ctx list`)")
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].alias < ts[j].alias })
	return w.runTasks(ctx, ts, runOptions{force: o.Force})
}

func (w *Workspace) add(ctx context.Context, specs []PackageSpec, o AddOptions) (*Report, error) {
	if len(specs) == 0 {
		return nil, errors.New("name a source to add: a git URL or a local repository path")
	}
	l, err := w.readLock()
	if err != nil {
		return nil, err
	}
	m := w.Manifest()
	v := newValidator()
	var ts []*task
	var probs []string
	taken := map[string]bool{}
	for _, s := range m.Packages {
		taken[s.Alias] = true
	}
	for i := range specs {
		s := cleanSpec(specs[i])
		if s.Alias == "" {
			s.Alias = defaultAlias(s.Source, s.Path)
		}
		where := safetext.Clip(s.Source, 0)
		if where == "" {
			where = fmt.Sprintf("package %d", i+1)
		}
		if err := v.Struct(&s); err != nil {
			for _, p := range validationProblems(nil, err) {
				probs = append(probs, fmt.Sprintf("%s: %s: %s", where, p.Field, p.Msg))
			}
			continue
		}
		if taken[s.Alias] {
			probs = append(probs, fmt.Sprintf("%s: alias %s is already used; choose another with --alias", where, safetext.Quote(s.Alias)))
			continue
		}
		taken[s.Alias] = true
		t := &task{alias: s.Alias, spec: &s, resolve: true, addSpec: true}
		if e, ok := l.Packages[s.Alias]; ok {
			t.locked = &e
		}
		ts = append(ts, t)
	}
	if len(probs) > 0 {
		return nil, errors.New(strings.Join(probs, "\n"))
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].alias < ts[j].alias })
	w.resolveTasks(ctx, ts)
	return w.runTasks(ctx, ts, runOptions{force: o.Force})
}

// indexPackages is what the indexer should see: locked packages on disk.
func (w *Workspace) indexPackages() ([]indexer.Package, error) {
	l, err := w.readLock()
	if err != nil {
		return nil, err
	}
	var pkgs []indexer.Package
	for alias, e := range l.Packages {
		if !exists(w.pkgDir(alias)) {
			continue
		}
		pkgs = append(pkgs, indexer.Package{Alias: alias, Source: e.Source, Path: e.Path, Ref: e.Ref, Commit: e.Commit})
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Alias < pkgs[j].Alias })
	return pkgs, nil
}

// syncIndex updates the index after packages changed. The packages' work is
// done by then: a failure here is a warning, not the command's failure.
func (w *Workspace) syncIndex(ctx context.Context) (rep *indexer.SyncReport) {
	defer func() {
		if p := recover(); p != nil {
			w.log("warning: the index was not updated: the indexer crashed: %v (run `ctx index` to retry; please report this)", p)
			rep = nil
		}
	}()
	rep, err := w.reindex(ctx, indexer.Options{})
	if err != nil {
		w.log("warning: the index was not updated: %v (run `ctx index` to retry)", err)
		return nil
	}
	return rep
}

func (w *Workspace) reindex(ctx context.Context, o indexer.Options) (*indexer.SyncReport, error) {
	pkgs, err := w.indexPackages()
	if err != nil {
		return nil, err
	}
	if o.BudgetTokens == 0 {
		o.BudgetTokens = w.manifest.Index.BudgetTokens
	}
	if o.Warn == nil {
		o.Warn = func(msg string) { w.log("warning: %s", msg) }
	}
	return indexer.Sync(ctx, w.Dir(), pkgs, o)
}
