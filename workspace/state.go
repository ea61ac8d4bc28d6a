package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/treehash"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/source"
)

// fileState is what ctx wrote for one file of a package.
type fileState struct {
	Path  string      `json:"path"` // slash-separated, relative to the package folder
	Blob  string      `json:"blob"` // git blob id
	Size  int64       `json:"size"`
	Mode  fs.FileMode `json:"mode"`  // git's view: 0644, 0755 or ModeSymlink|0777
	MTime int64       `json:"mtime"` // as installed, unix nanoseconds
	// CTime and Ino are the inode change time (unix nanoseconds) and inode
	// number as installed, where the system has them (0 in state files
	// written before they were recorded). Nothing a user runs can set a
	// ctime back, so a file whose ctime, inode and mtime are unchanged has
	// not been touched since ctx wrote it.
	CTime int64  `json:"ctime,omitempty"`
	Ino   uint64 `json:"ino,omitempty"`
	// Sum is the file's SHA-256 as the h1: hash reads it
	// (treehash.FileSum), so that an update hashes the new tree without
	// reading the files it keeps ("" in state files written before it was
	// recorded: the file is read).
	Sum string `json:"sum,omitempty"`
	// Rules says the document has audience rules (or rules that cannot
	// be read), so an update reads it again for them; one without is not
	// read (see pkgState.RulesNoted).
	Rules bool `json:"rules,omitempty"`
}

// stamp is f's identity stamp as recorded (internal/fileid).
func (f fileState) stamp() fileid.Stamp {
	return fileid.Stamp{Size: f.Size, MTime: f.MTime, CTime: f.CTime, Ino: f.Ino}
}

// MarshalJSON writes Path as a JSON string when it is valid UTF-8 (as state
// files always did); otherwise, since encoding/json would replace the
// invalid bytes, as base64 bytes in "pathBytes", so every name round-trips.
func (f fileState) MarshalJSON() ([]byte, error) {
	type plain fileState
	if utf8.ValidString(f.Path) {
		return json.Marshal(plain(f))
	}
	return json.Marshal(struct {
		plain
		Path  string `json:"path,omitempty"` // shadows plain.Path
		Bytes []byte `json:"pathBytes"`
	}{plain: plain(f), Bytes: []byte(f.Path)})
}

