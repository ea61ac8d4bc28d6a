package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
)

// Commands run in two steps. A planner (planInstall, planUpdate, planRemove,
// planAdd) reads the manifest and the lock, resolves refs, looks at each
// package on disk and decides what to do with it: a plan. execute (apply.go)
// then does exactly that. update --dry-run reports the plan, outdated lists
// the lock entries it moves, and update executes it, so the three cannot
// disagree.

// plan is what a command will do, one task per package, sorted by alias.
type plan struct {
	tasks  []*task
	force  bool // back up local edits, then go on
	frozen bool // never write the lock
	// changes makes execute work out what changed in the documents of the
	// packages it moves (UpdateOptions.Changes).
	summarize bool
}

// step is what execute does for one task.
type step int

const (
	stepNone    step = iota // nothing: unchanged, or skipped or failed when planned (see res)
	stepLock                // rewrite the lock entry only: the ref changed to one naming the same commit
	stepInstall             // fetch want into a stage, then swap it in
	stepRemove              // delete the package
	stepLink                // record a dir spec in the manifest (nothing fetched or locked)
	stepForget              // drop a dir spec from the manifest (its files are left alone)
)

// task is one package's part in a command.
type task struct {
	alias    string
	spec     *project.PackageSpec // from the manifest (or Add); nil when only locked or on disk
	locked   *lockfile.Entry      // the lock's entry, if any
	target   *lockfile.Entry      // install exactly this (commit known, hash verified)
	relock   bool                 // Update: target's hash is re-derived, not verified (pinTargets)
	resolve  bool                 // resolve spec.Ref to its newest commit
	remove   bool
	addSpec  bool              // Add: record spec in the manifest on success
	allow    string            // Add: spec's local source leads here, outside the project: allow it with the spec (journal.AddAllow)
	allowWeb *project.WebAllow // Add: what the typed https spec asks (its token, the private network), allowed with the spec (journal.AddAllowWeb)
	// allowIn, at Add: the typed dir spec inside the project may serve
	// its files git does not track, allowed with the spec
	// (journal.AddAllowInside).
	allowIn *project.InsideAllow
	// localWhy, at Add: why the typed dir spec is the user's own, kept in
	// context.local.json (placeDirSource), said once it is recorded.
	localWhy string
	dropSpec bool // Remove: drop spec from the manifest

	eng *gitengine.Engine // the operation's Engine, labelled with alias (attachEngine)

	// Filled by resolution.
	rev         string
	refName     string
	carry       any  // what resolve left for the fetch (source.Resolved.Carry)
	refresh     bool // https: ask the server even within the TTL (update --refresh)
	revalidated bool // https: the server was asked and said the locked content is current
	resolveErr  error

	// Filled by decide: the plan for this package. res is what the report
	// will say if the step succeeds.
	step step
	want string // the commit to install
	loc  *local
	res  PackageResult
	// audienceStale: the files on disk were installed under other
	// audience rules than the package gets now (see audienceStale).
	audienceStale bool
	// keep: the files of the installed package its fetch need not write
	// (set by applyInstall: see keepable).
	keep map[string]fileState

	j *journal // filled by execute
}

func sameSpec(s *project.PackageSpec, e *lockfile.Entry) bool {
	return s != nil && e != nil && s.Source == e.Source && s.Path == e.Path && s.Ref == e.Ref
}

func (t *task) fail(err error) {
	err = diskFull(err)
	err = movesOn(err, t.alias, t.spec)
	t.step = stepNone
	// Gone from where the lock has it; a source being added (not locked
	// yet), or one the manifest now names elsewhere (an edit, a typo:
	// nothing moved), keeps gitengine's error, whose hint is to check the
	// path.
	var gone *gitengine.NoRepositoryError
	if t.locked != nil && (t.spec == nil || t.spec.Source == t.locked.Source) && errors.As(err, &gone) {
		t.res.Action, t.res.Reason, t.res.Err = Skipped, SkipGone, &repoGoneError{Alias: t.alias, Path: gone.Path, Err: err}
		return
	}
	if noAccess(err) {
		t.res.Action, t.res.Reason, t.res.Err = Skipped, SkipNoAccess, err
		return
	}
	t.res.Action, t.res.Err = Failed, err
}

// repoGoneError is a package whose local repository is no longer at
// the path its lock and manifest name (gitengine.NoRepositoryError): it
// says so and what to do, where gitengine's error gave add's hint
// ("check the path") under "no access".
type repoGoneError struct {
	Alias, Path string
	Err         error // gitengine's
}

func (e *repoGoneError) Error() string {
	return fmt.Sprintf("no git repository at %s any more: put it back there, or `ctx remove %s` and add it from where it is now",
		safetext.Clip(e.Path, 0), e.Alias)
}

func (e *repoGoneError) Unwrap() error { return e.Err }

