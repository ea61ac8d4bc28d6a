package markdown

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// IsDocument reports whether the slash-separated path p, relative to a
// package folder, names a document: its name has a document extension
// (FormatOf: .md, .markdown, .mdx, .txt, .rst, .adoc, .yaml, .yml, .json,
// .toml, in any case) and none of its elements is hidden (starts with
// "."), so .git, .github and .state are never documents. The indexer
// indexes exactly these files and the MCP server serves exactly these.
func IsDocument(p string) bool {
	for el := range strings.SplitSeq(p, "/") { // no slice: asked for every document of a freshness check
		if Hidden(el) {
			return false
		}
	}
	return FormatOf(p) != ""
}

// Hidden reports whether a file or folder name is hidden (starts with
// "."): the walk does not enter a hidden folder nor list a hidden file,
// and no path through one is a document (IsDocument), so the MCP server's
// watch ignores them too.
func Hidden(name string) bool { return strings.HasPrefix(name, ".") }

// binaryHead is how much of a file IsBinary looks at.
const binaryHead = 8000

// IsBinary reports whether content is not text: its first 8,000 bytes hold
// a NUL byte (as git decides). Invalid UTF-8 is not binary: Lines replaces
// it.
func IsBinary(content []byte) bool {
	return bytes.IndexByte(content[:min(len(content), binaryHead)], 0) >= 0
}

// Walk returns the slash-separated paths of the documents (IsDocument) in
// the package folder fsys, sorted: WalkWith with no options (a locked
// package's files are what its source holds).
func Walk(fsys fs.FS, warn func(dir string, err error)) ([]string, error) {
	return WalkWith(fsys, WalkOptions{}, warn)
}

// WalkOptions are the further rules of a dir source's walk (a folder of
// the user's, read in place).
type WalkOptions struct {
	// Gitignore skips what the folder's .gitignore files ignore: the one
	// at its root and those of the folders under it, each for its own
	// folder, later lines and deeper files first, as git and ripgrep read
	// them (go-git's matcher). A folder ignored is not entered.
	Gitignore bool
	// MaxFiles stops the walk with a *TooLargeError past this many files
	// and folders seen; 0 is no bound.
	MaxFiles int
	// MaxBytes stops it past this many bytes of documents together; 0 is
	// no bound.
	MaxBytes int64
	// Above, with Gitignore, is the tree the walked folder is in (the
	// project), whose .gitignore files from its root down to the folder
	// apply as well, as ripgrep reads a repository's: Above.FS is the
	// tree, Above.Path the folder's slash path in it ("docs/api"). A
	// pattern that would ignore the folder itself or a folder above it is
	// left out: the folder was named on purpose.
	Above *Above
	// Keep, when not nil, is asked of each document the other rules
	// find (its slash path): one it refuses is left out. A committed dir
	// source serves only the files git tracks (project.Tracked); the
	// walk's caller counts what Keep refused. Whatever decides it is part
	// of the walk's key, not its Seen.
	Keep func(rel string) bool
	// Seen, when not nil, is told what the walk's result depends on
	// besides the documents' own stat data, each when the walk reads it:
	// every folder it enters, with its Lstat taken before its entries are
	// read, and every .gitignore it consults (Gitignore), with its Lstat
	// (nil when there is none). A later walk of folders whose stat data
	// have not moved, and of .gitignore files that have not, finds the
	// same documents (the indexer's walk record).
	Seen func(Seen)
	// Context, when not nil, ends the walk with its error once it is done
	// (checked at every entry): a freshness check the MCP server stops.
	Context context.Context
}

// Seen is one folder or .gitignore a walk read (WalkOptions.Seen): its
// slash path in the walked tree (in Above.FS when Above is set), and its
// Lstat (nil when it could not be taken: a .gitignore that is not there,
// a folder gone).
type Seen struct {
	Path  string
	Above bool
	Dir   bool
	Info  fs.FileInfo
}

// Above is a walked folder's place in a larger tree (WalkOptions.Above).
type Above struct {
	FS   fs.FS
	Path string
}

// TooLargeError is a walk stopped at one of WalkOptions' bounds.
type TooLargeError struct {
	Files bool  // the bound on files and folders (else on bytes)
	Limit int64 // the bound passed
}