// UnmarshalJSON reads both forms MarshalJSON writes.
func (f *fileState) UnmarshalJSON(data []byte) error {
	type plain fileState
	var v struct {
		plain
		Bytes []byte `json:"pathBytes"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*f = fileState(v.plain)
	if v.Bytes != nil {
		f.Path = string(v.Bytes)
	}
	return nil
}

// recordFile is the state of the file at rel as it is on disk now, with
// blob id blob.
func recordFile(rel, blob string, fi fs.FileInfo) fileState {
	s := fileid.Of(fi)
	return fileState{Path: rel, Blob: blob, Size: s.Size, Mode: gitMode(fi.Mode()), MTime: s.MTime, CTime: s.CTime, Ino: s.Ino}
}

// restamp is f (its blob, sum and rules) with the mode and stamp of the
// file on disk now, fi.
func (f fileState) restamp(fi fs.FileInfo) fileState {
	n := recordFile(f.Path, f.Blob, fi)
	n.Sum, n.Rules = f.Sum, f.Rules
	return n
}

// pkgState is .context/.state/<alias>.json: what is installed.
type pkgState struct {
	// StateHead comes first: its "withheld" (the documents audience
	// rules kept out, sorted) is the file's first key, which
	// project.ReadStateHead reads without the records, and Rev the
	// second, "commit" (it hides StateHead.Commit, of the same name:
	// the state's commit is Rev; ReadStateHead reads it as Commit).
	project.StateHead
	Rev   string      `json:"commit"`
	Tree  string      `json:"tree"`
	Hash  string      `json:"hash"`
	Files []fileState `json:"files"` // sorted by path
	// Source is the source the files were fetched from (the manifest's
	// spelling, as the lock has it): where ctx push sends their edits.
	// A commit that points the manifest and the lock elsewhere together
	// leaves it, and push asks for the user's word for a repository of
	// another place (naming.EndpointKey, own21: another spelling of the same one
	// is no redirect; red20). "" in a state written before, or rebuilt by
	// a scan: not known.
	Source string `json:"source,omitempty"`
	// The audience rules the files were installed under (workspace's
	// audience.go): Audience is the project name they were applied for
	// when some document has rules (the lock entry's Audience),
	// AudienceIgnored says the spec ignored rules that exist (the
	// documents kept out are StateHead's Withheld); AudienceChecked is
	// false in a state written before ctx applied rules, whose package is
	// installed again.
	Audience        string `json:"audience,omitempty"`
	AudienceIgnored bool   `json:"audienceIgnored,omitempty"`
	AudienceChecked bool   `json:"audienceChecked,omitempty"`
	// RulesNoted says every file's Rules was recorded (states written
	// before were not: every document is read for its rules).
	RulesNoted bool `json:"rulesNoted,omitempty"`

	// at is when the state file was written (its mtime, unix
	// nanoseconds: the file system's clock, the one that stamps the
	// package's files): a file's recorded stamp proves it unchanged only
	// when taken before (fileid's Proves). 0 for a state not read from
	// disk.
	at int64
}

func (w *Workspace) pkgDir(alias string) string    { return w.path(project.PackagesDir, alias) }
func (w *Workspace) statePath(alias string) string { return w.proj.StatePath(alias) }

func (w *Workspace) readState(alias string) (*pkgState, error) {
	return readStateFile(w.statePath(alias))
}

// readStateFile reads a state file: .state/<alias>.json, or the one a
// change staged in .tmp/ (internal/boundedfile: a regular file of at most
// project.MaxStateBytes; ctx writes it, but a fifo or /dev/zero put there
// must not hang ctx or fill its memory, own21), never through a link at
// its end (red23: ctx follows no link in .context/, and a state read
// through one made a package InstalledHere calls not installed look
// installed to install, which then never wrote it).
func readStateFile(p string) (*pkgState, error) {
	data, fi, err := boundedfile.Read(p, project.MaxStateBytes, boundedfile.Options{NoFollow: true})
	if err != nil {
		return nil, err
	}
	var v stateWire
	if err := jsonfile.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	st := v.pkgState
	if v.Files != nil {
		st.Files = make([]fileState, len(v.Files))
		for i, f := range v.Files {
			st.Files[i] = fileState(f.plainFile)
			if f.Bytes != nil {
				st.Files[i].Path = string(f.Bytes)
			}
		}
	}
	st.at = fi.ModTime().UnixNano()
	return &st, nil
}

// stateWire is a state file as readStateFile decodes it: pkgState with
// its files as fileWire, what fileState.UnmarshalJSON reads, in one pass
// over the file (the method decodes each file's bytes again: three times
// the CPU of a 500-file state, issue 31). TestReadStateFileAsUnmarshal
// checks the two read the same.
type stateWire struct {
	pkgState
	Files []fileWire `json:"files"` // shadows pkgState.Files
}

type (
	plainFile fileState // fileState without its methods
	fileWire  struct {
		plainFile
		Bytes []byte `json:"pathBytes"`
	}
)

func (w *Workspace) writeState(p string, st *pkgState) error {
	data, err := encodeState(st)
	if err != nil {
		return err
	}
	return w.fs.WriteFileAtomic(p, append(data, '\n'), 0o644)
}

// writeStagedState writes a patch's new state to p in .tmp/ as
// writeState does but leaves .tmp/ unsynced (atomicfile.WriteStaged):
// swapState renames it on into .state/ at once, and commit syncs .state/
// before the lock (syncStateDir). A power cut that loses its name in
// .tmp/ leaves what a stop before the write leaves (the journal, the old
// state in .state/ or already moved to .tmp/<alias>.oldstate), from
// which recovery writes it again: the journal's stateDelta applied to
// the old state, restamped from the disk, as it does when the staged
// file is there (upd23; TestPatchStagedStateLostRecovers).
func (w *Workspace) writeStagedState(p string, st *pkgState) error {
	data, err := encodeState(st)
	if err != nil {
		return err
	}
	return w.fs.WriteStagedAtomic(p, append(data, '\n'), 0o644)
}

// stateOut is a state file as encodeState writes it when every name is
// UTF-8: pkgState with its files as plainFile, which is what
// fileState.MarshalJSON writes of each, in one pass (json.Marshal calls
// the method for each file, encodes it on its own and checks its bytes
// again: twice the CPU of a 500-file state, issue 31). The fields are the
// same; "files" comes last.
type stateOut struct {
	pkgState
	Files []plainFile `json:"files"` // shadows pkgState.Files
}

// encodeState is json.Marshal of st: what readStateFile reads back as st
// (TestEncodeStateAsMarshal).
func encodeState(st *pkgState) ([]byte, error) {
	if st.Files == nil {
		return json.Marshal(st)
	}
	files := make([]plainFile, len(st.Files))
	for i, f := range st.Files {
		if !utf8.ValidString(f.Path) {
			return json.Marshal(st) // pathBytes: MarshalJSON's other form
		}
		files[i] = plainFile(f)
	}
	return json.Marshal(stateOut{pkgState: *st, Files: files})
}

// gitMode is the git file mode of a file on disk (0 for what git cannot hold).
func gitMode(m fs.FileMode) fs.FileMode {
	switch {
	case m&fs.ModeSymlink != 0:
		return fs.ModeSymlink | 0o777
	case m.IsRegular() && m.Perm()&0o100 != 0:
		return 0o755
	case m.IsRegular():
		return 0o644
	}
	return 0
}

// stateOf records dir as written by Materialize: blob ids and modes from the
// engine, sizes and mtimes from the disk; the files in omit (withheld by
// audience rules) are no longer there, and those Materialize kept (not
// written: the package folder has them) are recorded as kept says.
func stateOf(dir string, res *source.Fetched, hash string, omit map[string]bool, kept map[string]fileState) (*pkgState, error) {
	st := &pkgState{Rev: res.Entry.Rev, Tree: res.Entry.Tree, Hash: hash, Files: make([]fileState, 0, len(res.Files))}
	for _, f := range res.Files {
		if omit[f.Path] {
			continue
		}
		if f.Kept {
			k, ok := kept[f.Path]
			if !ok {
				return nil, fmt.Errorf("record state: %s was not written and is not kept", f.Path)
			}
			st.Files = append(st.Files, k)
			continue
		}
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			return nil, fmt.Errorf("record state: %w", err)
		}
		st.Files = append(st.Files, recordFile(f.Path, f.Blob, fi))
	}
	sort.Slice(st.Files, func(i, j int) bool { return st.Files[i].Path < st.Files[j].Path })
	return st, nil
}

// scanState records dir as it is now, hashing every file (used when the
// state file was lost but the files match the lock's hash).
func scanState(dir string, commit, tree, hash string) (*pkgState, error) {
	st := &pkgState{Rev: commit, Tree: tree, Hash: hash, Files: []fileState{}}
	err := walkFiles(dir, func(rel string, fi fs.FileInfo) error {
		data, err := contentOf(filepath.Join(dir, filepath.FromSlash(rel)), fi)
		if err != nil {
			return err
		}
		f := recordFile(rel, gitengine.HashBlob(data), fi)
		f.Sum = treehash.SumOf(data)
		st.Files = append(st.Files, f)
		return nil
	})
	return st, err
}

// walkFiles is treehash.WalkFiles (every non-directory under dir, in
// lexical order, never following symbolic links) with each file's stat
// data. The files are stat'ed from the open
// folder (fileid.Tree: the kernel looks up the names below dir only, not
// every folder above it again for each file; the dirty guard's walk of a
// 500-file package was a tenth of a one-file update's CPU, issue 31).
func walkFiles(dir string, fn func(rel string, fi fs.FileInfo) error) error {
	tr := fileid.NewTree(dir)
	defer tr.Close()
	return walkTree(tr, dir, fn)
}

// walkTree is walkFiles stat'ing from tr, dir's Tree, which fn may read
// files from too (diff's hashing).
func walkTree(tr *fileid.Tree, dir string, fn func(rel string, fi fs.FileInfo) error) error {
	return treehash.WalkFiles(dir, func(rel string, d fs.DirEntry) error {
		var fi fs.FileInfo
		var err error
		if rel == "." {
			fi, err = d.Info() // dir itself, not a folder: not followed
		} else {
			fi, err = tr.Info(rel)
		}
		if err != nil {
			return err
		}
		return fn(rel, fi)
	})
}

// blobReader hashes files of one tree as blobOf does, reading each into
// the same buffer from the tree's open root (fileid.Tree.ReadFile): a
// check that hashes every file of a package (status where no stamp proves
// them unchanged) allocates one buffer, not each file (status21).
type blobReader struct {
	tr  *fileid.Tree
	dir string
	buf []byte
}

// blob is blobOf of the file at rel (slash-separated) under the tree.
func (r *blobReader) blob(rel string, fi fs.FileInfo) (string, error) {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return blobOf(filepath.Join(r.dir, filepath.FromSlash(rel)), fi)
	}
	if n := int(fi.Size()) + 1; cap(r.buf) < n && n > 0 {
		r.buf = make([]byte, 0, n)
	}
	data, err := r.tr.ReadFile(rel, r.buf)
	if err != nil {
		return "", err
	}
	r.buf = data[:0]
	return gitengine.HashBlob(data), nil
}

func blobOf(p string, fi fs.FileInfo) (string, error) {
	data, err := contentOf(p, fi)
	if err != nil {
		return "", err
	}
	return gitengine.HashBlob(data), nil
}

// contentOf is what git holds of the file p: a link's target, a file's
// bytes.
func contentOf(p string, fi fs.FileInfo) ([]byte, error) {
	if fi.Mode()&fs.ModeSymlink != 0 {
		t, err := os.Readlink(p)
		return []byte(t), err
	}
	return os.ReadFile(p)
}

// Change kinds of a FileChange.
const (
	changeModified = "modified"
	changeAdded    = "added"
	changeDeleted  = "deleted"
	changeMode     = "mode"
)

// diff compares dir with st. A file whose size or kind differs is modified;
// a file whose stat data proves it unchanged since st recorded it
// (internal/fileid's Proves: the same stamp, ctime included, taken before
// the state was written) is not read; any other is hashed and compared
// with the blob id ctx installed. On a system without ctimes nothing
// proves a file unchanged (an edit can keep the size and set the mtime
// back), so with full (what any step that replaces or deletes a package's
// files must do) every file is hashed, and without full (status) only one
// whose mtime moved. A nil st means ctx knows nothing of dir: every file
// is added. complete reports that the answer is the one full gives: no
// file was left unread that full would have hashed (on a system with
// ctimes, always).
func diff(dir string, st *pkgState, full bool) (out []FileChange, complete bool, err error) {
	// want indexes st.Files by path (an index, not a copy of each entry:
	// a smaller map to build for a package of many files).
	var want map[string]int
	if st != nil {
		want = make(map[string]int, len(st.Files))
		for i, f := range st.Files {
			want[f.Path] = i
		}
	}
	complete = true
	tr := fileid.NewTree(dir)
	defer tr.Close()
	blobs := blobReader{tr: tr, dir: dir}
	err = walkTree(tr, dir, func(rel string, fi fs.FileInfo) error {
		i, ok := want[rel]
		if !ok {
			out = append(out, FileChange{Path: rel, Change: changeAdded})
			return nil
		}
		f := st.Files[i]
		delete(want, rel)
		mode := gitMode(fi.Mode())
		if mode == 0 || (mode&fs.ModeSymlink) != (f.Mode&fs.ModeSymlink) {
			out = append(out, FileChange{Path: rel, Change: changeModified})
			return nil
		}
		if fi.Size() != f.Size {
			out = append(out, FileChange{Path: rel, Change: changeModified})
			return nil
		}
		if !proven(f, fi, st.at) && !full && !maybeEdited(f, fi) {
			complete = false
		} else if !proven(f, fi, st.at) {
			blob, err := blobs.blob(rel, fi)
			if err != nil {
				return err
			}
			if blob != f.Blob {
				out = append(out, FileChange{Path: rel, Change: changeModified})
				return nil
			}
		}
		if mode != f.Mode {
			out = append(out, FileChange{Path: rel, Change: changeMode})
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("check local changes: %w", err)
	}
	for p := range want {
		out = append(out, FileChange{Path: p, Change: changeDeleted})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, complete, nil
}

// proven reports whether the stat data fi proves the file f, recorded in
// a state written at at, unchanged (fileid's Proves).
func proven(f fileState, fi fs.FileInfo, at int64) bool {
	return f.stamp().Proves(fileid.Of(fi), at)
}

// maybeEdited reports whether fi's stamp is not the one recorded in f,
// or the system keeps ctimes (so that, proven being false, the stamp
// cannot be trusted): status's check, which on a system without ctimes
// reads a file only when its size or mtime moved.
func maybeEdited(f fileState, fi fs.FileInfo) bool {
	now := fileid.Of(fi)
	return now.CTime != 0 || !f.stamp().Same(now)
}

// local is what is on disk for one package.
type local struct {
	present bool      // packages/<alias> exists
	state   *pkgState // what ctx installed; nil when unknown
	changes []FileChange
	// complete says changes are what the guard's full check finds (diff's
	// complete): checkDirty need not look again.
	complete bool
}

func (l *local) dirty() bool { return len(l.changes) > 0 }

// inspect looks at one package on disk (see diff for full). When the state file is missing but
// the files hash to the lock's h1:, the state is rebuilt; otherwise every
// file counts as added (ctx cannot tell they are its own).
func (w *Workspace) inspect(alias string, locked *lockfile.Entry, full bool) (*local, error) {
	dir := w.pkgDir(alias)
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return &local{}, nil
	}
	if err != nil {
		return nil, err
	}
	l := &local{present: true}
	if !fi.IsDir() {
		l.changes = []FileChange{{Path: ".", Change: changeAdded}}
		return l, nil
	}
	st, err := w.readState(alias)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		w.log("warning: %s: unreadable state, checking files against the lock: %v", alias, err)
	}
	if st == nil && locked != nil {
		if h, err := treehash.HashDir(dir); err == nil && h == locked.Hash {
			if st, err = scanState(dir, locked.Rev, locked.Tree, locked.Hash); err == nil {
				// The files are the locked ones: installed under its rules.
				st.Audience, st.AudienceChecked = locked.Audience, true
				// Not when opened read-only, nor on a read-only disk; any
				// other refusal is said (red23: a link there was kept in
				// silence, and the package stayed not installed here).
				if err := w.writeState(w.statePath(alias), st); err != nil && !errors.Is(err, confine.ErrReadOnly) && !confine.CannotWrite(err) {
					w.log("warning: %s: its files are the lock's, but its state could not be written: %v", alias, err)
				}
			}
		}
	}
	l.state = st
	l.changes, l.complete, err = diff(dir, st, full)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", alias, err)
	}
	return l, nil
}

// dirtyList formats changes as "M path", "A path", "D path".
func dirtyList(changes []FileChange) []string {
	out := make([]string, 0, len(changes))
	for _, c := range changes {
		code := "M"
		switch c.Change {
		case changeAdded:
			code = "A"
		case changeDeleted:
			code = "D"
		}
		out = append(out, code+" "+c.Path)
	}
	return out
}

// backup copies the package's folder as it is on disk (every file, edited or
// not, so the backup is a complete picture of what the user had) to
// .context/backup/<alias>-<UTC time>/, and lists the files deleted locally in
// <that folder>.deleted.txt. It returns the folder.
func (w *Workspace) backup(alias string, changes []FileChange, now time.Time) (string, error) {
	if err := w.fault("backup", alias); err != nil {
		return "", fmt.Errorf("back up %s: %w (nothing was changed)", alias, err)
	}
	base := w.path(project.BackupDir, alias+"-"+now.UTC().Format("20060102T150405Z"))
	dst := base
	for i := 2; ; i++ {
		err := w.fs.MkdirAll(filepath.Dir(dst), 0o755)
		if err == nil {
			err = w.fs.Mkdir(dst, 0o755)
		}
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("back up %s: %w", alias, err)
		}
		dst = fmt.Sprintf("%s-%d", base, i)
	}
	src := w.pkgDir(alias)
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("back up %s: %w (nothing was changed; the partial backup is in %s)", alias, err, dst)
	}
	if fi, err := os.Lstat(src); err == nil && !fi.IsDir() {
		if err := w.copyFile(src, filepath.Join(dst, alias)); err != nil {
			return fail(err)
		}
	} else {
		err := walkFiles(src, func(rel string, _ fs.FileInfo) error {
			to := filepath.Join(dst, filepath.FromSlash(rel))
			if err := w.fs.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return err
			}
			return w.copyFile(filepath.Join(src, filepath.FromSlash(rel)), to)
		})
		if err != nil {
			return fail(err)
		}
	}
	var deleted []string
	for _, c := range changes {
		if c.Change == changeDeleted {
			deleted = append(deleted, c.Path)
		}
	}
	if len(deleted) > 0 {
		note := "Files of " + alias + " deleted locally (no local version to keep):\n" + strings.Join(deleted, "\n") + "\n"
		if err := w.fs.WriteFileAtomic(dst+".deleted.txt", []byte(note), 0o644); err != nil {
			return fail(err)
		}
	}
	atomicfile.SyncDir(dst)
	return dst, nil
}

// copyFile copies the file or link from (read, never followed) to the new
// file to inside .context/.
func (w *Workspace) copyFile(from, to string) error {
	fi, err := os.Lstat(from)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		t, err := os.Readlink(from)
		if err != nil {
			return err
		}
		return w.fs.Symlink(t, to)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file, left in place", from)
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := w.fs.Create(to, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
