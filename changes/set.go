package changes

import (
	"strings"

	"github.com/ctx-dev/ctx/internal/wording"
)

// What a package's entry in a Set says about it.
const (
	StatusChanged     = "changed"     // its documents differ (Documents)
	StatusUnchanged   = "unchanged"   // same revision, or no document differs
	StatusAdded       = "added"       // not in the old lock
	StatusRemoved     = "removed"     // not in the lock now
	StatusLive        = "live"        // a dir source: read in place, no history
	StatusUnavailable = "unavailable" // the old content could not be read (Note says why)
)

// Package is what changed in one package.
type Package struct {
	Alias  string `json:"alias"`
	Kind   string `json:"kind"` // git, https, dir
	OldRev string `json:"oldRev,omitempty"`
	NewRev string `json:"newRev,omitempty"`
	Status string `json:"status"`
	Note   string `json:"note,omitempty"`
	// Documents are the documents that differ, sorted by path (for an
	// added or removed package, every document, added or removed).
	Documents []Document `json:"documents"`
}

// Set is what `ctx changes` found: the old lock it compared with, and each
// package, sorted by alias.
type Set struct {
	// Since says which lock is the old side: "HEAD (3f2a…)", "the lock
	// before the last update (2026-11-26 14:00 UTC)", the revision named.
	Since string `json:"since"`
	// SinceCommit is the project's commit the old lock was read at, when
	// it came from git history.
	SinceCommit string    `json:"sinceCommit,omitempty"`
	Packages    []Package `json:"packages"`
	// Unchanged counts the packages left out of Packages because no
	// document of theirs changed (a package asked for by name is listed).
	Unchanged int `json:"unchanged,omitempty"`
	// Note is set when there was no old lock to compare with.
	Note string `json:"note,omitempty"`
}

// Counts returns how many documents and sections changed in p (an added,
// removed or renamed document counts as a document, not a section).
func (p Package) Counts() (docs, sections int) {
	for _, d := range p.Documents {
		docs++
		sections += len(d.Sections)
	}
	return docs, sections
}

// Summary is p in one line, without its alias: "3 documents, 5 sections
// changed", "unchanged", "a dir source, read live: no history".
func (p Package) Summary() string {
	switch p.Status {
	case StatusLive:
		return "a dir source, read live: it has no history to compare"
	case StatusUnavailable:
		return "changes unknown: " + p.Note
	case StatusUnchanged:
		return "no document changed"
	}
	d, s := p.Counts()
	var parts []string
	parts = append(parts, wording.Count(d, "document", "documents"))
	if s > 0 {
		parts = append(parts, wording.Count(s, "section", "sections"))
	}
	verb := "changed"
	switch p.Status {
	case StatusAdded:
		verb = "added"
	case StatusRemoved:
		verb = "removed"
	}
	return strings.Join(parts, ", ") + " " + verb
}
