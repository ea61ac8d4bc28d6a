package gitengine

import (
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/internal/naming"
)

// maxSymlinkTarget bounds a symlink target read from a repository.
const maxSymlinkTarget = 4096

// safeName reports whether name, one entry of a git tree, can be written as
// one path component on any common file system without escaping its folder
// or touching git metadata; see nameProblem.
func safeName(name string) bool { return nameProblem(name) == "" }

// nameProblem says why name, one entry of a git tree, must not be written
// ("" when it may): a name over naming.MaxName bytes no common file system
// takes; a name naming.CheckName refuses (it could escape its folder or
// touch git metadata) is an "unsafe path"; a newline breaks the lock's
// content hash (dirhash) and line-based tools. A name that is merely not
// valid UTF-8 is fine.
func nameProblem(name string) string {
	switch {
	case len(name) > naming.MaxName:
		return fmt.Sprintf("name longer than %d bytes", naming.MaxName)
	case naming.CheckName(name) != nil:
		return "unsafe path"
	case strings.Contains(name, "\n"):
		return "name contains a newline"
	}
	return ""
}

// safePath reports whether p, a slash-separated relative path, is made of
// safe names only: naming.CheckFilePath.
func safePath(p string) bool { return naming.CheckFilePath(p) == nil }

// safeSymlink reports whether a symlink at link (slash-separated, relative
// to the package folder, itself a safe path) with the given target stays
// inside the package folder whatever other symlinks the folder holds. The
// target must be relative, use / only, and may climb ("..") only at its
// start and no higher than the package folder; after the first ordinary
// component no ".." may follow, since that component could itself be a
// symlink and "x/.." is not always where it looks.
func safeSymlink(link, target string) bool {
	if target == "" || len(target) > maxSymlinkTarget || !safePath(link) {
		return false
	}
	if strings.HasPrefix(target, "/") || strings.ContainsAny(target, "\\\x00") ||
		len(target) >= 2 && target[1] == ':' {
		return false
	}
	depth := strings.Count(link, "/") // folders above the link inside the package
	climbing := true
	for _, c := range strings.Split(target, "/") {
		switch {
		case c == "" || c == ".":
			continue
		case c == "..":
			if !climbing {
				return false
			}
			depth--
			if depth < 0 {
				return false
			}
		default:
			climbing = false
			if !safeName(c) {
				return false
			}
		}
	}
	return true
}

// cleanSubPath normalises a requested sub-path with naming.CleanSubPath: ""
// and "." mean the whole tree; a trailing slash, empty and "." components
// are dropped. ok is false when the path is unsafe (a leading slash, a
// backslash, "..", ".git", ...).
func cleanSubPath(p string) (clean string, ok bool) {
	clean, err := naming.CleanSubPath(p)
	return clean, err == nil
}
