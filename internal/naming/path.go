package naming

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/internal/safetext"
)

// MaxName is the longest path element, in bytes (the limit of ext4, APFS
// and NTFS).
const MaxName = 255

// pathKind says how strict checkPath and checkElem are.
type pathKind int

const (
	// filePath is a path inside a package or a repository: a sub-path in
	// the manifest or lock, a path made of git tree entries.
	filePath pathKind = iota
	// servedPath is a document path asked for over MCP: a filePath that
	// also never goes through a hidden (dot) element.
	servedPath
)

// CheckFilePath checks that p is a clean, relative, slash-separated path
// that stays inside the folder it is joined to and never names git
// metadata:
//
//   - not empty, no NUL byte, no backslash (git tree names may hold one, but
//     Windows would read it as a separator);
//   - not absolute: no leading '/', and no drive letter ("C:...");
//   - every '/'-separated element passes CheckName: so no empty element
//     (no "//", no leading or trailing '/'), no "." or "..", no ".git".
//
// A path that passes CheckFilePath is already clean (path.Clean returns it
// unchanged) and filepath.IsLocal.
func CheckFilePath(p string) error {
	if err := checkPath(p, filePath); err != nil {
		return fmt.Errorf("path %q %w", p, err)
	}
	return nil
}

// CheckServedPath checks a path that names a document inside a package when
// asked for over MCP: CheckFilePath, and no element may start with '.'
// (.git, .state, hidden files and folders are never served).
func CheckServedPath(p string) error {
	if err := checkPath(p, servedPath); err != nil {
		return fmt.Errorf("path %s %w", safetext.Quote(p), err) // clipped: a URL's path can be long
	}
	return nil
}

// CheckName checks one path element, such as the name of a git tree entry,
// that is to be written as one component of a path on any common file
// system. It must not escape its folder or touch git metadata:
//
//   - not empty, ".", or "..", at most 255 bytes;
//   - no separator ('/' or '\') and no NUL byte;
//   - not ".git" in any spelling Windows or macOS would map to it: in any
//     case, with trailing dots or spaces, with an NTFS stream (".git::$DATA"),
//     with code points HFS+ ignores (U+200C...), or as the 8.3 short name
//     GIT~1. A name that is nothing but such decoration (":x", "...") is
//     refused too.
func CheckName(name string) error {
	if err := checkElem(name, filePath); err != nil {
		return fmt.Errorf("name %q %w", name, err)
	}
	return nil
}

// CleanSubPath normalises a sub-path of a repository as a person or a
// registry writes it and checks it: "" and "." mean the whole tree and give
// ""; a trailing '/', empty elements and "." elements are dropped. The rest
// must follow CheckFilePath: no leading '/', no backslash, no "..", no
// ".git". The result is "" or a path that passes CheckFilePath.
func CleanSubPath(p string) (string, error) {
	if p == "" || p == "." {
		return "", nil
	}
	if err := checkRoot(p); err != nil {
		return "", fmt.Errorf("path %q %w", p, err)
	}
	var parts []string
	for _, el := range strings.Split(p, "/") {
		if el == "" || el == "." {
			continue
		}
		if err := checkElem(el, filePath); err != nil {
			return "", fmt.Errorf("path %q %w", p, err)
		}
		parts = append(parts, el)
	}
	return strings.Join(parts, "/"), nil
}

// checkPath checks a whole path; kind says how strictly. It returns why p is
// not valid; callers wrap the error with the path.
func checkPath(p string, kind pathKind) error {
	if p == "" {
		return errors.New("is empty")
	}
	if err := checkRoot(p); err != nil {
		return err
	}
	for el := range strings.SplitSeq(p, "/") {
		if err := checkElem(el, kind); err != nil {
			return err
		}
	}
	return nil
}

// checkRoot refuses what makes a path absolute or not slash-separated.
func checkRoot(p string) error {
	switch {
	case strings.IndexByte(p, 0) >= 0:
		return errors.New("contains a NUL byte")
	case strings.IndexByte(p, '\\') >= 0:
		return errors.New("contains a backslash; use forward slashes")
	case p[0] == '/':
		return errors.New("is absolute; give a relative path")
	case len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z'):
		return errors.New("starts with a drive letter; give a relative path")
	}
	return nil
}

// checkElem checks one element of a path; kind says how strictly.
func checkElem(el string, kind pathKind) error {
	switch {
	case el == "":
		return errors.New("has an empty element (a leading, trailing or double '/')")
	case el == ".":
		return errors.New("has a '.' element; give a clean path")
	case el == "..":
		return errors.New("has a '..' element, which leaves its folder")
	case len(el) > MaxName:
		return fmt.Errorf("has an element of %d bytes (at most %d)", len(el), MaxName)
	case strings.ContainsAny(el, "/\\\x00"):
		return fmt.Errorf("has an element %q with a separator or a NUL byte", el)
	}
	switch fsBase(el) {
	case "":
		return fmt.Errorf("has an element %q that is empty once a file system drops its trailing dots, spaces or stream name", el)
	case ".git", "git~1":
		return fmt.Errorf("has an element %q that names git metadata (.git)", el)
	}
	if kind == servedPath && el[0] == '.' {
		return fmt.Errorf("goes through hidden %q, which is never served", el)
	}
	return nil
}

// fsBase is el as Windows or macOS may compare it, lower-cased: without an
// NTFS stream name, trailing dots and spaces, or code points HFS+ ignores.
func fsBase(el string) string {
	base, _, _ := strings.Cut(el, ":") // NTFS alternate data stream
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
	return strings.ToLower(base)
}

// MaxPath bounds a path inside a package (bytes), well below Linux's
// PATH_MAX of 4096 so that the package folder's own path, staging folders
// and backups fit in front of it.
const MaxPath = 1024

// MaxDepth bounds how many folders deep a path inside a package may be
// (a git tree's nesting as well): with MaxPath it bounds the folders one
// entry of a repository or an archive, or one page of an llms.txt, makes.
const MaxDepth = 256

// PathProblem says why p, a slash-separated path inside a package whose
// elements are checked otherwise, must not be written ("" when it may):
// longer than MaxPath bytes, or in more than MaxDepth folders. It is the
// one bound of gitengine (a tree entry skipped), webdoc (an archive entry
// or an llms.txt page skipped: Layout) and a push's paths.
func PathProblem(p string) string {
	switch {
	case len(p) > MaxPath:
		return fmt.Sprintf("path too long (over %d bytes)", MaxPath)
	case strings.Count(p, "/") > MaxDepth:
		return fmt.Sprintf("folders nested too deep (over %d)", MaxDepth)
	}
	return ""
}
