//go:build !linux && !darwin

package fileid

import "io/fs"

// tree holds nothing where the system has no fstatat: each file is
// stat'ed by its whole path.
type tree struct{}

// lstat is byPath: this system has no fstatat.
func (t *Tree) lstat(rel string) (Stamp, bool, error) { return t.byPath(rel) }

// Close releases nothing on this system: no descriptor is held.
func (t *Tree) Close() {}

// info is infoByPath: this system has no fstatat.
func (t *Tree) info(rel string) (fs.FileInfo, error) { return t.infoByPath(rel) }
