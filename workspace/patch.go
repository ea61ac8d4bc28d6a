package workspace

// Churn-free updates (issue 18). When a package is installed and ctx knows
// what it installed (.state/), an install or update does not swap the
// whole folder in: it moves into place only the files that differ from the
// new tree, so every other file keeps its inode and mtime (and the folder
// its own), and file watchers, editors and indexers see only what changed.
//
// The new tree is still fetched, filtered by audience rules and hashed
// (h1:, the whole tree) before anything in the package folder changes, but
// the stage holds only what the folder lacks: a git fetch is told which
// files the folder has as ctx installed them (keepable, gitengine's
// FetchRequest.Have) and writes the others; the audience rules and the
// hash read the kept files in place (stageTree), and then checkKept makes
// sure none was edited meanwhile. (An https source's stage is whole.)
// planPatch then compares the folder with the new tree, making sure what
// it replaces or deletes was not edited either, and the journal (op
// "patch") records the changes:
//
//	Put     files moved in from the stage .tmp/<alias>.new: added or changed
//	        (whatever is at the path is kept in .tmp/<alias>.old first: a
//	        file by a hard link, so the new one is renamed over it)
//	Delete  files moved to .tmp/<alias>.old
//	Chmod   files whose executable bit alone changes, changed in place
//
// patchForward (swap's part for a patch) does them in this order: deleted
// files out, folders that emptied and that the new tree has no use for
// removed, then for each new file the old one at its path linked into
// .old and the new one renamed over it (one rename each, atomic per file:
// a reader finds the old file or the new one, never none), the modes; then the state of the files it touched is recorded
// from the disk (only theirs: the others keep their entries). Each step is
// skipped when it is already done, so recovery can run it again after a
// crash at any point and finish the change. patchBack (unswap's part)
// undoes it while .tmp/<alias>.old still holds what was replaced, leaving
// the journal until the end, so a crash while undoing is rolled forward.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/treehash"
	"github.com/ctx-dev/ctx/project"
)

// patch is what a churn-free update changes in a package folder. Paths are
// slash-separated and relative to the folder; each passes
// naming.CheckFilePath.
type patch struct {
	Put    []fileState `json:"put,omitempty"`    // the new file's blob and mode
	Delete []fileState `json:"delete,omitempty"` // the old file's, when ctx installed it
	Chmod  []fileState `json:"chmod,omitempty"`  // Mode is the new one: 0644 or 0755
}

// paths lists the files p touches: put, deleted, their mode changed.
func (p *patch) paths() []string {
	out := make([]string, 0, len(p.Put)+len(p.Delete)+len(p.Chmod))
	for _, group := range [][]fileState{p.Put, p.Delete, p.Chmod} {
		for _, f := range group {
			out = append(out, f.Path)
		}
	}
	return out
}

// errNoPatch says that a folder cannot be patched: it is swapped whole.
var errNoPatch = errors.New("cannot patch")

// patchable reports whether t's package may be patched: it is installed
// (a folder) and ctx knows what it installed.
func (w *Workspace) patchable(t *task) bool {
	if w.opts.wholeFolders || t.loc == nil || !t.loc.present || t.loc.state == nil {
		return false
	}
	fi, err := os.Lstat(w.pkgDir(t.alias))
	return err == nil && fi.IsDir()
}

// keepable lists the files of t's installed package that its fetch need
// not write into the stage, by path: every file ctx installed that the
// guard found unchanged, when the package will be patched under the same
// audience rules (a file the new tree has with the same blob and mode is
// then left alone, and its documents are allowed as they were).
func (w *Workspace) keepable(t *task) map[string]fileState {
	if !w.patchable(t) || t.audienceStale || t.kind() != project.KindGit {
		return nil
	}
	changed := make(map[string]bool, len(t.loc.changes))
	for _, c := range t.loc.changes {
		changed[c.Path] = true
	}
	keep := make(map[string]fileState, len(t.loc.state.Files))
	for _, f := range t.loc.state.Files {
		if !changed[f.Path] && naming.CheckFilePath(f.Path) == nil {
			keep[f.Path] = f
		}
	}
	return keep
}

