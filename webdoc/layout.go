package webdoc

import (
	"path"

	"github.com/ctx-dev/ctx/internal/naming"
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
}

// NewLayout is a Layout of at most max files and folders (DefaultMaxFiles
// when max <= 0).
func NewLayout(max int) *Layout {
	if max <= 0 {
		max = DefaultMaxFiles
	}
	return &Layout{max: max, files: map[string]bool{}, folders: map[string]bool{}}
}

// Has reports whether p, a package-relative slash-separated path, was
// added.
func (l *Layout) Has(p string) bool { return l.files[p] }

// Add records the file p and the folders it makes. skip is why p must not
// be written (naming.PathProblem; then nothing is recorded); over reports
// that the files and folders recorded now pass the limit (Max).
func (l *Layout) Add(p string) (skip string, over bool) {
	if why := naming.PathProblem(p); why != "" {
		return why, false
	}
	l.files[p] = true
	for d := path.Dir(p); d != "." && !l.folders[d]; d = path.Dir(d) {
		l.folders[d] = true
	}
	return "", len(l.files)+len(l.folders) > l.max
}

// Max is the limit of files and folders.
func (l *Layout) Max() int { return l.max }
