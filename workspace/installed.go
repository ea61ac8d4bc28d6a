package workspace

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/boundedfile"
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
	in := &InstalledFiles{rev: st.Rev, dir: proj.PackageDir(alias), at: st.at, files: make(map[string]fileState, len(st.Files))}
	for _, f := range st.Files {
		in.files[f.Path] = f
	}
	return in, nil
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