// stageTree is the new tree of a package while it is staged: the files in
// the stage, and those kept in the package folder (fetched.kept).
type stageTree struct {
	stage, pkg string
	kept       map[string]fileState
	at         int64 // when the state kept's entries are from was written (pkgState.at)
	rulesNoted bool  // that state recorded which documents have audience rules
	// sums are the staged files' sums as the fetch wrote them
	// (fetched.sums): the hash does not read them back.
	sums map[string]string
}

// file is where the file rel of the new tree is now.
func (s stageTree) file(rel string) string {
	if _, ok := s.kept[rel]; ok {
		return in(s.pkg, rel)
	}
	return in(s.stage, rel)
}

// docs lists the documents of the tree, as markdown.Walk lists a folder's.
func (s stageTree) docs(warn func(dir string, err error)) ([]string, error) {
	docs, err := markdown.Walk(os.DirFS(s.stage), warn)
	if err != nil || len(s.kept) == 0 {
		return docs, err
	}
	more, err := markdown.Walk(os.DirFS(s.pkg), warn)
	if err != nil {
		return nil, err
	}
	for _, d := range more {
		if _, ok := s.kept[d]; ok {
			docs = append(docs, d)
		}
	}
	sort.Strings(docs)
	return docs, nil
}

// hash is the h1: hash of the tree without the files in omit, and each
// file's sum (treehash.HashTreeSums). A kept file whose sum the state
// recorded is not read (checkKept proves it unchanged afterwards), nor is
// a staged file whose sum the fetch computed as it wrote it.
func (s stageTree) hash(omit map[string]bool) (string, map[string]string, error) {
	files := map[string]string{}
	err := treehash.WalkFiles(s.stage, func(rel string, _ fs.DirEntry) error {
		files[rel] = s.stage
		return nil
	})
	if err != nil {
		return "", nil, fmt.Errorf("hash %s: %w", s.stage, err)
	}
	known := make(map[string]string, len(files)+len(s.kept))
	for p := range files {
		if sum, ok := s.sums[p]; ok {
			known[p] = sum
		}
	}
	for p, f := range s.kept {
		if !omit[p] {
			files[p] = s.pkg
			if f.Sum != "" {
				known[p] = f.Sum
			}
		}
	}
	h, sums, err := treehash.HashTreeSums(files, known)
	if err != nil {
		return "", nil, fmt.Errorf("hash %s: %w", s.stage, err)
	}
	return h, sums, nil
}

// checkKept makes sure the kept files are still what ctx installed, after
// they were read for the hash and the audience rules. An edit made since
// the guard looked would otherwise be in the lock's hash.
func (s stageTree) checkKept() error {
	tr := fileid.NewTree(s.pkg)
	defer tr.Close()
	for _, f := range s.kept {
		if !asInstalled(tr, s.pkg, f, s.at, "") {
			return changedMeanwhile(f.Path)
		}
	}
	return nil
}

// asInstalled reports whether the file f of the package folder pkg
// (stat'ed through tr, pkg's Tree), recorded in a state written at at, is
// still what ctx installed (or, when other is not "", holds the blob
// other): a file whose stat data does not prove it unchanged (proven), or
// any on a system without ctimes, is hashed. It closes the window between
// the guard's look, when the command planned, and the change.
func asInstalled(tr *fileid.Tree, pkg string, f fileState, at int64, other string) bool {
	fi, err := tr.Info(f.Path)
	if err != nil || gitMode(fi.Mode()) == 0 {
		return false // gone, or no file git holds (never read: a FIFO would block)
	}
	if other == "" {
		return holdsInstalled(in(pkg, f.Path), fi, f, at, nil)
	}
	if gitMode(fi.Mode()) == f.Mode && proven(f, fi, at) {
		return true
	}
	blob, err := blobOf(in(pkg, f.Path), fi)
	return err == nil && (blob == f.Blob || (other != "" && blob == other))
}

