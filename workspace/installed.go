package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/internal/treehash"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
)

// InstalledFiles is what ctx installed of one package, as its state file
// records it, for a reader that names a file's text as the locked
// revision's (ctx mcp): Holds applies the dirty guard's rule to one file.
type InstalledFiles struct {
	rev   string // the commit (or https snapshot) ctx installed
	dir   string
	at    int64 // the state file's mtime (pkgState.at)
	files map[string]fileState
}

// ReadInstalled reads alias's state file (.state/<alias>.json) of the
// project proj. The state's stamps prove files unchanged only while it is
// the state read: a reader keeps an InstalledFiles while .state/ is unchanged.
func ReadInstalled(proj project.Project, alias string) (*InstalledFiles, error) {
	st, err := readStateFile(proj.StatePath(alias))
	if err != nil {
		return nil, err
	}
	return installedOf(st, proj.PackageDir(alias)), nil
}

// installedOf is the InstalledFiles of the state st of the package
// folder dir.
func installedOf(st *pkgState, dir string) *InstalledFiles {
	in := &InstalledFiles{rev: st.Rev, dir: dir, at: st.at, files: make(map[string]fileState, len(st.Files))}
	for _, f := range st.Files {
		in.files[f.Path] = f
	}
	return in
}

// followedLock reports whether alias's files, which differ from what ctx
// installed (st, behind the lock entry e), are, all of them, e's text:
// a pull brought the lock and the files (FollowedLock). Then they are no
// local edits: a plain `ctx install` records them (status, list).
func (w *Workspace) followedLock(alias string, st *pkgState, e lockfile.Entry) bool {
	return st != nil && installedOf(st, w.pkgDir(alias)).FollowedLock(e.Rev, e.Hash) != nil
}

// Commit is the revision ctx installed the package at (the state's
// commit): what the files it Holds are the text of, which is not the
// lock's when a `git pull` brought a new lock and no install followed.
func (in *InstalledFiles) Commit() string { return in.rev }

