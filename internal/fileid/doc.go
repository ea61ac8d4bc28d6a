// Package fileid owns a file's identity stamp: what stat data says of
// which version of a file is on disk (size, mtime, and where the system
// has them the inode change time and the inode number), when two stamps
// say the same version, and when a recorded stamp proves a file unchanged
// without reading it.
//
// Nothing a user runs (touch -r, cp -p, rsync -t, an editor) can set a
// ctime back, so a file whose ctime and inode are unchanged since they
// were recorded has not been written or replaced since, with one
// exception: a change in the same tick of the file system's clock as the
// write that was recorded leaves every field as it was (git's "racily
// clean" entries). Proves takes the time the record was written into
// account for that. The dirty-state guard (workspace) and the indexer's
// change detection both use it.
package fileid

import "io/fs"

// Stamp is a file's identity as its stat data gives it. The JSON names are
// the ones workspace's state files and the indexer's catalogue use.
type Stamp struct {
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime"`           // unix nanoseconds
	CTime int64  `json:"ctime,omitempty"` // inode change time, unix nanoseconds; 0 where the system has none
	Ino   uint64 `json:"ino,omitempty"`   // inode number; 0 where the system has none
}

// Of is fi's stamp.
func Of(fi fs.FileInfo) Stamp {
	if i, ok := fi.(*info); ok {
		return i.stamp
	}
	s := Stamp{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
	s.CTime, s.Ino = Change(fi)
	return s
}

// Same reports whether now, a file's stamp, is the recorded s: size,
// mtime, ctime and inode all equal (a stamp recorded without ctime or
// inode is not the same as one with them).
func (s Stamp) Same(now Stamp) bool { return s == now }

// Proves reports whether a file whose stamp is now may be taken for the
// version s was recorded from, without reading it: s has a ctime (so the
// system keeps them and nothing can have set it back), now is the same
// stamp, and s's ctime is before at, the time (unix nanoseconds, from the
// same file system's clock: the mtime of the file s was written into,
// after s was taken) the record was made. A file changed in the same tick
// as the recorded write keeps its stamp; its ctime is then not before at,
// and the file must be read.
func (s Stamp) Proves(now Stamp, at int64) bool {
	return s.CTime != 0 && s == now && s.CTime < at
}
