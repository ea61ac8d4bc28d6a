//go:build !linux && !darwin

package fileid

import "os"

// tree holds nothing where the system has no fstatat: each file is
// stat'ed by its whole path.
type tree struct{}

// Lstat is the stamp of the file at rel (slash-separated, a valid
// fs.ValidPath under the root; "." is the root, followed as os.Stat
// follows it) and whether it is a regular file: Lstat(filepath.Join(root,
// rel)), stat'ed by that whole path on this system.
func (t *Tree) Lstat(rel string) (Stamp, bool, error) {
	if rel == "." {
		fi, err := os.Stat(t.root)
		if err != nil {
			return Stamp{}, false, err
		}
		return Of(fi), fi.Mode().IsRegular(), nil
	}
	return Lstat(t.join(rel))
}

// Close releases nothing on this system: no descriptor is held.
func (t *Tree) Close() {}
