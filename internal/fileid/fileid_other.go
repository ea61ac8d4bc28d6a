//go:build !linux && !darwin

package fileid

import (
	"io/fs"
	"os"
)

// Change returns 0, 0: this system's stat data has no inode change time
// that ctx reads, so the status check relies on size and mtime alone.
func Change(fs.FileInfo) (ctime int64, ino uint64) { return 0, 0 }

// Lstat is the stamp of the file at path (not following a final symbolic
// link) and whether it is a regular file: Of(os.Lstat(path)).
func Lstat(path string) (s Stamp, regular bool, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return Stamp{}, false, err
	}
	return Of(fi), fi.Mode().IsRegular(), nil
}