// movesOn adds to gitengine's error for a commit the repository no longer
// has (a lock's, after a force-push) what moves the package on: `ctx
// update` when the manifest's ref (spec's) is a branch or tag; when it pins a
// commit id, update would resolve that same commit, so the error is the
// pin's (pinGone): the way out is a new ref in the manifest.
func movesOn(err error, alias string, spec *project.PackageSpec) error {
	if gitengine.KindOf(err) != gitengine.KindCommitNotFound {
		return err
	}
	var gone *gitengine.Error
	if spec != nil && gitengine.IsCommitID(spec.Ref) && errors.As(err, &gone) {
		return &pinGone{alias: alias, spec: spec, err: gone}
	}
	hint := fmt.Sprintf("`ctx update %s` locks its ref's newest commit", alias)
	ge, ok := err.(*gitengine.Error)
	if !ok {
		return fmt.Errorf("%w (%s)", err, hint)
	}
	c := *ge
	if c.Hint != "" {
		hint = c.Hint + "; " + hint
	}
	c.Hint = hint
	return &c
}

// pinGone is a commit the manifest pins (its ref is a commit id) that the
// repository does not have (a force-push, a deleted commit): it says so
// first, and the way out, a ref the repository has; not gitengine's
// "fetch URL: …", which speaks of a locked commit. Unwrap keeps
// gitengine's error (its kind, KindCommitNotFound).
type pinGone struct {
	alias string
	spec  *project.PackageSpec
	err   *gitengine.Error
}

func (e *pinGone) Error() string {
	file := project.ManifestName
	if e.spec.Local {
		file = project.LocalName
	}
	return fmt.Sprintf("the manifest pins %s to commit %s, which the repository %s does not have (its history was rewritten, or the commit deleted): set its \"ref\" in %s to a commit, branch or tag the repository has, then run `ctx update %s`",
		e.alias, safetext.Quote(e.spec.Ref), safetext.Clip(e.err.URL, 0), project.Rel(file), e.alias)
}

func (e *pinGone) Unwrap() error { return e.err }