// Holds reports whether the file at rel (slash-separated, in the package)
// holds what ctx installed there, as diff decides for one file: the same
// kind and size, and a stamp that proves it unchanged or the recorded git
// blob id. It is false for a file ctx did not install, one that cannot be
// read, and one that differs: a local edit, whether the user made it or a
// `git pull` rewrote it in a team that commits packages/ (red22). Such a
// file's text is not the locked revision's. text, when not nil, is the
// file's text as the caller read it (to serve it): a file no stamp proves
// is judged by hashing text, not by reading the file again (rv-red22:
// read_relevant read each document it considered twice).
func (in *InstalledFiles) Holds(rel string, text []byte) bool {
	f, ok := in.files[rel]
	if !ok {
		return false
	}
	p := filepath.Join(in.dir, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	return err == nil && holdsInstalled(p, fi, f, in.at, text)
}

// holdsInstalled reports whether the file at p, of stat data fi, holds
// f, as ctx installed it in a state written at at: the same kind (a
// link or a file git holds) and size, and a stamp that proves it
// unchanged (proven) or the recorded git blob id. A mode alone does not
// change a file's text. The dirty guard's rule for one file, as diff
// applies it to a walk: Holds (ctx mcp's "edited") and asInstalled (the
// guard's look again before a change) ask it (rv-red22: each had its
// own copy). text, when not nil, is the file's bytes as read before fi
// was taken: hashed in place of a read.
func holdsInstalled(p string, fi fs.FileInfo, f fileState, at int64, text []byte) bool {
	mode := gitMode(fi.Mode())
	if mode == 0 || mode&fs.ModeSymlink != f.Mode&fs.ModeSymlink || fi.Size() != f.Size {
		return false
	}
	if proven(f, fi, at) {
		return true
	}
	if mode&fs.ModeSymlink != 0 {
		blob, err := blobOf(p, fi)
		return err == nil && blob == f.Blob
	}
	if text != nil {
		return int64(len(text)) == f.Size && gitengine.HashBlob(text) == f.Blob
	}
	// Read without following a link or waiting on a fifo swapped in
	// since the stat, and no more than the recorded size.
	data, _, err := boundedfile.Read(p, f.Size, boundedfile.Options{NoFollow: true})
	return err == nil && gitengine.HashBlob(data) == f.Blob
}

// FollowedLock is what Holds asks of a package whose lock moved and whose
// files followed it (trust23): ctx installed another commit here, and a
// `git pull` in a team that commits packages/ brought a teammate's new
// lock with the new files, no `ctx install` since. When the files under
// the package folder, as a whole, hash to the lock entry's hash (rev, the
// entry's commit; hash, its "h1:" hash, verify's check of the whole
// package: treehash), they are rev's text: FollowedLock returns an
// InstalledFiles of rev whose Holds tells, per file, whether it is still
// that text (a stamp taken now proves it, else its git blob id). It is
// nil when ctx installed rev itself (nothing moved) and when the files
// are not, all of them, the lock's: a file then keeps Holds' answer of
// the installed commit (a local edit of it), since nothing here knows
// the locked commit's text of one file.
//
// The files the state proves unchanged are not read (their recorded sum
// is the h1 line's); the others are read once, here.
func (in *InstalledFiles) FollowedLock(rev, hash string) *InstalledFiles {
	if rev == "" || rev == in.rev || !treehash.ValidHash(hash) {
		return nil
	}
	// A stamp taken below proves its file unchanged while its ctime is
	// before at: a second back, so that a file's ctime, of the file
	// system's coarser clock, in the same tick as the stat is not (the
	// racily clean rule); such a file is hashed at each look instead.
	at := time.Now().Add(-time.Second).UnixNano()
	out := &InstalledFiles{rev: rev, dir: in.dir, at: at, files: map[string]fileState{}}
	sums := map[string]string{}
	names := map[string]string{}
	err := treehash.WalkFiles(in.dir, func(rel string, _ fs.DirEntry) error {
		p := filepath.Join(in.dir, filepath.FromSlash(rel))
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if gitMode(fi.Mode()) == 0 {
			return errNotGitFile
		}
		if f, ok := in.files[rel]; ok && f.Sum != "" && gitMode(fi.Mode()) == f.Mode && proven(f, fi, in.at) {
			sums[rel], names[rel] = f.Sum, in.dir
			out.files[rel] = f.restamp(fi)
			return nil
		}
		data, err := followedContent(p, fi)
		if err != nil {
			return err
		}
		sums[rel], names[rel] = treehash.SumOf(data), in.dir
		out.files[rel] = recordFile(rel, gitengine.HashBlob(data), fi)
		return nil
	})
	if err != nil {
		return nil
	}
	h, _, err := treehash.HashTreeSums(names, sums)
	if err != nil || h != hash {
		return nil
	}
	return out
}

// errNotGitFile ends FollowedLock's walk at an entry git holds no file of
// (a fifo, a socket): such a package is not the lock's text.
var errNotGitFile = errors.New("not a file git holds")

// followedContent is what git holds of the file p of stat data fi, read
// bounded by its size, without following a link or waiting on a fifo
// swapped in since the stat.
func followedContent(p string, fi fs.FileInfo) ([]byte, error) {
	if fi.Mode()&fs.ModeSymlink != 0 {
		t, err := os.Readlink(p)
		return []byte(t), err
	}
	data, now, err := boundedfile.Read(p, fi.Size(), boundedfile.Options{NoFollow: true})
	if err == nil && !fileid.Of(now).Same(fileid.Of(fi)) {
		return nil, errChangedMeanwhile
	}
	return data, err
}

// errChangedMeanwhile ends FollowedLock's walk at a file that changed
// between its stat and its read: nothing is concluded from it.
var errChangedMeanwhile = errors.New("changed while read")