func (e *TooLargeError) Error() string {
	if e.Files {
		return fmt.Sprintf("more than %d files and folders: stopped (point the source at the folder of documents, list what it should skip in a .gitignore, or raise the source's limits.maxFiles)", e.Limit)
	}
	return fmt.Sprintf("more than %d bytes of documents: stopped (point the source at the folder of documents, list what it should skip in a .gitignore, or raise the source's limits.maxTotalBytes)", e.Limit)
}

// WalkWith returns the slash-separated paths of the documents (IsDocument)
// in the package folder fsys, sorted. It is the one walk over a package's
// files: the indexer's, the MCP server's listings, install's. Hidden files
// and folders are not entered; symbolic links are never followed (so no
// walk leaves fsys) and only regular files are documents; o adds a dir
// source's rules (.gitignore, bounds). A folder that cannot be read (the
// root included) is passed to warn (when not nil) and skipped; a root that
// cannot be stat'ed is an error (fs.ErrNotExist when it is missing); a
// bound passed is a *TooLargeError.
func WalkWith(fsys fs.FS, o WalkOptions, warn func(dir string, err error)) ([]string, error) {
	found, err := WalkInfo(fsys, o, warn)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.Path
	}
	return out, nil
}

// Found is a document WalkInfo found: its path, and its stat data (Lstat,
// taken while its folder was walked) when the walk read them (a walk with
// MaxBytes reads every document's size); nil when not.
type Found struct {
	Path string
	Info fs.FileInfo
}

