package gitengine

import (
	"strings"
)

// maxSymlinkTarget bounds a symlink target read from a repository.
const maxSymlinkTarget = 4096

// safeName reports whether name, one entry of a git tree, can be written as
// one path component on any common file system without escaping its folder
// or touching git metadata: not empty, ".", "..", not containing a
// separator (/ or \) or NUL, and not ".git" in any spelling Windows or macOS
// would map to it (case, trailing dots and spaces, NTFS streams, the 8.3
// short name GIT~1).
func safeName(name string) bool {
	if name == "" || name == "." || name == ".." || len(name) > 255 {
		return false
	}
	if strings.ContainsAny(name, "/\\\x00") {
		return false
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
		return false
	}
	return true
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
