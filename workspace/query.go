package workspace

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/ctx-dev/ctx/internal/treehash"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
)

// List returns the union of manifest and lock, sorted by alias. A dir
// source counts as installed when its file or folder exists.
func (w *Workspace) List() ([]PackageInfo, error) {
	l, err := w.readLock()
	if err != nil {
		return nil, err
	}
	by := map[string]*PackageInfo{}
	for _, s := range w.manifest.Packages {
		by[s.Alias] = &PackageInfo{Alias: s.Alias, Kind: s.KindOf(), Source: s.Source, Path: s.Path, Ref: s.Ref, InManifest: true, Local: s.Local}
	}
	for alias, e := range l.Packages {
		p, ok := by[alias]
		if !ok {
			p = &PackageInfo{Alias: alias, Kind: e.Kind, Source: e.Source, Path: e.Path, Ref: e.Ref}
			if p.Kind == "" {
				p.Kind = project.KindGit
			}
			by[alias] = p
		}
		p.Locked, p.Commit, p.Withheld = true, e.Rev, e.Withheld
	}
	live := map[string]bool{}
	for _, pkg := range w.proj.Live(&w.manifest) {
		live[pkg.Alias] = pkg.Present()
	}
	for _, e := range w.proj.Refused(&w.manifest) {
		if p, ok := by[e.Alias]; ok {
			p.Refused = e.Err.Error()
		}
	}
	out := make([]PackageInfo, 0, len(by))
	for alias, p := range by {
		if present, ok := live[alias]; ok && !p.Locked {
			p.Installed = present
		} else {
			p.Installed = w.proj.IsInstalled(alias)
			if p.Installed && p.Locked && !w.proj.InstalledHere(alias) {
				p.Installed, p.NotInstalledHere = false, true
			}
		}
		if p.Installed && p.Locked {
			p.InstalledCommit, p.Edited, p.FilesLocked = w.behindEdited(alias, l.Packages[alias])
		}
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Alias < out[j].Alias })
	return out, nil
}

// behind returns the revision ctx installed in alias's folder (its
// .state) when it is not locked, the lock's: a pull or checkout brought
// another lock and no `ctx install` followed. "" when they agree, or when
// no state is recorded (nothing to tell by).
// Only the state's head is read (project.ReadStateHead: its "commit"),
// not its records: list asks this of every package (status21).
func (w *Workspace) behind(alias, locked string) string {
	h, err := project.ReadStateHead(w.statePath(alias))
	if err != nil {
		return ""
	}
	return project.BehindRev(h.Commit, locked)
}

// behindEdited is behind, and for a package behind the lock whether it
// also has local edits (status's rule: the files differ from what ctx
// installed), or whether its files are, all of them, the lock's (a pull
// brought them: followedLock, trust23). Only a package behind is diffed,
// so list stays cheap.
func (w *Workspace) behindEdited(alias string, locked lockfile.Entry) (rev string, edited, filesLocked bool) {
	if rev = w.behind(alias, locked.Rev); rev == "" {
		return "", false, false
	}
	loc, err := w.inspect(alias, nil, false)
	if err != nil {
		w.log("warning: %v", err)
		return rev, false, false
	}
	if loc.dirty() && w.followedLock(alias, loc.state, locked) {
		return rev, false, true
	}
	return rev, loc.dirty(), false
}

// behind is the revision st records when it is not locked (the one rule
// of "behind the lock"); "" when they agree or st records none.
func (st *pkgState) behind(locked string) string {
	if st == nil {
		return ""
	}
	return project.BehindRev(st.Rev, locked)
}

// Refused is the manifest's local sources that the containment rule
// refuses (project.Refused): neither fetched, indexed nor served.
func (w *Workspace) Refused() []*project.SourceError { return w.proj.Refused(&w.manifest) }

