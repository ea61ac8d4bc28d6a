// Package changes says what changed in a package's documents between two
// versions of its files: which documents were added, removed or renamed
// and, in a modified document, which sections' text changed, with their
// heading trails, line ranges and a bounded unified diff.
//
// A section is what search indexes and cites: the chunks of
// indexer/markdown (Doc.Chunks) grouped by their heading trail
// (Doc.Trails), so a changed section is named by the trail a search hit
// shows and get_section opens. Nothing here re-splits a document.
//
// It is pure: the caller (workspace) hands it both versions' files, each
// with a content id (a git blob id) and a way to read it, from the git
// cache, the https cache or the disk. Only the files whose ids differ are
// read.
package changes

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

// File is one file of a package version.
type File struct {
	Path string // slash-separated, relative to the package folder
	// ID identifies the content (a git blob id): two files with the same
	// ID are the same bytes.
	ID   string
	Read func() ([]byte, error)
}

// Limits bound what Compare shows.
type Limits struct {
	// DiffLines is the most lines of diff one section shows (hunk headers
	// included); 0 = DefaultDiffLines, negative = no diff at all.
	DiffLines int
	// SectionBytes is the largest section text that is diffed (both sides);
	// a larger section is named, its diff left out. 0 = DefaultSectionBytes.
	SectionBytes int
}

// Defaults of Limits.
const (
	DefaultDiffLines    = 40
	DefaultSectionBytes = 64 << 10
	// Context is how many unchanged lines a hunk shows around a change.
	Context = 3
)

// What happened to a document or a section.
const (
	Added    = "added"
	Removed  = "removed"
	Renamed  = "renamed"
	Modified = "modified"
)

// Document is one document that differs between the versions.
type Document struct {
	Path   string `json:"path"`
	Change string `json:"change"`         // Added, Removed, Renamed, Modified
	From   string `json:"from,omitempty"` // Renamed: the old path
	// Binary is set for a document whose content is not text: it is named,
	// never diffed.
	Binary bool `json:"binary,omitempty"`
	// Sections lists, for a Modified document, the sections whose text
	// changed, in the order of the new document (the removed ones after).
	Sections []Section `json:"sections,omitempty"`
}

// Section is one section whose text changed.
type Section struct {
	// Trail is the section's heading trail (markdown.Doc.Trails), empty for
	// the text before the first heading.
	Trail []string `json:"trail"`
	// Change is Modified, Added (no section of the old document has the
	// trail) or Removed (none of the new one has).
	Change string `json:"change"`
	// StartLine and EndLine are the section's 1-based lines in the new
	// document (for Removed, in the old one).
	StartLine int `json:"startLine"`
	EndLine   int `json:"endLine"`
	// Diff is a unified diff of the section's lines (hunk headers with file
	// lines), at most Limits.DiffLines lines; Cut says lines were left out.
	Diff string `json:"diff,omitempty"`
	Cut  bool   `json:"cut,omitempty"`
}

// Heading is the section's trail as search hits show it ("Setup > Install").
func (s Section) Heading() string { return strings.Join(s.Trail, markdown.TrailSep) }

