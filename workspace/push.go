package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
)

// PushOptions configure Push.
type PushOptions struct {
	Branch  string // the branch to create; "" = ctx/ALIAS-<first 7 hex of the new tree>
	Message string // the commit message; "" = a line naming the package and its files
	Author  gitengine.Signature
	DryRun  bool // build the commit and name the branch; push nothing
	// To confirms a destination other than the source the package's
	// files were installed from: it must be the source the manifest and
	// the lock name now. After such a push, the package's edits go there.
	To string
}

// PushResult is what Push did for one package.
type PushResult struct {
	Alias  string       `json:"alias"`
	Source string       `json:"source"` // the package's remote, as in the lock
	Parent string       `json:"parent"` // the locked commit, the new commit's parent
	Base   string       `json:"base,omitempty"`
	Branch string       `json:"branch,omitempty"`
	Commit string       `json:"commit,omitempty"`
	Files  []FileChange `json:"files"` // the local edits sent, sorted by path
	// Unchanged: no local edits (or none that change the repository's
	// tree): nothing was built or pushed.
	Unchanged bool `json:"unchanged,omitempty"`
	Existed   bool `json:"existed,omitempty"` // the branch was already there with this content
	Pushed    bool `json:"pushed,omitempty"`
}

// Push sends the local edits of a git package upstream: a commit whose
// parent is the locked commit, holding the edits found by the dirty-state
// guard's check (modified, added and deleted files, modes) at the
// package's path, on a new branch of its remote (see gitengine.Push). The
// package stays as it is locally: its files still differ from the lock
// until an update brings the merged commit (which the guard then lets
// through, the files being equal). Base is the branch the edits are meant
// for: the package's ref when it is a branch, else the remote's default
// branch ("" when unknown). A dir or https source, a package that is not
// locked or not installed, and one whose installed state is unknown are
// errors.
func (w *Workspace) Push(ctx context.Context, alias string, o PushOptions) (*PushResult, error) {
	l, err := w.readLock()
	if err != nil {
		return nil, err
	}
	spec, inManifest := w.manifest.Spec(alias)
	e, locked := l.Packages[alias]
	switch {
	case !inManifest && !locked:
		known := slices.Collect(maps.Keys(l.Packages))
		for _, s := range w.manifest.Packages {
			known = append(known, s.Alias)
		}
		return nil, unknownPackages([]string{alias}, known, "this project")
	case inManifest && spec.KindOf() == project.KindDir:
		// Not a package push takes: the user's argument (exit 2).
		return nil, &badSpecError{fmt.Errorf("%s is a dir source: its files are your project's own, so commit them in your project's repository; ctx push sends edits of git packages", safetext.Quote(alias))}
	case inManifest && spec.KindOf() == project.KindHTTPS, locked && !e.IsGit():
		return nil, &badSpecError{fmt.Errorf("%s is an https source: ctx cannot push to a web site; send the edit to the site's owners (ctx push sends edits of git packages)", safetext.Quote(alias))}
	case !locked:
		return nil, fmt.Errorf("%s is not locked: run `ctx install` first", safetext.Quote(alias))
	case !inManifest:
		// The lock alone names where edits would go: nothing the user
		// or the manifest chose (red18).
		return nil, fmt.Errorf("%s is locked but not in the manifest, so nothing names where its edits should go: add it back with `ctx add`, or run `ctx install`, which removes it", safetext.Quote(alias))
	case !sameSpec(&spec, &e):
		// A push goes where the manifest says, as an install does: a lock
		// that names another source (a teammate's edit of a file nobody
		// reviews) must not redirect the user's edits (red18).
		return nil, fmt.Errorf("%s: the lock (source %s, path %s, ref %s) differs from the manifest (source %s, path %s, ref %s), and ctx pushes only where the manifest says: run `ctx install` first, which installs what the manifest names, then push",
			safetext.Quote(alias), safetext.Quote(e.Source), safetext.Quote(e.Path), safetext.Quote(e.Ref), safetext.Quote(spec.Source), safetext.Quote(spec.Path), safetext.Quote(spec.Ref))
	}
	if _, err := w.proj.CheckSource(&w.manifest, spec); err != nil {
		// Where a push may write is where an install may read from.
		return nil, fmt.Errorf("%s: %w", safetext.Quote(alias), err)
	}
	loc, err := w.inspect(alias, &e, true)
	if err != nil {
		return nil, err
	}
	if !loc.present {
		return nil, fmt.Errorf("%s is not installed: run `ctx install`, edit its files, then push", safetext.Quote(alias))
	}
	if loc.state == nil {
		return nil, fmt.Errorf("%s: ctx does not know what it installed (no state in %s), so it cannot tell your edits apart: copy your files aside, run `ctx install --force`, copy them back, then push", safetext.Quote(alias), project.Rel(project.StateDir))
	}
	// --to names a repository, as the check it answers does (EndpointKey): the
	// error's advice shows the source redacted (review of red20).
	confirmed := o.To != "" && naming.EndpointKey(o.To) == naming.EndpointKey(e.Source)
	if from := loc.state.Source; from != "" && naming.EndpointKey(from) != naming.EndpointKey(e.Source) && !confirmed {
		// The manifest and the lock were pointed elsewhere together
		// since (a pull brings both): as a pull never changes where git
		// push goes, only the user's word does (red20).
		return nil, &RedirectedError{Alias: alias, From: from, To: e.Source, Given: o.To}
	}
	if o.To != "" && !confirmed {
		return nil, fmt.Errorf("%s: --to %s is not the source the manifest names (%s), and ctx push sends edits only there: to push elsewhere, point the package at that repository with `ctx add`",
			safetext.Quote(alias), safetext.Quote(naming.RedactURL(o.To)), safetext.Quote(naming.RedactURL(e.Source)))
	}
	res := &PushResult{Alias: alias, Source: e.Source, Parent: e.Rev, Files: loc.changes}
	if res.Files == nil {
		res.Files = []FileChange{}
	}
	if !loc.dirty() {
		res.Unchanged = true
		return res, nil
	}
	changes, err := w.readChanges(alias, loc.changes)
	if err != nil {
		return nil, err
	}
	msg := o.Message
	if msg == "" {
		msg = fmt.Sprintf("Update %s from ctx push\n\nLocal edits of the package %s (%s):\n", pathOr(e.Path), alias, naming.ShortRev(e.Rev, 12))
		for _, f := range dirtyList(loc.changes) {
			msg += "\n" + f
		}
		msg += "\n"
	}
	var named *project.PackageSpec
	if inManifest {
		named = &spec
	}
	eng := w.gitEngine(w.engine(), alias, named, e.Source)
	url := w.fetchURL(e.Source)
	pr, err := eng.Push(ctx, gitengine.PushRequest{
		URL: url, Commit: e.Rev, Ref: e.Ref, Path: e.Path,
		Branch: o.Branch, BranchPrefix: "ctx/" + alias + "-",
		Message: msg, Author: o.Author, Changes: changes, DryRun: o.DryRun,
	})
	if err != nil {
		return nil, err
	}
	res.Branch, res.Commit, res.Unchanged, res.Existed, res.Pushed = pr.Branch, pr.Commit, pr.Unchanged, pr.Existed, pr.Pushed
	if confirmed && !o.DryRun && loc.state.Source != e.Source {
		// The user's word holds for the next pushes: the state says
		// where the edits go now (not when opened read-only).
		st := *loc.state
		st.Source = e.Source
		if err := w.writeState(w.statePath(alias), &st); err != nil {
			w.log("warning: %s: could not record that its edits go to %s (%v): the next push asks for --to again", alias, naming.RedactURL(e.Source), err)
		}
	}
	if !res.Unchanged {
		res.Base = w.baseBranch(ctx, eng, url, e.Ref)
	}
	return res, nil
}

