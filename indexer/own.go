package indexer

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/project"
)

// ownFile holds meta.json's identity stamp (size, mtime, ctime, inode) as
// the last Sync on this machine left it, and the stamp git's index had
// before that Sync found the index not committed (notCommitted). A Reader
// that finds meta.json and git's index with those stamps knows it needs
// no second look at git's index, which in a repository of 100,000 files
// is 9 MB read for each search (25 ms of CPU): what git tracks changes
// only when git rewrites its index. A commit cannot carry the proof: git
// writes meta.json with another inode and ctime, which nothing a user
// runs can set, so a committed ownFile never matches; and a commit that
// leaves meta.json out (its bleve folders alone, written by `git pull`
// over this machine's own: git overwrites ignored files) rewrites git's
// index, so the reader asks git again (rv-red21). Where the system has no
// ctime, nothing is proven.
const ownFile = "meta.own.json"

// ownRecord is ownFile's content.
type ownRecord struct {
	Meta     fileid.Stamp `json:"meta"`
	GitIndex fileid.Stamp `json:"gitIndex"` // zero: no git index when it was checked
}

// gitIndexStamp is the stamp of the git index of the project whose
// .context folder is contextDir (zero when it has none: outside git, or
// no index yet); ok is false when it cannot be told.
func gitIndexStamp(contextDir string) (s fileid.Stamp, ok bool) {
	p, err := project.At(filepath.Dir(contextDir))
	if err != nil {
		return s, false
	}
	return statGitIndex(p.GitIndexFile())
}

// statGitIndex is gitIndexStamp of the git index file f ("" outside git).
func statGitIndex(f string) (s fileid.Stamp, ok bool) {
	if f == "" {
		return s, true
	}
	fi, err := os.Stat(f)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, true
	case err != nil:
		return s, false
	}
	s = fileid.Of(fi)
	return s, s.CTime != 0
}

// noteOwn records in ownFile meta.json's stamp now and git's index's,
// gitIndex, taken before notCommitted read it, unless it holds them
// already. A failure only costs later readers the look at git's index.
func noteOwn(d confine.Dir, indexDir string, gitIndex fileid.Stamp, gitOK bool) {
	fi, err := os.Stat(filepath.Join(indexDir, metaFile))
	if err != nil || !gitOK {
		return
	}
	writeOwn(d, indexDir, ownRecord{Meta: fileid.Of(fi), GitIndex: gitIndex})
}

// noteOwnChecked records in ownFile meta.json's version st and git's
// index's stamp gitIndex, which a Reader's notCommitted just passed: the
// next command need not read git's index again while neither changes
// (after a `git commit` or `git pull`, the first search pays it, not
// every search until the next Sync). The proof is a cache, written with
// no fsync and no lock: a Sync that publishes meanwhile leaves a
// meta.json this record does not match, and a failure (a read-only
// project) costs only the look at git's index.
func noteOwnChecked(contextDir string, st FileVersion, gitIndex fileid.Stamp) {
	if st.fi == nil {
		return
	}
	writeOwn(confine.New(contextDir), filepath.Join(contextDir, project.IndexDir),
		ownRecord{Meta: fileid.Of(st.fi), GitIndex: gitIndex})
}

// writeOwn writes now to ownFile unless it holds it already (nothing
// when meta.json's stamp has no ctime: nothing is proven). The proof is a
// cache: written with no fsync (a torn or lost one only costs the next
// reader the look at git's index), by noteOwn after a Sync and by
// noteOwnChecked after a Reader's check.
func writeOwn(d confine.Dir, indexDir string, now ownRecord) {
	if now.Meta.CTime == 0 {
		return
	}
	if rec, _, ok := readOwn(indexDir); ok && rec == now {
		return
	}
	b, err := json.Marshal(now)
	if err != nil {
		return
	}
	_ = d.WriteCacheAtomic(filepath.Join(indexDir, ownFile), b, 0o644)
}

// readOwn reads ownFile and its own mtime (unix nanoseconds).
func readOwn(indexDir string) (rec ownRecord, at int64, ok bool) {
	// A regular file of a record's size: a committed one may be anything.
	p := filepath.Join(indexDir, ownFile)
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() || st.Size() > 1024 {
		return rec, 0, false
	}
	if err := readJSON(p, &rec); err != nil {
		return rec, 0, false
	}
	return rec, st.ModTime().UnixNano(), true
}

// provenOwn reports whether fi, meta.json's, is the one ownFile records,
// and git's index (its stamp gitIndex, gitOK from gitIndexStamp) is as
// it was when the last Sync found nothing of the index tracked: changed
// before ownFile was written (fileid.Proves), not since.
func provenOwn(indexDir string, fi os.FileInfo, gitIndex fileid.Stamp, gitOK bool) bool {
	rec, at, ok := readOwn(indexDir)
	if !ok || !gitOK || rec.Meta.CTime == 0 || !rec.Meta.Same(fileid.Of(fi)) {
		return false
	}
	if rec.GitIndex == (fileid.Stamp{}) {
		return gitIndex == rec.GitIndex
	}
	return rec.GitIndex.Proves(gitIndex, at)
}

// notCommitted refuses an index that a commit brought: its passages and
// file records are not ctx's word (project.CheckRecordsUntracked, red21).
// Sync asks it before it writes; a Reader when it meets a new meta.json,
// or git's index changed, that ownFile does not prove
// (checkMetaNotCommitted). It returns git's index's stamp as it was
// before it was read, for noteOwn.
func notCommitted(contextDir string) (gitIndex fileid.Stamp, gitOK bool, err error) {
	gitIndex, gitOK = gitIndexStamp(contextDir)
	p, err := project.At(filepath.Dir(contextDir))
	if err != nil {
		return gitIndex, false, err
	}
	// The index is built from what .state says is installed: a committed
	// one (red21 F1) is refused here too, since ctx mcp re-indexes
	// without opening the project as install does (rv-red21).
	return gitIndex, gitOK, p.CheckRecordsUntracked(project.StateDir, project.IndexDir)
}