// aliases is every package the project knows: manifest, lock, and folders
// ctx installed.
func (w *Workspace) aliases(l *lockfile.Lock) []string {
	seen := map[string]bool{}
	for _, s := range w.manifest.Packages {
		seen[s.Alias] = true
	}
	for a := range l.Packages {
		seen[a] = true
	}
	for _, a := range w.packageDirs() {
		if exists(w.statePath(a)) {
			seen[a] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// CheckPackages returns the one error for an alias the project does not
// know (unknownPackages: exit 2, a typo's likely meaning), for a command
// that asked another source first (links asks the index); nil when the
// manifest, the lock or an installed folder knows every alias.
func (w *Workspace) CheckPackages(aliases []string) error {
	l, err := w.readLock()
	if err != nil {
		return err
	}
	known := w.aliases(l)
	var unknown []string
	for _, a := range aliases {
		if !slices.Contains(known, a) {
			unknown = append(unknown, a)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	return unknownPackages(unknown, known, "this project")
}

// Status returns the dirty packages, and those ctx installed at another
// revision than the lock's (behind the lock: InstalledCommit), sorted by
// alias.
func (w *Workspace) Status() ([]PackageStatus, error) {
	l, err := w.readLock()
	if err != nil {
		return nil, err
	}
	var out []PackageStatus
	for _, a := range w.aliases(l) {
		var locked *lockfile.Entry
		if e, ok := l.Packages[a]; ok {
			locked = &e
		}
		loc, err := w.inspect(a, locked, false)
		if err != nil {
			return nil, err
		}
		s := PackageStatus{Alias: a, Files: loc.changes}
		if locked != nil && loc.present {
			if rev := loc.state.behind(locked.Rev); rev != "" {
				s.InstalledCommit, s.LockedCommit = rev, locked.Rev
			}
		}
		if locked != nil && loc.present && !w.proj.InstalledHere(a) {
			s.NotInstalledHere = true
		}
		if s.InstalledCommit != "" && loc.dirty() && w.followedLock(a, loc.state, *locked) {
			// A pull brought the lock and these files: the locked
			// commit's text, no local edits (trust23).
			s.Files, s.FilesLocked = nil, true
			loc.changes = nil
		}
		if loc.dirty() || s.InstalledCommit != "" || s.NotInstalledHere {
			if s.Files == nil {
				s.Files = []FileChange{}
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// Verify hashes every locked package's installed files and checks their
// modes against what ctx installed, sorted by alias.
func (w *Workspace) Verify() ([]VerifyResult, error) {
	l, err := w.readLock()
	if err != nil {
		return nil, err
	}
	aliases := slices.Sorted(maps.Keys(l.Packages))
	out := make([]VerifyResult, len(aliases))
	parallel(len(aliases), w.opts.Jobs, func(i int) {
		a := aliases[i]
		r := VerifyResult{Alias: a, Want: l.Packages[a].Hash}
		if exists(w.pkgDir(a)) {
			if h, err := treehash.HashDir(w.pkgDir(a)); err == nil {
				r.Got = h
			} else {
				w.log("warning: %s: %v", a, err)
			}
		}
		if r.Got != "" {
			r.Modes = w.modeChanges(a)
		}
		r.OK = r.Got != "" && r.Got == r.Want && len(r.Modes) == 0
		// Behind the lock only when the files are as ctx installed them
		// at the installed revision (a plain install moves them on);
		// edited files too are local edits, which install skips as dirty.
		if !r.OK && r.Got != "" && len(r.Modes) == 0 {
			if rev := w.behind(a, l.Packages[a].Rev); rev != "" && w.installedAs(a, rev, r.Got) {
				r.InstalledCommit, r.LockedCommit = rev, l.Packages[a].Rev
			}
		}
		if r.Got != "" && r.Got != r.Want {
			r.LockHash = w.installedAs(a, l.Packages[a].Rev, r.Got)
		}
		out[i] = r
	})
	return out, nil
}

// installedAs reports whether alias's state says ctx installed revision
// rev and its files hashed to hash then.
func (w *Workspace) installedAs(alias, rev, hash string) bool {
	st, err := w.readState(alias)
	return err == nil && st.Rev == rev && st.Hash == hash
}

// modeChanges lists the files of alias whose git mode differs from the one
// ctx installed (stat only; contents are verify's h1: hash's to judge).
// Without a state file there is nothing to compare with.
func (w *Workspace) modeChanges(alias string) []string {
	st, err := w.readState(alias)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			w.log("warning: %s: %v", alias, err)
		}
		return nil
	}
	var out []string
	for _, f := range st.Files {
		fi, err := os.Lstat(filepath.Join(w.pkgDir(alias), filepath.FromSlash(f.Path)))
		if err == nil && gitMode(fi.Mode()) != f.Mode {
			out = append(out, f.Path)
		}
	}
	return out
}