// WalkInfo is WalkWith, with the stat data the walk read: a caller that
// needs every document's stat data (the indexer's freshness check) stats
// again only the documents without.
func WalkInfo(fsys fs.FS, o WalkOptions, warn func(dir string, err error)) ([]Found, error) {
	var out []Found
	ign := newIgnoreStack(o.Above, o.Seen)
	seen, total := 0, int64(0)
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if o.Context != nil && o.Context.Err() != nil {
			return o.Context.Err()
		}
		if err != nil {
			if d == nil {
				return err // the root cannot be stat'ed
			}
			if warn != nil {
				warn(p, err)
			}
			return nil // a folder that cannot be read: skipped
		}
		if p == "." {
			if d.IsDir() {
				o.seenDir(p, d)
			}
			if o.Gitignore && d.IsDir() {
				ign.enter(fsys, ".", o.Seen)
			}
			return nil
		}
		if Hidden(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if seen++; o.MaxFiles > 0 && seen > o.MaxFiles {
			return &TooLargeError{Files: true, Limit: int64(o.MaxFiles)}
		}
		if o.Gitignore {
			if ign.ignored(p, d.IsDir()) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				o.seenDir(p, d)
				ign.enter(fsys, p, o.Seen)
			}
		} else if d.IsDir() {
			o.seenDir(p, d)
		}
		if d.Type().IsRegular() && IsDocument(p) && (o.Keep == nil || o.Keep(p)) {
			f := Found{Path: p}
			if o.MaxBytes > 0 {
				if fi, err := d.Info(); err == nil {
					f.Info = fi
					if total += fi.Size(); total > o.MaxBytes {
						return &TooLargeError{Limit: o.MaxBytes}
					}
				}
			}
			out = append(out, f)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Found) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// seenDir tells o.Seen of the folder p the walk is about to read.
func (o WalkOptions) seenDir(p string, d fs.DirEntry) {
	if o.Seen == nil {
		return
	}
	fi, err := d.Info() // for a folder under the root, an Lstat now: before its entries are read
	if err != nil {
		fi = nil
	}
	o.Seen(Seen{Path: p, Dir: true, Info: fi})
}

// Ignored reports whether the document rel (slash-separated, checked
// safe) of the dir source fsys is one its .gitignore files ignore, as
// WalkWith with Gitignore decides: the MCP server serves none of them.
func Ignored(fsys fs.FS, above *Above, rel string) bool {
	return ignoredIn(fsys, above, rel, false)
}

// IgnoredPath reports whether rel (slash-separated, checked safe), a
// folder when dir, is ignored by the .gitignore files of the tree fsys,
// from its root down, as git reads them: project asks it of
// context.local.json, which git should ignore (checkLocalUntracked).
func IgnoredPath(fsys fs.FS, rel string, dir bool) bool {
	return ignoredIn(fsys, nil, rel, dir)
}

// ignoredIn is Ignored, with rel's last element a folder when dir.
func ignoredIn(fsys fs.FS, above *Above, rel string, dir bool) bool {
	ign := newIgnoreStack(above, nil)
	ign.enter(fsys, ".", nil)
	elems := strings.Split(rel, "/")
	for i := range elems {
		p := strings.Join(elems[:i+1], "/")
		isDir := i < len(elems)-1 || dir
		if ign.ignored(p, isDir) {
			return true
		}
		if isDir {
			ign.enter(fsys, p, nil)
		}
	}
	return false
}

// maxGitignoreBytes bounds how much of one .gitignore is read.
const maxGitignoreBytes = 1 << 20

// ignoreStack is the .gitignore patterns of the folders from the root to
// the one being walked, in order (fs.WalkDir walks depth first, so the
// folders left are popped as a path outside them comes).
type ignoreStack struct {
	prefix   []string            // Above.Path's elements: paths are matched from the tree's root
	outer    []gitignore.Pattern // the .gitignore files above the folder (Above), root first
	dirs     []string            // "." first
	patterns [][]gitignore.Pattern
}

// newIgnoreStack starts a stack with the patterns of the .gitignore files
// of above's tree from its root down to the folder, less those that would
// ignore the folder or one above it; seen (when not nil) is told of each
// .gitignore it looks for.
func newIgnoreStack(above *Above, seen func(Seen)) *ignoreStack {
	s := &ignoreStack{}
	if above == nil || above.Path == "" || above.Path == "." {
		return s
	}
	s.prefix = strings.Split(above.Path, "/")
	for i := range s.prefix {
		dir := strings.Join(s.prefix[:i], "/")
		if dir == "" {
			dir = "."
		}
	ps:
		for _, p := range parseIgnore(readIgnoreFile(above.FS, path.Join(dir, ".gitignore"), seen, true), s.prefix[:i]) {
			for k := 1; k <= len(s.prefix); k++ {
				if p.Match(s.prefix[:k], true) == gitignore.Exclude {
					continue ps
				}
			}
			s.outer = append(s.outer, p)
		}
	}
	return s
}

// parseIgnore parses a .gitignore's lines into patterns scoped to domain,
// as go-git reads one (comments and blank lines skipped).
func parseIgnore(data []byte, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// enter reads dir's .gitignore (a regular file, its first MiB) and pushes
// its patterns, scoped to dir; seen (when not nil) is told of it.
func (s *ignoreStack) enter(fsys fs.FS, dir string, seen func(Seen)) {
	s.pop(dir)
	domain := s.prefix[:len(s.prefix):len(s.prefix)]
	if dir != "." {
		domain = append(domain, strings.Split(dir, "/")...)
	}
	s.dirs = append(s.dirs, dir)
	s.patterns = append(s.patterns, parseIgnore(readIgnoreFile(fsys, path.Join(dir, ".gitignore"), seen, false), domain))
}

// pop drops the folders p is not inside.
func (s *ignoreStack) pop(p string) {
	for n := len(s.dirs); n > 0; n = len(s.dirs) {
		top := s.dirs[n-1]
		if top == "." || strings.HasPrefix(p, top+"/") {
			return
		}
		s.dirs, s.patterns = s.dirs[:n-1], s.patterns[:n-1]
	}
}

// ignored reports whether p is ignored by the patterns of its folders.
func (s *ignoreStack) ignored(p string, isDir bool) bool {
	s.pop(p)
	elems := append(s.prefix[:len(s.prefix):len(s.prefix)], strings.Split(p, "/")...)
	for i := len(s.patterns) - 1; i >= -1; i-- {
		ps := s.outer
		if i >= 0 {
			ps = s.patterns[i]
		}
		for j := len(ps) - 1; j >= 0; j-- {
			if m := ps[j].Match(elems, isDir); m != gitignore.NoMatch {
				return m == gitignore.Exclude
			}
		}
	}
	return false
}

// readIgnoreFile reads name when it is a regular file (not through a
// symbolic link), up to maxGitignoreBytes; nil when it cannot. seen (when
// not nil) is told of its Lstat first (above: name is in Above.FS).
func readIgnoreFile(fsys fs.FS, name string, seen func(Seen), above bool) []byte {
	fi, err := fs.Lstat(fsys, name)
	if seen != nil {
		info := fi
		if err != nil {
			info = nil
		}
		seen(Seen{Path: name, Above: above, Info: info})
	}
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, maxGitignoreBytes))
	return data
}