// Compare lists the documents (markdown.IsDocument) that differ between
// old and new, sorted by path. A removed document whose content is that of
// an added one is a rename. Only files whose IDs differ are read.
func Compare(old, new []File, lim Limits) ([]Document, error) {
	if lim.DiffLines == 0 {
		lim.DiffLines = DefaultDiffLines
	}
	if lim.SectionBytes <= 0 {
		lim.SectionBytes = DefaultSectionBytes
	}
	olds := docsByPath(old)
	news := docsByPath(new)
	var added, removed []File
	var out []Document
	for p, n := range news {
		o, ok := olds[p]
		if !ok {
			added = append(added, n)
			continue
		}
		if o.ID == n.ID {
			continue
		}
		d, err := modified(o, n, lim)
		if err != nil {
			return nil, err
		}
		if d != nil {
			out = append(out, *d)
		}
	}
	for p, o := range olds {
		if _, ok := news[p]; !ok {
			removed = append(removed, o)
		}
	}
	// Renames: same content, one path gone and one new. Paths sorted so
	// that equal contents pair up the same way every time.
	sort.Slice(added, func(i, j int) bool { return added[i].Path < added[j].Path })
	sort.Slice(removed, func(i, j int) bool { return removed[i].Path < removed[j].Path })
	gone := map[string][]string{}
	for _, o := range removed {
		gone[o.ID] = append(gone[o.ID], o.Path)
	}
	renamedFrom := map[string]bool{}
	for _, n := range added {
		if ps := gone[n.ID]; len(ps) > 0 {
			gone[n.ID] = ps[1:]
			renamedFrom[ps[0]] = true
			out = append(out, Document{Path: n.Path, Change: Renamed, From: ps[0]})
			continue
		}
		out = append(out, Document{Path: n.Path, Change: Added})
	}
	for _, o := range removed {
		if !renamedFrom[o.Path] {
			out = append(out, Document{Path: o.Path, Change: Removed})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func docsByPath(files []File) map[string]File {
	m := make(map[string]File, len(files))
	for _, f := range files {
		if markdown.IsDocument(f.Path) {
			m[f.Path] = f
		}
	}
	return m
}

// modified compares two versions of one document: nil when no section's
// text differs (a change of line ends, say).
func modified(o, n File, lim Limits) (*Document, error) {
	ob, err := read(o)
	if err != nil {
		return nil, err
	}
	nb, err := read(n)
	if err != nil {
		return nil, err
	}
	if markdown.IsBinary(ob) || markdown.IsBinary(nb) {
		return &Document{Path: n.Path, Change: Modified, Binary: true}, nil
	}
	secs := Sections(n.Path, ob, nb, lim)
	if len(secs) == 0 {
		return nil, nil
	}
	return &Document{Path: n.Path, Change: Modified, Sections: secs}, nil
}

func read(f File) ([]byte, error) {
	if f.Read == nil {
		return nil, fmt.Errorf("%s: no content", f.Path)
	}
	b, err := f.Read()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Path, err)
	}
	return b, nil
}

// ErrNoContent is returned by a File's Read when its content is not
// available.
var ErrNoContent = errors.New("content not available")

// group is the chunks of one heading trail: their lines and extent.
type group struct {
	key        string
	trail      []string
	start, end int      // 1-based, inclusive: the first chunk's start, the last's end
	lines      []string // the chunks' lines, in order
}

// groups cuts a document into its sections, in order: the text before
// the first heading, then one section per heading of level
// markdown.ChunkLevel or less (deeper headings stay inside), named by its
// trail (Doc.Trails), as search cites them. Unlike Doc.Chunks, a short
// section is not joined to the next one (it would then be named for the
// next heading), nor a long one split. A data file's sections are its
// chunks, grouped by trail.
func groups(name string, content []byte) (markdown.Doc, []*group, map[string]*group) {
	d := markdown.ParseFile(name, content)
	var order []*group
	byKey := map[string]*group{}
	add := func(t []string, start, end int) {
		for start <= end && strings.TrimSpace(d.Lines[start-1]) == "" {
			start++
		}
		for end >= start && strings.TrimSpace(d.Lines[end-1]) == "" {
			end--
		}
		if start > end {
			return
		}
		key := strings.Join(t, "\x00")
		g := byKey[key]
		if g == nil {
			g = &group{key: key, trail: t, start: start}
			byKey[key] = g
			order = append(order, g)
		}
		g.end = end
		g.lines = append(g.lines, d.Lines[start-1:end]...)
	}
	if d.Format.IsData() {
		for _, c := range d.Chunks() {
			add(c.Trail, c.StartLine, c.EndLine)
		}
		return d, order, byKey
	}
	type head struct {
		line  int
		trail []string
	}
	heads := []head{{line: 1}} // the text before the first heading (front matter too)
	trails := d.Trails()
	for i, h := range d.Outline() {
		if h.Level <= markdown.ChunkLevel {
			heads = append(heads, head{h.Line, trails[i]})
		}
	}
	for i, h := range heads {
		end := len(d.Lines)
		if i+1 < len(heads) {
			end = heads[i+1].line - 1
		}
		add(h.trail, h.line, end)
	}
	return d, order, byKey
}

// Sections lists the sections whose text differs between the old and the
// new content of the document name, with their diffs: the new document's
// order, then the removed sections in the old one's.
func Sections(name string, oldContent, newContent []byte, lim Limits) []Section {
	if lim.DiffLines == 0 {
		lim.DiffLines = DefaultDiffLines
	}
	if lim.SectionBytes <= 0 {
		lim.SectionBytes = DefaultSectionBytes
	}
	od, oldOrder, oldBy := groups(name, oldContent)
	nd, newOrder, newBy := groups(name, newContent)
	var out []Section
	for _, g := range newOrder {
		o := oldBy[g.key]
		switch {
		case o == nil:
			s := Section{Trail: trail(g.trail), Change: Added, StartLine: g.start, EndLine: g.end}
			s.Diff, s.Cut = sectionDiff(od, nd, 0, 0, g.start, g.end, lim)
			out = append(out, s)
		case !equal(o.lines, g.lines):
			s := Section{Trail: trail(g.trail), Change: Modified, StartLine: g.start, EndLine: g.end}
			s.Diff, s.Cut = sectionDiff(od, nd, o.start, o.end, g.start, g.end, lim)
			out = append(out, s)
		}
	}
	for _, o := range oldOrder {
		if newBy[o.key] == nil {
			s := Section{Trail: trail(o.trail), Change: Removed, StartLine: o.start, EndLine: o.end}
			s.Diff, s.Cut = sectionDiff(od, nd, o.start, o.end, 0, 0, lim)
			out = append(out, s)
		}
	}
	return out
}

func trail(t []string) []string {
	if t == nil {
		return []string{}
	}
	return t
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sectionDiff diffs old lines [os, oe] with new lines [ns, ne] (1-based,
// inclusive; os == 0 or ns == 0 for none).
func sectionDiff(od, nd markdown.Doc, os, oe, ns, ne int, lim Limits) (string, bool) {
	if lim.DiffLines < 0 {
		return "", false
	}
	var a, b []string
	if os > 0 {
		a = od.Lines[os-1 : oe]
	}
	if ns > 0 {
		b = nd.Lines[ns-1 : ne]
	}
	if size(a) > lim.SectionBytes || size(b) > lim.SectionBytes {
		return fmt.Sprintf("(section of more than %d bytes: not diffed)\n", lim.SectionBytes), true
	}
	return Unified(a, b, max(os, 1), max(ns, 1), lim.DiffLines)
}

func size(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n
}