// RedirectedError is a push to a source other than the one the package's
// files were installed from: the manifest and the lock were changed
// together since (PushOptions.To confirms the new one).
type RedirectedError struct {
	Alias string
	From  string // where the files came from
	To    string // what the manifest and the lock name now
	Given string // PushOptions.To, when it names neither
}

func (e *RedirectedError) Error() string {
	msg := fmt.Sprintf("%s: its edits go to %s (where you added it from, or last pushed it with --to), but the manifest and the lock now name %s (a commit, or an edit, changed both since): ctx push sends your edits elsewhere only on your word. Check the change (git log -p .context/), then run `ctx push %s --to %s` to push there",
		safetext.Quote(e.Alias), safetext.Quote(naming.RedactURL(e.From)), safetext.Quote(naming.RedactURL(e.To)), e.Alias, safetext.Quote(naming.RedactURL(e.To)))
	switch {
	case e.Given == "":
	case naming.EndpointKey(e.Given) == naming.EndpointKey(e.From):
		// Not "neither" (review of red20): it names where edits went.
		msg += fmt.Sprintf(" (--to %s names where its edits went before, but push sends them only to the source the manifest names: to keep pushing there, point the package back at it with `ctx add`)", safetext.Quote(naming.RedactURL(e.Given)))
	default:
		msg += fmt.Sprintf(" (--to %s names neither)", safetext.Quote(naming.RedactURL(e.Given)))
	}
	return msg
}

// pathOr is p, or "the repository root" for "".
func pathOr(p string) string {
	if p == "" {
		return "the repository root"
	}
	return p
}

// baseBranch is the branch edits of a package at ref go to: ref when the
// remote has a branch of that name, else the remote's default branch; ""
// when neither is known.
func (w *Workspace) baseBranch(ctx context.Context, eng *gitengine.Engine, url, ref string) string {
	rem, err := eng.ListRefs(ctx, url)
	if err != nil {
		return ""
	}
	if ref != "" {
		for _, r := range rem.Refs {
			if r.Name == "refs/heads/"+ref || r.Name == ref && strings.HasPrefix(ref, "refs/heads/") {
				return strings.TrimPrefix(r.Name, "refs/heads/")
			}
		}
	}
	return strings.TrimPrefix(rem.Head, "refs/heads/")
}

// readChanges reads the new content of each changed file of the package
// (through an os.Root on its folder: nothing outside it, no link followed).
func (w *Workspace) readChanges(alias string, changes []FileChange) ([]gitengine.Change, error) {
	root, err := os.OpenRoot(w.pkgDir(alias))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	out := make([]gitengine.Change, 0, len(changes))
	for _, c := range changes {
		if c.Change == changeDeleted {
			out = append(out, gitengine.Change{Path: c.Path, Delete: true})
			continue
		}
		rel := filepath.FromSlash(c.Path)
		fi, err := root.Lstat(rel)
		if err != nil {
			return nil, fmt.Errorf("%s: read %s: %w", alias, c.Path, err)
		}
		ch := gitengine.Change{Path: c.Path, Mode: gitMode(fi.Mode())}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			t, err := root.Readlink(rel)
			if err != nil {
				return nil, fmt.Errorf("%s: read %s: %w", alias, c.Path, err)
			}
			ch.Content = []byte(t)
		case fi.Mode().IsRegular():
			if ch.Content, err = root.ReadFile(rel); err != nil {
				return nil, fmt.Errorf("%s: read %s: %w", alias, c.Path, err)
			}
		default:
			return nil, errors.New(alias + ": " + safetext.Quote(c.Path) + " is neither a file nor a symbolic link: remove it, then push")
		}
		out = append(out, ch)
	}
	return out, nil
}
