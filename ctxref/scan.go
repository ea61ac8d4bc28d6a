package ctxref

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/naming"
)

// DefaultPaths are what Scan reads when given no path: the project's docs
// and the files agents read first. A default that does not exist is
// skipped.
var DefaultPaths = []string{"docs", "specs", "README.md", "CLAUDE.md", "AGENTS.md"}

// skipDirs are never entered, at any depth: git's metadata, JavaScript
// dependencies and ctx's own folder (installed packages cite each other;
// they are not the project's text).
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".context": true}

// The limits of a scan when Limits leaves them 0.
const (
	DefaultMaxFileBytes = 16 << 20
	DefaultMaxFiles     = 200_000
	DefaultMaxRefs      = 100_000
)

// Limits bound a scan: the docs are the user's, but may be huge.
type Limits struct {
	MaxFileBytes int64 // a larger file is skipped with a warning; 0 = DefaultMaxFileBytes
	MaxFiles     int   // files read at most; 0 = DefaultMaxFiles
	MaxRefs      int   // references kept at most; 0 = DefaultMaxRefs
}

func (l Limits) withDefaults() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	if l.MaxRefs <= 0 {
		l.MaxRefs = DefaultMaxRefs
	}
	return l
}

// Found is a reference found in a file.
type Found struct {
	File string // slash-separated, relative to the scanned root
	Line int    // 1-based (markdown.Lines' lines)
	Match
}

// Where is "file:line:col".
func (f Found) Where() string { return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Col) }

// ScanResult is what Scan found.
type ScanResult struct {
	Refs     []Found  // sorted by file, line and column
	Files    int      // files read
	Warnings []string // files skipped (too large, unreadable), limits reached
}

// Scan finds the references (Find) in the files under root named by paths
// (slash- or OS-separated, relative to root; none = DefaultPaths, each
// only if it exists). A folder is walked for documents
// (markdown.IsDocument); a file named on its own is read whatever its name
// (unless it holds binary data). The walk honours root's .gitignore files
// (and .git/info/exclude), never follows a symbolic link, and does not
// enter .git, node_modules, .context or hidden folders. A named path that
// does not exist or leaves root is an error; a file that cannot be read, or
// is larger than the limit, is a warning.
func Scan(root string, paths []string, lim Limits) (*ScanResult, error) {
	lim = lim.withDefaults()
	s := &scanner{root: root, lim: lim, res: &ScanResult{}, seen: map[string]bool{}, ign: newIgnorer(root)}
	explicit := len(paths) > 0
	if !explicit {
		paths = DefaultPaths
	}
	for _, p := range paths {
		rel, err := relTo(root, p)
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				if !explicit {
					continue
				}
				return nil, &PathError{Path: p, Why: "no such file or folder"}
			}
			return nil, fmt.Errorf("scan %s: %w", p, err)
		}
		if fi.IsDir() {
			s.ign.loadAncestors(rel)
			if err := s.walk(rel); err != nil {
				return nil, err
			}
		} else if fi.Mode().IsRegular() {
			s.file(rel)
		} else {
			return nil, fmt.Errorf("scan %s: not a file or folder", p)
		}
		if s.full() {
			break
		}
	}
	s.res.Refs = slices.Concat(s.found...)
	slices.SortStableFunc(s.res.Refs, func(a, b Found) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	return s.res, nil
}

// PathError is a PATH given to Scan that it cannot read as asked: not
// there, or outside the project. It is the caller's argument that is
// wrong (cmd/ctx: a usage error, exit 2), not the scan.
type PathError struct {
	Path string // as given
	Why  string
}

func (e *PathError) Error() string { return e.Path + ": " + e.Why }

// relTo is p relative to root, slash-separated ("." for root itself); p
// must not leave root.
func relTo(root, p string) (string, error) {
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, p)
	}
	rel, ok := naming.RelIn(root, abs)
	if !ok {
		return "", &PathError{Path: p, Why: fmt.Sprintf("outside the project %s: name a file or folder inside it", root)}
	}
	return filepath.ToSlash(rel), nil
}

type scanner struct {
	root    string
	lim     Limits
	res     *ScanResult
	found   [][]Found // the references so far, in blocks (no copy as they grow); res.Refs at the end
	nfound  int
	seen    map[string]bool
	ign     *ignorer
	stopped bool
}

// foundBlock is how many references a block of scanner.found holds.
const foundBlock = 4096

func (s *scanner) add(f Found) {
	if len(s.found) == 0 || len(s.found[len(s.found)-1]) == foundBlock {
		s.found = append(s.found, make([]Found, 0, foundBlock))
	}
	last := &s.found[len(s.found)-1]
	*last = append(*last, f)
	s.nfound++
}

func (s *scanner) full() bool { return s.stopped }

