package gitengine

import (
	"fmt"
	"strings"
)

// maxSymlinkTarget bounds a symlink target read from a repository.
const maxSymlinkTarget = 4096

// maxName is the longest path component common file systems take (bytes).
const maxName = 255

// maxPathLen bounds a path inside a package (bytes), well below Linux's
// PATH_MAX of 4096 so that the package folder's own path, staging folders
// and backups fit in front of it.
const maxPathLen = 1024

// safeName reports whether name, one entry of a git tree, can be written as
// one path component on any common file system without escaping its folder
// or touching git metadata; see nameProblem.
func safeName(name string) bool { return nameProblem(name) == "" }

// nameProblem says why name, one entry of a git tree, must not be written
// ("" when it may): empty, ".", "..", a separator (/ or \) or NUL, ".git" in
// any spelling Windows or macOS would map to it (case, trailing dots and
// spaces, NTFS streams, the 8.3 short name GIT~1) are "unsafe path"; a name
// over 255 bytes no common file system takes; a newline breaks the lock's
// content hash (dirhash) and line-based tools. A name that is merely not
// valid UTF-8 is fine.
func nameProblem(name string) string {
	switch {
	case unsafeName(name):
		return "unsafe path"
	case len(name) > maxName:
		return fmt.Sprintf("name longer than %d bytes", maxName)
	case strings.Contains(name, "\n"):
		return "name contains a newline"
	}
	return ""
}

// pathProblem says why p, a slash-separated path inside the package made of
// names nameProblem accepts, must not be written ("" when it may).
func pathProblem(p string) string {
	if len(p) > maxPathLen {
		return fmt.Sprintf("path too long (over %d bytes)", maxPathLen)
	}
	return ""
}

// unsafeName reports whether name could escape its folder or touch git
// metadata (see nameProblem).
func unsafeName(name string) bool {
	if name == "" || name == "." || name == ".." {
		return true
	}
	if strings.ContainsAny(name, "/\\\x00") {
		return true
	}
	base := name
	if i := strings.IndexByte(base, ':'); i >= 0 {
		base = base[:i]
	}
	base = strings.TrimRight(base, ". ")
	// Ignorable code points macOS drops when comparing names (HFS+).
	base = strings.Map(func(r rune) rune {
		switch r {
		case '\u200c', '\u200d', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e',
			'\u206a', '\u206b', '\u206c', '\u206d', '\u206e', '\u206f', '\ufeff':
			return -1
		}
		return r
	}, base)
	switch strings.ToLower(base) {
	case ".git", "git~1", "":
		return true
	}
	return false
}

// safePath reports whether p, a slash-separated relative path, is made of
// safe names only.
func safePath(p string) bool {
	if p == "" {
		return false
	}
	for _, c := range strings.Split(p, "/") {
		if !safeName(c) {
			return false
		}
	}
	return true
}

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

// cleanSubPath normalises a requested sub-path: "" and "." mean the whole
// tree; leading and trailing slashes are dropped. ok is false when a
// component is unsafe ("..", ".git", ...).
func cleanSubPath(p string) (clean string, ok bool) {
	p = strings.Trim(strings.ReplaceAll(p, "\\", "/"), "/")
	if p == "" || p == "." {
		return "", true
	}
	var parts []string
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." {
			continue
		}
		if !safeName(c) {
			return "", false
		}
		parts = append(parts, c)
	}
	return strings.Join(parts, "/"), true
}