// holdsBlob reports whether the file rel of the package folder pkg is
// nf, the new tree's version of it (inNew: the new tree has rel), by content
// and mode.
func holdsBlob(tr *fileid.Tree, pkg, rel string, nf fileState, inNew bool) bool {
	if !inNew {
		return false
	}
	fi, err := tr.Info(rel)
	if err != nil || gitMode(fi.Mode()) == 0 || gitMode(fi.Mode()) != nf.Mode {
		return false
	}
	blob, err := blobOf(in(pkg, rel), fi)
	return err == nil && blob == nf.Blob
}

func changedMeanwhile(path string) error {
	return fmt.Errorf("%s changed while ctx was updating the package (nothing was changed: run the command again)", path)
}

// unkeep copies the kept files into the stage and records them there in
// st, for a package swapped whole after all.
func (w *Workspace) unkeep(s stageTree, st *pkgState) error {
	for i, f := range st.Files {
		if _, ok := s.kept[f.Path]; !ok {
			continue
		}
		to := in(s.stage, f.Path)
		if err := w.fs.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := w.copyFile(in(s.pkg, f.Path), to); err != nil {
			return err
		}
		fi, err := os.Lstat(to)
		if err != nil {
			return err
		}
		st.Files[i] = f.restamp(fi)
	}
	return nil
}

// planPatch compares the installed package of t with the new tree st (the
// stage's state) and returns the changes that make the folder the new
// tree, and the state the package will then have: st, with the entries of
// the files left alone carried over from the old state. A file is left
// alone when its blob and mode are the ones ctx installed and the new tree
// has, and the guard found no local change to it (with --force, every file
// it found changed is replaced or deleted). errNoPatch means the folder
// is to be swapped whole: ctx does not know what it installed, or a path on
// disk is not one a journal may name.
func (w *Workspace) planPatch(t *task, st *pkgState) (*patch, *pkgState, error) {
	if !w.patchable(t) {
		return nil, nil, errNoPatch
	}
	dir := w.pkgDir(t.alias)
	// The maps hold indexes, not 100-byte entries: their tables were a
	// sixth of planPatch's CPU, mostly fresh pages (issue 31).
	olds := t.loc.state.Files
	old := make(map[string]int, len(olds))
	for i, f := range olds {
		old[f.Path] = i
	}
	changed := make(map[string]bool, len(t.loc.changes))
	for _, c := range t.loc.changes {
		changed[c.Path] = true
	}
	want := make(map[string]int, len(st.Files))
	for i, f := range st.Files {
		want[f.Path] = i
	}
	p := &patch{}
	kept := make(map[string]int, len(st.Files)) // into olds
	seen := make(map[string]bool, len(st.Files))
	tr := fileid.NewTree(dir)
	defer tr.Close()
	err := treehash.WalkFiles(dir, func(rel string, _ fs.DirEntry) error {
		if naming.CheckFilePath(rel) != nil {
			return errNoPatch
		}
		seen[rel] = true
		var nf, of fileState
		ni, ok := want[rel]
		if ok {
			nf = st.Files[ni]
		}
		oi, known := old[rel]
		if known {
			of = olds[oi]
		}
		if !known && !changed[rel] && !holdsBlob(tr, dir, rel, nf, ok) {
			// Not a file ctx installed, nor one the guard found (an added
			// file the merged-push exception passed holds the new
			// version): made or edited since the guard looked, while the
			// new version was fetched. Deleting or replacing it would lose
			// it without a backup (review17d).
			return changedMeanwhile(rel)
		}
		clean := known && !changed[rel]
		if clean && (!ok || of.Blob != nf.Blob || of.Mode != nf.Mode) && !asInstalled(tr, dir, of, t.loc.state.at, nf.Blob) {
			// To be replaced or deleted, found unchanged by the guard
			// when the command planned (or holding the new version: an
			// edit sent with ctx push and merged), edited since.
			return changedMeanwhile(rel)
		}
		switch {
		case !ok && known:
			p.Delete = append(p.Delete, of)
		case !ok:
			p.Delete = append(p.Delete, fileState{Path: rel})
		case clean && of.Blob == nf.Blob && of.Mode == nf.Mode:
			kept[rel] = oi
		case clean && of.Blob == nf.Blob && of.Mode.IsRegular() && nf.Mode.IsRegular():
			p.Chmod = append(p.Chmod, nf)
		default:
			p.Put = append(p.Put, nf)
		}
		return nil
	})
	if errors.Is(err, errNoPatch) {
		return nil, nil, errNoPatch
	}
	if err != nil {
		return nil, nil, err
	}
	next := *st
	next.Files = make([]fileState, 0, len(st.Files))
	for _, nf := range st.Files {
		if naming.CheckFilePath(nf.Path) != nil {
			return nil, nil, errNoPatch
		}
		if !seen[nf.Path] {
			p.Put = append(p.Put, nf)
		}
		if oi, ok := kept[nf.Path]; ok {
			nf = olds[oi]
		}
		next.Files = append(next.Files, nf)
	}
	sort.Slice(p.Put, func(i, j int) bool { return p.Put[i].Path < p.Put[j].Path })
	for _, f := range p.Put {
		if !exists(in(w.stageDir(t.alias), f.Path)) {
			return nil, nil, fmt.Errorf("%s is to be replaced, but it is not in the stage (was it changed while ctx was updating the package? nothing was changed: run the command again)", f.Path)
		}
	}
	return p, &next, nil
}