func (s *scanner) warn(format string, args ...any) {
	s.res.Warnings = append(s.res.Warnings, fmt.Sprintf(format, args...))
}

// walk reads the documents under the folder rel.
func (s *scanner) walk(rel string) error {
	return filepath.WalkDir(filepath.Join(s.root, filepath.FromSlash(rel)), func(p string, d fs.DirEntry, err error) error {
		if s.stopped {
			return fs.SkipAll
		}
		r, rerr := filepath.Rel(s.root, p)
		if rerr != nil {
			return rerr
		}
		r = filepath.ToSlash(r)
		if err != nil {
			s.warn("%s: skipped: %v", r, err)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if r != rel && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".") || s.ign.match(r, true)) {
				return fs.SkipDir
			}
			s.ign.load(r)
			return nil
		}
		if d.Type().IsRegular() && markdown.IsDocument(r) && !s.ign.match(r, false) {
			s.file(r)
		}
		return nil
	})
}

// file reads the file rel and records its references.
func (s *scanner) file(rel string) {
	if s.seen[rel] || s.stopped {
		return
	}
	s.seen[rel] = true
	if s.res.Files >= s.lim.MaxFiles {
		s.warn("stopped after %d files (the limit): name fewer paths", s.lim.MaxFiles)
		s.stopped = true
		return
	}
	s.res.Files++
	data, err := s.read(rel)
	if err != nil {
		s.warn("%s: skipped: %v", rel, err)
		return
	}
	if markdown.IsBinary(data) {
		return
	}
	for i, line := range markdown.Lines(data) {
		for m := range All(line) { // the limit counts references, also inside a line
			if s.nfound >= s.lim.MaxRefs {
				s.warn("stopped after %d references (the limit) at %s:%d: name fewer paths", s.lim.MaxRefs, rel, i+1)
				s.stopped = true
				return
			}
			s.add(Found{File: rel, Line: i + 1, Match: m})
		}
	}
}

// read is the file rel, bounded (internal/boundedfile: a regular file of
// at most MaxFileBytes, no wait on a fifo); the error, shown after the
// path, says why it was skipped.
func (s *scanner) read(rel string) ([]byte, error) {
	data, err := boundedfile.ReadFile(filepath.Join(s.root, filepath.FromSlash(rel)), s.lim.MaxFileBytes)
	var be *boundedfile.Error
	switch {
	case !errors.As(err, &be):
		return data, err
	case be.Kind == boundedfile.ErrNotRegular:
		return nil, fmt.Errorf("%s, not a regular file", boundedfile.Describe(be.Mode))
	case be.Size >= 0:
		return nil, fmt.Errorf("%d bytes, more than the %d read", be.Size, s.lim.MaxFileBytes)
	}
	return nil, fmt.Errorf("more than the %d bytes read", s.lim.MaxFileBytes)
}

// ignorer holds the patterns of the .gitignore files read so far (each
// scoped to its folder by gitignore.ParsePattern) and .git/info/exclude.
type ignorer struct {
	root     string
	loaded   map[string]bool
	patterns []gitignore.Pattern
}

func newIgnorer(root string) *ignorer {
	ig := &ignorer{root: root, loaded: map[string]bool{}}
	ig.read(".git/info/exclude", nil)
	ig.load(".")
	return ig
}

// load reads the .gitignore of the folder rel once.
func (ig *ignorer) load(rel string) {
	if ig.loaded[rel] {
		return
	}
	ig.loaded[rel] = true
	var domain []string
	if rel != "." {
		domain = strings.Split(rel, "/")
	}
	ig.read(path.Join(rel, ".gitignore"), domain)
}

// loadAncestors loads the .gitignore of every folder from root to rel.
func (ig *ignorer) loadAncestors(rel string) {
	if rel == "." {
		return
	}
	els := strings.Split(rel, "/")
	for i := 1; i < len(els); i++ {
		ig.load(strings.Join(els[:i], "/"))
	}
}

// maxIgnoreBytes bounds one ignore file.
const maxIgnoreBytes = 1 << 20

func (ig *ignorer) read(rel string, domain []string) {
	f, err := os.Open(filepath.Join(ig.root, filepath.FromSlash(rel)))
	if err != nil {
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreBytes))
	if err != nil {
		return
	}
	for _, line := range markdown.Lines(data) {
		if !strings.HasPrefix(line, "#") && strings.TrimSpace(line) != "" {
			ig.patterns = append(ig.patterns, gitignore.ParsePattern(line, domain))
		}
	}
}

func (ig *ignorer) match(rel string, dir bool) bool {
	if len(ig.patterns) == 0 {
		return false
	}
	return gitignore.NewMatcher(ig.patterns).Match(strings.Split(rel, "/"), dir)
}
