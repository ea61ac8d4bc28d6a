package fileid

import (
	"path/filepath"
	"strings"
)

// Tree stats the files under one folder (its root), for a check that
// stats thousands of them (the indexer's freshness check): where the
// system allows it (Linux, macOS) each file relative to an open
// descriptor of its own folder (fstatat), so the kernel looks up one name
// per file, not every folder of its path again. Folders are opened one
// name at a time from the root, never through a symbolic link below it
// (a file under a folder that became a link is an error, as a walk that
// follows no link would not find it); the root itself is followed, as
// os.Stat follows it.
//
// A Tree keeps open the folders on the path to the last file it stat'ed:
// stat files in path order (a sorted list of paths, or a walk's order:
// every folder's files and subfolders together) and each folder is opened
// once, and no more descriptors are open at a time than the tree is deep.
// Another order gives the same stamps, with folders opened again. A Tree is
// not safe for concurrent use; Close releases its descriptors.
type Tree struct {
	root string
	tree
}

// NewTree is a Tree of the files under root. Nothing is opened until a
// file is stat'ed.
func NewTree(root string) *Tree {
	return &Tree{root: root}
}

// Lstat is the stamp of the file at rel (slash-separated, a valid
// fs.ValidPath under the root; "." is the root, followed as os.Stat
// follows it) and whether it is a regular file: Lstat(filepath.Join(root,
// rel)), with the differences Tree's doc gives. An error is an
// *fs.PathError naming the joined path.
func (t *Tree) Lstat(rel string) (s Stamp, regular bool, err error) {
	return t.lstat(rel)
}

// Close releases the descriptors t holds. It may be stat'ed with again
// after, opening them again.
func (t *Tree) Close() { t.close() }

// join is the path of rel under t's root, for errors and the systems
// without descriptors.
func (t *Tree) join(rel string) string {
	if rel == "." {
		return t.root
	}
	return filepath.Join(t.root, filepath.FromSlash(rel))
}

// splitRel splits rel at its last slash: its folder ("" for the root) and
// its name.
func splitRel(rel string) (dir, name string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return "", rel
	}
	return rel[:i], rel[i+1:]
}