// kindRef is the kind and ref a report names for t: its spec's, else its
// lock entry's; "" and "" for a folder ctx installed that nothing names.
func (t *task) kindRef() (kind, ref string) {
	switch {
	case t.spec != nil:
		return t.spec.KindOf(), t.spec.Ref
	case t.locked != nil:
		kind = t.locked.Kind
		if t.locked.IsGit() {
			kind = project.KindGit
		}
		return kind, t.locked.Ref
	}
	return "", ""
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

// decide fills in each resolved task's step and expected result, looking
// at the packages on disk (in parallel): what is installed, and, for a
// package whose files would be replaced or deleted, whether it has local
// edits (every file's content compared, as the guard does).
func (w *Workspace) decide(ctx context.Context, p *plan) {
	parallel(len(p.tasks), w.opts.Jobs, func(i int) { w.decideTask(ctx, p.tasks[i], p.force) })
}

func (w *Workspace) decideTask(ctx context.Context, t *task, force bool) {
	t.res.Alias = t.alias
	t.res.Kind, t.res.Ref = t.kindRef()
	if t.locked != nil {
		t.res.OldCommit = t.locked.Rev
	}
	if t.resolveErr != nil {
		t.fail(t.resolveErr)
		return
	}
	if isDir(t.spec) && t.locked == nil {
		switch {
		case t.remove:
			t.step, t.res.Action = stepForget, Removed
		case t.addSpec:
			t.step, t.res.Action = stepLink, Linked
		default:
			t.res.Action = Unchanged
		}
		return
	}
	// The stat shortcut is enough to choose what to do; before anything is
	// replaced or deleted, checkDirty compares every file's content (read
	// unless its stamp proves it unchanged).
	loc, err := w.inspect(t.alias, t.locked, force)
	if err != nil {
		t.fail(err)
		return
	}
	t.loc = loc
	// An update that moves the lock reports the lock's pair, old → new:
	// what the user reviews and commits, as changes and the lock diff say
	// (audit17 #7); what was on disk, when another commit (a pull brought
	// the lock, no install followed), is said beside it. Else the report
	// is what the files on disk move from.
	moving := t.target == nil && t.locked != nil
	if loc.state != nil && loc.present {
		if !moving {
			t.res.OldCommit = loc.state.Rev
		} else if loc.state.Rev != t.locked.Rev {
			t.res.InstalledCommit = loc.state.Rev
		}
	}
	if t.remove {
		t.res.NewCommit = ""
		t.step, t.res.Action = stepRemove, Removed
		w.checkDirty(ctx, t, force)
		return
	}
	t.want = t.wanted()
	t.res.NewCommit = t.want
	t.audienceStale = w.audienceStale(t)
	if t.upToDate(force) {
		t.res.Action = Unchanged
		t.res.Withheld, t.res.Audience = loc.state.Withheld, loc.state.Audience
		if t.target == nil && !sameSpec(t.spec, t.locked) {
			// Only the ref, or a git source's URL, changed, to one that
			// names the same commit.
			t.step, t.res.Action = stepLock, Updated
		}
		return
	}
	t.step, t.res.Action = stepInstall, Updated
	if (!moving && !loc.present) || t.res.OldCommit == "" || t.res.OldCommit == t.want {
		t.res.Action = Installed
	}
	w.checkDirty(ctx, t, force)
}

// wanted is the commit the task installs: its resolved rev, or its
// pinned target's.
func (t *task) wanted() string {
	if t.target != nil {
		return t.target.Rev
	}
	return t.rev
}

// upToDate reports whether the package on disk is the one wanted: the same
// commit, tree and content hash as the lock entry (the state records the
// hash the files had when installed: a lock whose hash was edited, or
// came from a source that changed under the same revision, is installed
// again, and the install says the hashes differ), and (with force) no
// local edits to restore.
func (t *task) upToDate(force bool) bool {
	loc := t.loc
	if !loc.present || loc.state == nil || loc.state.Rev != t.want || (force && loc.dirty()) || t.audienceStale {
		return false
	}
	if t.target != nil {
		return loc.state.Tree == t.target.Tree && loc.state.Hash == t.target.Hash
	}
	// A git commit is its content, whatever URL it came from: a source
	// that names the locked commit from another URL (or the same in
	// another form) is relocked, its files left as they are, edits and
	// all (review18a: push asks for an install first). Not when the ref
	// is a full commit id, which resolves without the remote saying it
	// has it: that is fetched, as before.
	sameSource := t.locked != nil && (t.locked.Source == t.spec.Source ||
		t.kind() == project.KindGit && !(len(t.spec.Ref) == 40 && gitengine.IsCommitID(t.spec.Ref)))
	return sameSource && t.locked.Path == t.spec.Path && t.locked.Tree == loc.state.Tree && t.locked.Hash == loc.state.Hash
}

// checkDirty is the dirty-state guard's check for a task that replaces or
// deletes the package's files (and, for install, one it leaves at its
// locked commit: see planInstall). It compares every file's content with what
// ctx installed, reading those whose stat data does not prove them
// unchanged (diff with full: on a system without ctimes, every file, since
// an edit may keep the size and set the mtime back). A dirty package is Skipped with its
// files listed unless force; with force, execute backs it up first. A
// package whose changed files are all as the git commit it is about to
// get has them (edits sent with ctx push and merged upstream: holdsTarget)
// loses nothing: it goes on, neither skipped nor backed up.
func (w *Workspace) checkDirty(ctx context.Context, t *task, force bool) {
	loc := t.loc
	if err := w.fullDiff(t.alias, loc); err != nil {
		t.fail(err)
		return
	}
	if !loc.dirty() {
		return
	}
	if t.step == stepInstall && t.kind() == project.KindGit && w.holdsTarget(ctx, t) {
		loc.changes = nil
		return
	}
	t.res.DirtyFiles = dirtyList(loc.changes)
	if !force {
		t.step, t.res.Action, t.res.Reason = stepNone, Skipped, SkipDirty
	}
}

// fullDiff completes what inspect found of a package on disk (loc): when
// the stat shortcut left it incomplete, every file's content is compared
// (read unless its stamp proves it unchanged), so loc.dirty says whether
// there are local edits.
func (w *Workspace) fullDiff(alias string, loc *local) error {
	if !loc.present || loc.state == nil || loc.complete {
		return nil
	}
	changes, complete, err := diff(w.pkgDir(alias), loc.state, true)
	if err != nil {
		return err
	}
	loc.changes, loc.complete = changes, complete
	return nil
}

// holdsTarget reports whether every file the guard found changed
// (t.loc.changes) is as the git commit t installs has it, as
// gitengine.Files lists them: a modified, added or re-moded file has that
// commit's content and mode, a deleted one is not in it. Edits sent with
// ctx push and merged upstream then lose nothing, also when the upstream
// moved on after the merge (audit17 finding 5): the files nobody changed
// locally are updated as usual, and planPatch replaces or deletes one only
// when it is still what ctx installed or the new version. Any doubt (an
// error, a fetch that fails, changes not fully known) is a no: the guard
// stands.
func (w *Workspace) holdsTarget(ctx context.Context, t *task) bool {
	req := gitengine.FetchRequest{URL: w.fetchURL(t.specSource()), Commit: t.want, Ref: t.refName, Path: t.specPath()}
	if req.Ref == "" && t.spec != nil {
		req.Ref = t.spec.Ref
	}
	if t.eng == nil || !t.loc.complete {
		return false
	}
	want, err := t.eng.Files(ctx, req)
	if err != nil {
		return false
	}
	files := make(map[string]gitengine.File, len(want))
	for _, f := range want {
		files[f.Path] = f
	}
	dir := w.pkgDir(t.alias)
	tr := fileid.NewTree(dir)
	defer tr.Close()
	for _, c := range t.loc.changes {
		f, ok := files[c.Path]
		fi, err := tr.Info(c.Path)
		if errors.Is(err, fs.ErrNotExist) && !ok {
			continue // deleted here and there
		}
		if err != nil || !ok || gitMode(fi.Mode()) != f.Mode || fi.Size() != f.Size {
			return false
		}
		blob, err := blobOf(in(dir, c.Path), fi)
		if err != nil || blob != f.BlobID {
			return false
		}
	}
	return true
}

// report is what the plan says will happen, without doing it (--dry-run).
func (p *plan) report() *Report {
	rep := &Report{}
	for _, t := range p.tasks {
		rep.Packages = append(rep.Packages, t.res)
	}
	sort.Slice(rep.Packages, func(i, j int) bool { return rep.Packages[i].Alias < rep.Packages[j].Alias })
	return rep
}

// changes lists the tasks whose lock entry the plan moves to another commit
// or ref (whether or not local edits hold them back), sorted by alias: what
// outdated prints. A task that could not be resolved (or that the trust
// rule refused) is in Failed as update reports it (decideTask's rule: a
// repository that cannot be read is Skipped, no access), so the others
// are still listed.
func (p *plan) changes() *OutdatedReport {
	out := &OutdatedReport{Changes: []Change{}, Checked: len(p.tasks)} // not nil: what resolved, also when nothing is outdated
	for _, t := range p.tasks {
		if t.resolveErr != nil {
			t.res.Alias = t.alias
			t.fail(t.resolveErr)
			out.Failed = append(out.Failed, t.res)
			continue
		}
		if sameSpec(t.spec, t.locked) && t.rev == t.locked.Rev {
			if t.revalidated {
				out.Changes = append(out.Changes, Change{Alias: t.alias, Ref: t.spec.Ref, OldCommit: t.rev, NewCommit: t.rev, Expired: true})
			}
			continue
		}
		c := Change{Alias: t.alias, Ref: t.spec.Ref, NewCommit: t.rev}
		if t.locked != nil {
			c.OldCommit = t.locked.Rev
		}
		out.Changes = append(out.Changes, c)
	}
	return out
}

// packageDirs lists the folders under packages/ that could be packages.
func (w *Workspace) packageDirs() []string {
	ents, _ := os.ReadDir(w.path(project.PackagesDir))
	var out []string
	for _, e := range ents {
		if naming.ValidAlias(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// Install makes .context/packages match the lock exactly: it installs
// missing packages at their locked commits (verifying the h1: hash), switches
// changed ones, removes the ones the lock no longer lists (and lock entries
// the manifest no longer lists), and resolves and locks manifest packages the
// lock lacks or whose source, path or ref changed. A package installed at its
// locked commit with local edits is left alone but Skipped with its
// DirtyFiles (it does not match the lock), unless Force (then it is backed
// up and restored). A dirty package is never switched or removed without
// Force: it is Skipped with its DirtyFiles. A folder under packages/
// that ctx did not install is left alone with a warning. Dir sources are
// not installed (they are live): install only warns when one is missing or
// outside the project. A local source the containment rule refuses
// (project.Refused: a committed dir or git source outside the project that
// the user has not allowed) is reported Failed, and nothing of it is
// fetched; o.AllowOutside first records the user's allowances
// (AllowOutside). With DryRun the report is the plan and nothing changes:
// the allowances are the plan's, in memory, and not recorded.
func (w *Workspace) Install(ctx context.Context, o InstallOptions) (*Report, error) {
	if len(o.AllowOutside) > 0 {
		// A dry run plans with the allowances made in memory only.
		if err := w.AllowOutside(o.AllowOutside, o.DryRun); err != nil {
			return nil, err
		}
	}
	p, err := w.planInstall(ctx, o)
	if err != nil {
		return nil, err
	}
	var rep *Report
	if o.DryRun {
		rep = p.report()
	} else if rep, err = w.execute(ctx, p); err == nil {
		w.noteCacheUse(ctx, p)
	}
	if rep != nil {
		// A dir source the containment rule refuses is neither indexed nor
		// served (project.Installed leaves it out): it fails the install.
		m := w.Manifest()
		for _, e := range w.proj.Refused(&m) {
			s, _ := m.Spec(e.Alias)
			rep.Packages = append(rep.Packages, PackageResult{Alias: e.Alias, Kind: s.KindOf(), Ref: s.Ref, Action: Failed, Err: e})
		}
	}
	return rep, err
}

// planInstall plans install: the manifest's packages at their locked
// commits (resolved when not locked as specified), the removal of locked
// packages the manifest lacks and of folders ctx installed that nothing
// names.
func (w *Workspace) planInstall(ctx context.Context, o InstallOptions) (*plan, error) {
	l, err := w.readLock()
	if err != nil {
		return nil, err
	}
	m := w.Manifest()
	if o.Frozen {
		d := disagreements(&m, l)
		for i := range m.Packages {
			s := &m.Packages[i]
			e, ok := l.Packages[s.Alias]
			switch want := w.audienceFor(&task{spec: s}); {
			case !ok || e.Audience == "" || e.Audience == want:
			case want == "":
				d = append(d, fmt.Sprintf("%s was locked with its audience rules applied for project %s, and its spec now ignores them", s.Alias, safetext.Quote(e.Audience)))
			default:
				d = append(d, fmt.Sprintf("%s was locked with its audience rules applied for project %s, this project is %s", s.Alias, safetext.Quote(e.Audience), safetext.Quote(want)))
			}
		}
		if len(d) > 0 {
			return nil, fmt.Errorf("manifest and lock disagree (--frozen): %s; run `ctx install` without --frozen and commit %s", strings.Join(d, "; "), project.Rel(project.LockName))
		}
	}
	seen := map[string]bool{}
	refused := map[string]bool{}
	for _, e := range w.proj.Refused(&m) {
		refused[e.Alias] = true
	}
	var ts []*task
	for i := range m.Packages {
		s := &m.Packages[i]
		if !isDir(s) && refused[s.Alias] {
			// A git source the containment rule refuses: nothing of it is
			// fetched, and its lock entry and files stay as they are
			// (Install reports it failed).
			seen[s.Alias] = true
			continue
		}
		if isDir(s) {
			w.checkLive(s)
			if e, ok := l.Packages[s.Alias]; ok {
				// Locked as another kind before: drop that package.
				seen[s.Alias] = true
				ts = append(ts, &task{alias: s.Alias, locked: &e, remove: true})
			}
			continue
		}
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
			w.log("warning: %s is not a package ctx installed; leaving it alone", project.Rel(project.PackagesDir+"/"+alias))
			continue
		}
		ts = append(ts, &task{alias: alias, remove: true})
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].alias < ts[j].alias })
	w.resolveTasks(ctx, ts)
	p := &plan{tasks: ts, force: o.Force, frozen: o.Frozen}
	w.decide(ctx, p)
	// Install makes the packages match the lock: one at its locked commit
	// with local edits does not, so it is not "unchanged" (nor does a
	// --frozen run pass on it): the guard skips it as it skips a dirty
	// package it would replace (with Force, decide already plans its
	// restore). Update and outdated leave such a package Unchanged: they
	// only move packages. On a system without ctimes the guard's full
	// check hashes every file: a plain install (the git hooks' on every
	// pull) takes status's answer (files whose size or mtime moved) for a
	// package where that found nothing; --frozen, the check CI relies on,
	// always looks in full.
	parallel(len(ts), w.opts.Jobs, func(i int) {
		t := ts[i]
		if t.step != stepNone || t.res.Action != Unchanged || t.loc == nil {
			return
		}
		if !o.Frozen && !t.loc.complete && !t.loc.dirty() {
			return
		}
		w.checkDirty(ctx, t, o.Force)
	})
	return p, nil
}

// disagreements lists how manifest and lock differ.
func disagreements(m *project.Manifest, l *lockfile.Lock) []string {
	var out []string
	for i := range m.Packages {
		s := &m.Packages[i]
		e, ok := l.Packages[s.Alias]
		switch {
		case isDir(s) && !ok:
			// live: never locked
		case isDir(s):
			out = append(out, s.Alias+" changed in the manifest since it was locked")
		case !ok:
			out = append(out, s.Alias+" is not locked")
		case !sameSpec(s, &e):
			out = append(out, s.Alias+" changed in the manifest since it was locked")
		}
	}
	var extra []string
	for alias := range l.Packages {
		if _, ok := m.Spec(alias); !ok {
			extra = append(extra, alias+" is locked but not in the manifest")
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

// updateTasks builds the tasks of update and outdated.
func (w *Workspace) updateTasks(aliases []string, refresh bool) ([]*task, error) {
	l, err := w.readLock()
	if err != nil {
		return nil, err
	}
	m := w.Manifest()
	named := len(aliases) > 0
	if !named {
		for _, s := range m.Packages {
			aliases = append(aliases, s.Alias)
		}
	}
	var locked []string
	for _, a := range aliases {
		if s, ok := m.Spec(a); ok && isDir(&s) {
			if named {
				w.log("%s is a dir source: it is indexed in place, so there is nothing to update", a)
			}
			continue
		}
		locked = append(locked, a)
	}
	aliases = locked
	refused := map[string]error{}
	for _, e := range w.proj.Refused(&m) {
		refused[e.Alias] = e
	}
	ts, unknown := namedTasks(aliases, func(a string) *task {
		s, ok := m.Spec(a)
		if !ok {
			return nil
		}
		if err := refused[a]; err != nil {
			// The containment rule refuses it: nothing of it is resolved
			// or fetched; it fails, its lock entry and files unchanged.
			return &task{alias: a, spec: &s, resolveErr: err}
		}
		t := &task{alias: a, spec: &s, resolve: true, refresh: refresh}
		if e, ok := l.Packages[a]; ok {
			t.locked = &e
		}
		return t
	})
	if len(unknown) > 0 {
		var known []string
		for _, s := range m.Packages {
			known = append(known, s.Alias)
		}
		return nil, unknownPackages(unknown, known, project.Rel(project.ManifestName))
	}
	return ts, nil
}

// namedTasks makes one task per distinct alias with mk, sorted by alias;
// the aliases mk knows nothing of (it returns nil) come back as unknown.
func namedTasks(aliases []string, mk func(alias string) *task) (ts []*task, unknown []string) {
	done := map[string]bool{}
	for _, a := range aliases {
		if done[a] {
			continue
		}
		done[a] = true
		if t := mk(a); t != nil {
			ts = append(ts, t)
		} else {
			unknown = append(unknown, a)
		}
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].alias < ts[j].alias })
	return ts, unknown
}

// pinTargets turns resolved tasks whose newest commit is the locked one into
// exact installs of the lock entry, so an unchanged package moves nothing.
// The entry's hash is what update re-derives (relock): one the files do
// not have (an edited lock) is replaced, not an error update itself
// would advise running update for.
func pinTargets(ts []*task) {
	for _, t := range ts {
		if t.resolveErr == nil && sameSpec(t.spec, t.locked) && t.rev == t.locked.Rev {
			t.target, t.relock = t.locked, true
		}
	}
}

// Update moves the named packages (all when none) to their refs' newest
// commits. Refs are resolved from one ref advertisement per remote; a package
// whose commit did not move fetches nothing and keeps its lock entry byte for
// byte. With DryRun, the report is the plan the real run executes (the same
// actions and commits; a dirty package Skipped with its DirtyFiles) and
// nothing changes. Dirty packages are Skipped unless Force. An alias that is
// not in the manifest is an error, before anything changes. Dir sources are
// live and have nothing to update: they are passed over (with a note when
// named).
func (w *Workspace) Update(ctx context.Context, aliases []string, o UpdateOptions) (*Report, error) {
	p, err := w.planUpdate(ctx, aliases, o.Force, o.Refresh)
	if err != nil {
		return nil, err
	}
	if o.DryRun {
		return p.report(), nil
	}
	p.summarize = o.Changes
	rep, err := w.execute(ctx, p)
	if err == nil {
		w.noteCacheUse(ctx, p)
	}
	return rep, err
}

// planUpdate plans update: the named packages (all when none) at their
// refs' newest commits; one that did not move is pinned to its lock entry.
func (w *Workspace) planUpdate(ctx context.Context, aliases []string, force, refresh bool) (*plan, error) {
	p, err := w.resolveUpdate(ctx, aliases, refresh)
	if err != nil {
		return nil, err
	}
	p.force = force
	w.decide(ctx, p)
	return p, nil
}

// resolveUpdate is the part of planUpdate that needs no look at the
// packages on disk: the tasks, their refs resolved. outdated stops there.
func (w *Workspace) resolveUpdate(ctx context.Context, aliases []string, refresh bool) (*plan, error) {
	ts, err := w.updateTasks(aliases, refresh)
	if err != nil {
		return nil, err
	}
	w.resolveTasks(ctx, ts)
	w.keepUnchangedFolders(ctx, ts)
	pinTargets(ts)
	return &plan{tasks: ts}, nil
}

// keepUnchangedFolders makes a git package whose ref moved to a commit
// that left its folder's tree as locked resolve to its locked commit: a
// package is outdated when its folder changed, not when the repository
// did, so an upstream commit elsewhere moves neither its lock entry nor
// its files (pinTargets then pins it). It fetches the new commit's trees,
// never a blob. A failure to read them is the task's resolve error, as
// update's fetch would have failed on it.
func (w *Workspace) keepUnchangedFolders(ctx context.Context, ts []*task) {
	var todo []*task
	for _, t := range ts {
		if t.resolveErr == nil && t.kind() == project.KindGit && sameSpec(t.spec, t.locked) &&
			t.rev != t.locked.Rev && t.locked.Tree != "" && t.eng != nil {
			todo = append(todo, t)
		}
	}
	parallel(len(todo), w.opts.Jobs, func(i int) {
		t := todo[i]
		req := gitengine.FetchRequest{URL: w.fetchURL(t.spec.Source), Commit: t.rev, Ref: t.refName, Path: t.spec.Path}
		if req.Ref == "" {
			req.Ref = t.spec.Ref
		}
		tree, err := t.eng.TreeOf(ctx, req)
		switch {
		case err != nil:
			t.resolveErr = err
		case tree == t.locked.Tree:
			t.rev = t.locked.Rev
		}
	})
}

// Outdated reports what Update would change for the named packages (all when
// none), sorted by alias: the lock entries its plan moves, including those
// of dirty packages that Update would skip, and the packages it could not
// resolve (Failed or Skipped, as Update would report them). It changes
// nothing on disk. An error is one that stops the whole command (a bad
// lock, an unknown alias).
func (w *Workspace) Outdated(ctx context.Context, aliases []string) (*OutdatedReport, error) {
	p, err := w.resolveUpdate(ctx, aliases, false)
	if err != nil {
		return nil, err
	}
	rep := p.changes()
	if err := w.markEdited(ctx, p, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// markEdited sets LocalEdits on each change of rep whose package has local
// edits on disk (every file compared, as update's guard does: fullDiff),
// which update skips unless forced. A git package whose edits are all the
// new commit's (sent with ctx push and merged: holdsTarget, which lists
// the commit's files, no blob) is not held back by update, nor said to be
// (review23-chunk23).
func (w *Workspace) markEdited(ctx context.Context, p *plan, rep *OutdatedReport) error {
	tasks := map[string]*task{}
	for _, t := range p.tasks {
		tasks[t.alias] = t
	}
	for i := range rep.Changes {
		c := &rep.Changes[i]
		t := tasks[c.Alias]
		if c.Expired || t == nil || t.locked == nil || isDir(t.spec) {
			continue
		}
		loc, err := w.inspect(t.alias, t.locked, false)
		if err != nil {
			return err
		}
		if err := w.fullDiff(t.alias, loc); err != nil {
			return err
		}
		if c.LocalEdits = loc.dirty(); c.LocalEdits && t.kind() == project.KindGit {
			t.loc, t.want = loc, t.wanted()
			c.LocalEdits = !w.holdsTarget(ctx, t)
		}
	}
	return nil
}

// Remove drops packages from the manifest, the lock and disk. A dirty package
// is Skipped (and stays in the manifest) unless Force. A dir source is only
// dropped from the manifest: its file or folder is the user's and is never
// touched. An alias the project does not know is an error, before anything
// changes. With DryRun the report is the plan and nothing changes.
func (w *Workspace) Remove(ctx context.Context, aliases []string, o RemoveOptions) (*Report, error) {
	p, err := w.planRemove(aliases, o)
	if err != nil {
		return nil, err
	}
	if o.DryRun {
		return p.report(), nil
	}
	return w.execute(ctx, p)
}

// planRemove plans remove: each named package out of the manifest, the lock
// and the disk.
func (w *Workspace) planRemove(aliases []string, o RemoveOptions) (*plan, error) {
	l, err := w.readLock()
	if err != nil {
		return nil, err
	}
	m := w.Manifest()
	ts, unknown := namedTasks(aliases, func(a string) *task {
		s, inM := m.Spec(a)
		e, inL := l.Packages[a]
		if !inM && !inL && !exists(w.statePath(a)) {
			return nil
		}
		t := &task{alias: a, remove: true, dropSpec: inM}
		if inL {
			t.locked = &e
		}
		if isDir(&s) {
			t.spec = &s // forgotten only: its files are the user's
		}
		return t
	})
	if len(unknown) > 0 {
		known := slices.Collect(maps.Keys(l.Packages))
		for _, s := range m.Packages {
			known = append(known, s.Alias)
		}
		return nil, unknownPackages(unknown, known, "this project")
	}
	if len(ts) == 0 {
		return nil, errors.New("name the packages to remove (see `ctx list`)")
	}
	p := &plan{tasks: ts, force: o.Force}
	w.decide(context.Background(), p) // removes compare with no commit: nothing to wait for
	return p, nil
}

// Add adds specs to the manifest (alias defaulted from path or repo name when
// empty; a duplicate alias is an error), resolves, installs and locks them, in
// parallel. A spec whose fetch fails is not kept in the manifest and is
// reported Skipped (no access) or Failed. A spec without a kind gets
// InferKind's (recorded in the manifest unless git). A dir spec must name an
// existing file or folder; it is only recorded (Linked) and indexed in place,
// with a warning when it is an absolute path outside the project. With
// DryRun the report is the plan (refs resolved, nothing fetched) and
// nothing changes.
func (w *Workspace) Add(ctx context.Context, specs []project.PackageSpec, o AddOptions) (*Report, error) {
	p, err := w.planAdd(ctx, specs, o)
	if err != nil {
		return nil, err
	}
	if o.DryRun {
		return p.report(), nil
	}
	rep, err := w.execute(ctx, p)
	if err == nil {
		for _, t := range p.tasks {
			if t.localWhy != "" && t.j != nil {
				w.notice("%s: %s %s: recorded as your own source in %s (git-ignored, not committed)", t.alias, safetext.Quote(t.spec.Source), t.localWhy, project.Rel(project.LocalName))
			}
			if t.allow != "" && t.j != nil {
				w.notice("%s: %s is outside the project: allowed for you in %s (git-ignored, not committed); a clone of the project must allow it too (`ctx install --allow-outside %s`)",
					t.alias, safetext.Quote(t.allow), project.Rel(project.LocalName), t.alias)
			}
			if a := t.allowIn; a != nil && t.j != nil {
				what := "its files git does not track"
				if a.Ref != "" {
					what = "ref " + safetext.Quote(a.Ref) + ", which git does not share"
				}
				w.notice("%s: %s may serve %s: allowed for you in %s (git-ignored, not committed); a clone of the project serves only what git shares until its user allows it too (`ctx install --allow-outside %s`)",
					t.alias, safetext.Quote(t.spec.Source), what, project.Rel(project.LocalName), t.alias)
			}
			if t.allowWeb != nil && t.j != nil {
				w.notice("%s: %s at %s allowed for you in %s (git-ignored, not committed); a clone of the project must allow it too (`ctx install --allow-outside %s`)",
					t.alias, t.allowWeb.What(), safetext.Quote(t.allowWeb.Origin), project.Rel(project.LocalName), t.alias)
			}
		}
	}
	return rep, err
}

// addKind settles the kind of spec s for Add: inferred when it names
// none (InferKind, probing with a registry's guard when registry), and
// "" for git (git needs no kind in the manifest). A local path given as
// git that is no repository is an error naming the source: what was
// typed is wrong (ErrBadSpec), not a repository that cannot be read.
func (w *Workspace) addKind(ctx context.Context, eng *gitengine.Engine, s *project.PackageSpec, registry bool) error {
	if s.Kind == "" && s.Source != "" {
		// The probe is guarded as the fetch is (addEngine): a redirect
		// to another private origin reaches nothing (review of red20).
		probe := w.addEngine(eng, *s)
		if registry {
			probe = w.registryEngine(eng, *s)
		}
		kind, err := w.InferKind(ctx, probe, s.Source)
		if err != nil {
			return err
		}
		s.Kind = kind
	}
	if s.Kind == project.KindGit && naming.IsLocalPath(s.Source) {
		if err := w.checkLocalRepo(s.Source); err != nil {
			return err
		}
	}
	if s.Kind == project.KindGit {
		s.Kind = ""
	}
	return nil
}

// planAdd plans add: each spec (alias defaulted) checked, resolved and
// installed, and recorded in the manifest once installed.
func (w *Workspace) planAdd(ctx context.Context, specs []project.PackageSpec, o AddOptions) (*plan, error) {
	if len(specs) == 0 {
		return nil, errors.New("name a source to add: a git URL, a local file, folder or repository, or an http(s) URL")
	}
	l, err := w.readLock()
	if err != nil {
		return nil, err
	}
	m := w.Manifest()
	var ts []*task
	var probs []error
	taken := map[string]string{} // naming.AliasKey: the alias that has it
	for _, s := range m.Packages {
		taken[naming.AliasKey(s.Alias)] = s.Alias
	}
	withAdded := m // the manifest with the dir specs of this Add so far
	withAdded.Packages = slices.Clone(m.Packages)
	eng := w.engine()
	for i := range specs {
		s := cleanSpec(specs[i])
		where := safetext.Clip(naming.RedactURL(s.Source), 0)
		if where == "" {
			where = fmt.Sprintf("package %d", i+1)
		}
		// bad records a spec that cannot be added: a problem of the whole
		// Add, or with KeepGoing that spec's failure alone.
		bad := func(err error) {
			if !o.KeepGoing {
				probs = append(probs, err)
				return
			}
			alias := s.Alias
			if alias == "" {
				alias = DefaultAlias(s.Source, s.Path)
			}
			ts = append(ts, &task{alias: alias, spec: &s, resolveErr: err})
		}
		if err := w.addKind(ctx, eng, &s, o.NoAllowOutside); err != nil {
			bad(err) // it names the source
			continue
		}
		if isDir(&s) && naming.IsLocalPath(s.Source) {
			s.Source = cleanDirSource(s.Source)
		}
		if s.Alias == "" && isDir(&s) {
			s.Alias = w.dirAlias(s.Source)
		} else if s.Alias == "" {
			s.Alias = DefaultAlias(s.Source, s.Path)
		}
		if ps := project.CheckSpec(s); len(ps) > 0 {
			var msgs []string
			for _, p := range ps {
				msgs = append(msgs, fmt.Sprintf("%s: %s: %s", where, p.Field, p.Msg))
			}
			bad(errors.New(strings.Join(msgs, "\n")))
			continue
		}
		if had, ok := taken[naming.AliasKey(s.Alias)]; ok {
			if had == s.Alias {
				bad(fmt.Errorf("%s: alias %s is already used; choose another with --alias", where, safetext.Quote(s.Alias)))
			} else {
				bad(fmt.Errorf("%s: alias %s is already used as %s (aliases that differ only in case are one folder on macOS and Windows); choose another with --alias", where, safetext.Quote(s.Alias), safetext.Quote(had)))
			}
			continue
		}
		taken[naming.AliasKey(s.Alias)] = s.Alias
		t := &task{alias: s.Alias, spec: &s, resolve: true, addSpec: true, eng: w.addEngine(eng, s)}
		if isDir(&s) {
			if err := w.checkDirSource(&s); err != nil {
				bad(fmt.Errorf("%s: %w", where, err))
				continue
			}
			allowIn, why, err := w.placeDirSource(&s)
			if err != nil {
				bad(fmt.Errorf("%s: %w", where, err))
				continue
			}
			t.allowIn, t.localWhy = allowIn, why
			if err := w.proj.Overlap(&withAdded, s); err != nil {
				bad(err)
				continue
			}
			withAdded.Packages = append(withAdded.Packages, s)
			t.resolve = false
		} else {
			if want, asks := project.WebAllowFor(s); asks && !s.Local && !w.manifest.AllowsWeb(want) {
				t.allowWeb = &want // the user typed it: allowed with the spec
			} else if want, ok := w.proj.InsideAllowFor(s); ok && !s.Local && !o.NoAllowOutside {
				if !w.manifest.AllowsInside(want) {
					t.allowIn = &want // the user typed it: the project's own repository at a ref no remote has, allowed with the spec
				}
			} else if s.KindOf() != project.KindHTTPS {
				allow, err := w.placeGitSource(s)
				if err != nil {
					bad(fmt.Errorf("%s: %w", where, err))
					continue
				}
				if allow != "" && o.NoAllowOutside {
					ts = append(ts, &task{alias: s.Alias, spec: &s, resolveErr: fmt.Errorf("%s leads outside the project (to %s), and you did not name it: the registry the manifest names did, and a path on this machine is allowed only on your word; if it is yours, add it with `%s`, or name the registry yourself (--registry)",
						where, safetext.Quote(allow), addCommand(s))})
					continue
				}
				t.allow = allow
				if o.NoAllowOutside {
					t.eng = w.registryEngine(eng, s)
				} else if want, private := w.privateAllow(ctx, s); private {
					t.allowWeb = &want // the user's word: allowed with the spec
				}
			}
			if e, ok := l.Packages[s.Alias]; ok {
				t.locked = &e
			}
		}
		ts = append(ts, t)
	}
	if len(probs) > 0 {
		return nil, &badSpecError{errors.Join(probs...)} // one a line; errors.As reaches each (cmd/ctx add rewords a MissingSourceError)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].alias < ts[j].alias })
	w.resolveTasks(ctx, ts) // not the specs KeepGoing failed: they resolve nothing
	p := &plan{tasks: ts, force: o.Force}
	w.decide(ctx, p)
	return p, nil
}

// addCommand is the `ctx add` that adds s as it is: same source, path, ref
// and alias (the advice when the user's word is what s lacks).
func addCommand(s project.PackageSpec) string {
	add := "ctx add " + safetext.Clip(s.Source, 0)
	if s.Path != "" {
		add += " --path " + safetext.Clip(s.Path, 0)
	}
	if s.Ref != "" {
		add += " --ref " + safetext.Clip(s.Ref, 0)
	}
	return add + " --alias " + safetext.Clip(s.Alias, 0)
}
