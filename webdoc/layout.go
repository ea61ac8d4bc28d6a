package webdoc

import (
	"fmt"
	"path"

	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
)

// Layout is the one rule of where the files of a fetched archive or
// llms.txt index may go, and how many they may make: a path
// naming.PathProblem refuses (too long, too deep) is skipped, not
// written, and the files with the folders they make may not pass a limit
// (the source's maxFiles), so no entry or page path can make thousands of
// folders (red17 finding 1). Extract's plan and httpsrc's pages both
// use it, before anything is written.
type Layout struct {
	max     int
	files   map[string]bool
	folders map[string]bool
	// names maps each file's and folder's naming.FileKey to the path
	// recorded: two paths of one key, differing in case (or Unicode
	// form) only, are one file on macOS and Windows.
	names map[string]string
}

// NewLayout is a Layout of at most max files and folders (DefaultMaxFiles
// when max <= 0).
func NewLayout(max int) *Layout {
	if max <= 0 {
		max = DefaultMaxFiles
	}
	return &Layout{max: max, files: map[string]bool{}, folders: map[string]bool{}, names: map[string]string{}}
}

// Has reports whether p, a package-relative slash-separated path, was
// added.
func (l *Layout) Has(p string) bool { return l.files[p] }

// Add records the file p and the folders it makes. skip is why p must not
// be written (naming.PathProblem; then nothing is recorded); over reports
// that the files and folders recorded now pass the limit (Max).
//
// A path that differs from one recorded only in case (or in Unicode
// form), itself or one of its folders, is skipped too, on every system
// (naming.FileKey): on macOS and Windows the two are one file, and the
// later would overwrite the first (own21; git warns of such paths at a
// checkout there). The first keeps its path, so a package has the same
// files on every system.
func (l *Layout) Add(p string) (skip string, over bool) {
	if why := naming.PathProblem(p); why != "" {
		return why, false
	}
	for q := p; q != "."; q = path.Dir(q) {
		if had, ok := l.names[naming.FileKey(q)]; ok && had != q {
			return fmt.Sprintf("%s is %s on macOS and Windows (they differ only in case or Unicode form), which is kept", safetext.Quote(q), safetext.Quote(had)), false
		}
	}
	l.files[p] = true
	l.names[naming.FileKey(p)] = p
	for d := path.Dir(p); d != "." && !l.folders[d]; d = path.Dir(d) {
		l.folders[d] = true
		l.names[naming.FileKey(d)] = d
	}
	return "", len(l.files)+len(l.folders) > l.max
}

// Max is the limit of files and folders.
func (l *Layout) Max() int { return l.max }
