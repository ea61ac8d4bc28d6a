package indexer

import (
	"os"
	"path/filepath"

	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/project"
)

// ownFile holds meta.json's identity stamp (size, mtime, ctime, inode) as
// the last Sync on this machine left it, after that Sync found the index
// not committed (notCommitted). A Reader that finds meta.json with that
// stamp knows it needs no second look at git's index, which in a
// repository of 100,000 files is 9 MB read for each search (25 ms of CPU).
// A commit cannot carry the proof: git writes meta.json with another inode
// and ctime, which nothing a user runs can set, so a committed ownFile
// never matches and the reader asks git (red21). Where the system has no
// ctime, nothing is proven.
const ownFile = "meta.own.json"

// noteOwn records meta.json's stamp now in ownFile, unless it holds it
// already. A failure only costs later readers the look at git's index.
func noteOwn(d confine.Dir, indexDir string) {
	fi, err := os.Stat(filepath.Join(indexDir, metaFile))
	if err != nil {
		return
	}
	now := fileid.Of(fi)
	if now.CTime == 0 || provenOwn(indexDir, fi) {
		return
	}
	_ = writeJSONAtomic(d, filepath.Join(indexDir, ownFile), now)
}

// provenOwn reports whether fi, meta.json's, is the one ownFile records.
func provenOwn(indexDir string, fi os.FileInfo) bool {
	// A regular file of a stamp's size: a committed one may be anything.
	p := filepath.Join(indexDir, ownFile)
	if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() || st.Size() > 512 {
		return false
	}
	var rec fileid.Stamp
	if err := readJSON(p, &rec); err != nil {
		return false
	}
	return rec.CTime != 0 && rec.Same(fileid.Of(fi))
}

// notCommitted refuses an index that a commit brought: its passages and
// file records are not ctx's word (project.CheckRecordsUntracked, red21).
// Sync asks it before it writes; a Reader when it meets a new meta.json
// that ownFile does not prove (checkMetaNotCommitted).
func notCommitted(contextDir string) error {
	p, err := project.At(filepath.Dir(contextDir))
	if err != nil {
		return err
	}
	return p.CheckRecordsUntracked(project.IndexDir)
}