// check refuses a patch any of whose paths naming.CheckFilePath refuses:
// a journal is read back from disk, and its paths are joined to folders.
func (p *patch) check() error {
	for _, l := range [][]fileState{p.Put, p.Delete, p.Chmod} {
		for _, f := range l {
			if err := naming.CheckFilePath(f.Path); err != nil {
				return err
			}
		}
	}
	return nil
}

// in is the path of the slash-separated rel inside dir.
func in(dir, rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }

// ancestors lists the folders on the way to each of files (not the package
// folder itself, nor those in skip and above), deepest first.
func ancestors(files []fileState, skip map[string]bool) []string {
	set := map[string]bool{}
	for _, f := range files {
		for d := path.Dir(f.Path); d != "." && !skip[d]; d = path.Dir(d) {
			set[d] = true
		}
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if a, b := strings.Count(out[i], "/"), strings.Count(out[j], "/"); a != b {
			return a > b
		}
		return out[i] < out[j]
	})
	return out
}

// removeEmpty deletes each of the folders dirs (relative to pkg, deepest
// first) that exists and holds nothing.
func (w *Workspace) removeEmpty(pkg string, dirs []string) error {
	for _, d := range dirs {
		ents, err := os.ReadDir(in(pkg, d))
		if err != nil || len(ents) > 0 {
			continue // gone, not a folder, or still used
		}
		if err := w.fs.Remove(in(pkg, d)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// execBit is perm with the executable bits set (where it may be read, as
// git does) or cleared, to match the git mode want.
func execBit(perm, want fs.FileMode) fs.FileMode {
	perm = perm.Perm()
	if want == 0o755 {
		return perm | (perm&0o444)>>2
	}
	return perm &^ 0o111
}

// movePatched moves one file of a patch (from and to are OS paths under
// .context/), making to's folder first, then stops at the test hook of
// stage: every move of patchForward (patch-out, patch-in) and of patchBack
// (patch-back).
func (w *Workspace) movePatched(from, to, stage, alias string) error {
	if err := w.fs.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if err := w.fs.Rename(from, to); err != nil {
		return err
	}
	return w.hook(stage, alias)
}

// patchForward does j's patch to the package folder (see the top of this
// file). It is idempotent: recovery runs it again.
func (w *Workspace) patchForward(j *journal) error {
	p := j.Patch
	pkg, old, nw := w.pkgDir(j.Alias), w.tmp(j.Alias+".old"), w.tmp(j.Alias+".new")
	if err := p.check(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	// out moves what is at rel in the package to .old, once: when .old
	// has it, a deleted file was moved out before (a folder of the new
	// tree may be at its path now); a replaced one that is not a regular
	// file was too (see keep), and nothing should be at its path until
	// the new file comes in.
	out := func(rel string, deleted bool) error {
		from, to := in(pkg, rel), in(old, rel)
		if !exists(from) || (deleted && exists(to)) {
			return nil
		}
		if exists(to) {
			return fmt.Errorf("both %s and %s exist: ctx cannot tell which one to put back; the package was left as it was: if %s is a folder you made (an empty one ctx does not track), move it away and run the command again", from, to, from)
		}
		if err := w.fault("patch-out", j.Alias); err != nil {
			return err
		}
		return w.movePatched(from, to, "patch-out", j.Alias)
	}
	for _, f := range p.Delete {
		if err := out(f.Path, true); err != nil {
			return err
		}
	}
	needed := map[string]bool{}
	for _, d := range ancestors(p.Put, nil) {
		needed[d] = true
	}
	if err := w.removeEmpty(pkg, ancestors(p.Delete, needed)); err != nil {
		return err
	}
	// keep puts what is at rel in the package into .old before the new
	// file replaces it. A regular file is hard-linked there, so that the
	// rename of the new file over it is the one step in which the path
	// changes: a reader (ctx mcp's get_document, an editor) finds the old
	// file or the new one, never none (audit17 finding 15). Anything else
	// (a folder, a symbolic link: neither may be renamed over), or a file
	// on a file system without hard links, is moved out as a deleted one
	// is, and the path is empty until the new file comes in.
	keep := func(rel string) error {
		from, to := in(pkg, rel), in(old, rel)
		fi, err := os.Lstat(from)
		if err != nil || !fi.Mode().IsRegular() {
			return out(rel, false)
		}
		if ti, err := os.Lstat(to); err == nil {
			if os.SameFile(fi, ti) {
				return nil // linked before
			}
			return out(rel, false) // both exist: out says so
		}
		if err := w.fault("patch-out", j.Alias); err != nil {
			return err
		}
		if err := w.fs.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := w.fs.Link(from, to); err != nil {
			if !noHardLinks(err) {
				return err
			}
			return out(rel, false)
		}
		return w.hook("patch-out", j.Alias)
	}
	for _, f := range p.Put {
		from, to := in(nw, f.Path), in(pkg, f.Path)
		if !exists(from) {
			continue // moved in before
		}
		if err := keep(f.Path); err != nil {
			return err
		}
		if err := w.fault("patch-in", j.Alias); err != nil {
			return err
		}
		if err := w.movePatched(from, to, "patch-in", j.Alias); err != nil {
			return err
		}
	}
	for _, f := range p.Chmod {
		fi, err := os.Lstat(in(pkg, f.Path))
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", in(pkg, f.Path))
		}
		if gitMode(fi.Mode()) != f.Mode {
			if err := w.fs.Chmod(in(pkg, f.Path), execBit(fi.Mode(), f.Mode)); err != nil {
				return err
			}
		}
	}
	syncDirs(pkg, p)
	return nil
}

// noHardLinks reports whether err, from os.Link, says that the file
// system makes no hard links (or no more to that file), rather than that
// the link failed for a reason a move would fail for as well.
func noHardLinks(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || errors.Is(err, syscall.EPERM) ||
		errors.Is(err, syscall.EMLINK) || errors.Is(err, syscall.EXDEV)
}

// patchBack undoes what patchForward did of j's patch: the modes set back,
// the new files moved back to the stage (so that a crash from here on can
// still roll the change forward), the folders made for them and now empty
// removed, and what .old holds moved back into place.
func (w *Workspace) patchBack(j *journal) error {
	p := j.Patch
	pkg, old, nw := w.pkgDir(j.Alias), w.tmp(j.Alias+".old"), w.tmp(j.Alias+".new")
	if err := p.check(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	for _, f := range p.Chmod {
		fi, err := os.Lstat(in(pkg, f.Path))
		if err == nil && fi.Mode().IsRegular() && gitMode(fi.Mode()) == f.Mode {
			back := fs.FileMode(0o755)
			if f.Mode == 0o755 {
				back = 0o644
			}
			if err := w.fs.Chmod(in(pkg, f.Path), execBit(fi.Mode(), back)); err != nil {
				return err
			}
		}
	}
	move := func(from, to string) error {
		if !exists(from) || exists(to) {
			return nil
		}
		return w.movePatched(from, to, "patch-back", j.Alias)
	}
	for _, f := range p.Put {
		if !exists(in(nw, f.Path)) {
			if err := move(in(pkg, f.Path), in(nw, f.Path)); err != nil {
				return err
			}
		}
	}
	if err := w.removeEmpty(pkg, ancestors(p.Put, nil)); err != nil {
		return err
	}
	for _, l := range [][]fileState{p.Delete, p.Put} {
		for _, f := range l {
			if err := move(in(old, f.Path), in(pkg, f.Path)); err != nil {
				return err
			}
		}
	}
	syncDirs(pkg, p)
	return nil
}

// syncDirs flushes the folders of pkg whose entries p changes.
func syncDirs(pkg string, p *patch) {
	dirs := map[string]bool{".": true}
	for _, l := range [][]fileState{p.Put, p.Delete} {
		for _, f := range l {
			dirs[path.Dir(f.Path)] = true
		}
	}
	for d := range dirs {
		atomicfile.SyncDir(in(pkg, d))
	}
}

// refreshState records, in the state st the change staged, the files of
// j's patch as they are on disk now that they are in place: a rename or a
// mode change moves a file's ctime, and status takes a file whose ctime
// moved for one that may have been edited.
func (w *Workspace) refreshState(j *journal, st *pkgState) error {
	at := make(map[string]int, len(st.Files))
	for i, f := range st.Files {
		at[f.Path] = i
	}
	for _, l := range [][]fileState{j.Patch.Put, j.Patch.Chmod} {
		for _, f := range l {
			i, ok := at[f.Path]
			if !ok {
				return fmt.Errorf("%s: not in the state staged for %s", f.Path, j.Alias)
			}
			fi, err := os.Lstat(in(w.pkgDir(j.Alias), f.Path))
			if err != nil {
				return fmt.Errorf("record state: %w", err)
			}
			st.Files[i] = st.Files[i].restamp(fi)
		}
	}
	return nil
}

// stateDelta is what a patch changes in its package's state, carried by
// the journal (journal.State) so that the state is written once, after
// the files are in place, not staged in .tmp/ before the journal as well
// (issue 31): the new state is the old one with the entries of Drop
// removed and those of Set put in, under Head's fields.
type stateDelta struct {
	Head *pkgState   `json:"head"`           // the new state's fields; its Files are not used
	Set  []fileState `json:"set,omitempty"`  // entries the old state lacks or has otherwise
	Drop []fileState `json:"drop,omitempty"` // paths the new state lacks (Path alone)
}

// deltaOf is the delta that makes old next.
func deltaOf(old, next *pkgState) *stateDelta {
	head := *next
	head.Files, head.at = nil, 0
	d := &stateDelta{Head: &head}
	was := make(map[string]fileState, len(old.Files))
	for _, f := range old.Files {
		was[f.Path] = f
	}
	for _, f := range next.Files {
		if o, ok := was[f.Path]; !ok || o != f {
			d.Set = append(d.Set, f)
		}
		delete(was, f.Path)
	}
	for _, f := range old.Files {
		if _, ok := was[f.Path]; ok {
			d.Drop = append(d.Drop, fileState{Path: f.Path})
		}
	}
	return d
}

// apply is the state d makes of base (whose at it keeps), its files
// sorted by path.
func (d *stateDelta) apply(base *pkgState) *pkgState {
	s := *d.Head
	s.at = base.at
	gone := make(map[string]bool, len(d.Set)+len(d.Drop))
	for _, l := range [][]fileState{d.Set, d.Drop} {
		for _, f := range l {
			gone[f.Path] = true
		}
	}
	s.Files = make([]fileState, 0, len(base.Files)+len(d.Set))
	for _, f := range base.Files {
		if !gone[f.Path] {
			s.Files = append(s.Files, f)
		}
	}
	s.Files = append(s.Files, d.Set...)
	sort.Slice(s.Files, func(i, j int) bool { return s.Files[i].Path < s.Files[j].Path })
	return &s
}

// check refuses a delta read back from a journal that names a path
// naming.CheckFilePath refuses, or has no head.
func (d *stateDelta) check() error {
	if d.Head == nil {
		return errors.New("journal: a state change without its head")
	}
	for _, l := range [][]fileState{d.Set, d.Drop} {
		for _, f := range l {
			if err := naming.CheckFilePath(f.Path); err != nil {
				return err
			}
		}
	}
	return nil
}
