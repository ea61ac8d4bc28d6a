package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/changes"
	"github.com/ctx-dev/ctx/internal/naming"
)

// what_changed (issue 32): the documents and sections that changed between
// an earlier lock and the lock now, as `ctx changes` finds them
// (workspace.Changes, which cmd/ctx hands the server as Options.Changes),
// one item per changed section or document, within the answer's budget.

// ChangesFunc finds what changed in the package alias ("" = every package)
// since the project's git revision since ("" = the default earlier lock).
// An unknown alias's error ends with listing, the server's advice on how
// to see the installed packages (listAdvice), not a terminal command.
type ChangesFunc func(ctx context.Context, alias, since, listing string) (*changes.Set, error)

// WhatChangedIn is what_changed's input.
type WhatChangedIn struct {
	Package   string `json:"package,omitempty" jsonschema:"only this package alias"`
	Since     string `json:"since,omitempty" jsonschema:"project git revision to compare with: HEAD~1, a tag, YYYY-MM-DD; default last committed lock, or the one before the last update"`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"answer budget in tokens, default 10000"`
}

func (in WhatChangedIn) maxTokens() int { return in.MaxTokens }

// Changed is one changed section, or a document added, removed or renamed;
// its provenance is its package's line (PackageChange: from, to).
type Changed struct {
	Package string `json:"package"`
	Path    string `json:"path"`
	Change  string `json:"change"` // added, removed, renamed, modified
	From    string `json:"from,omitempty"`
	Heading string `json:"heading,omitempty"` // the section's heading trail (get_section takes it)
	Lines   [2]int `json:"lines,omitzero"`
	Diff    string `json:"diff,omitempty"`
	// No uri (agent20): package and path name the document, as in a
	// search hit.
}

// PackageChange is one package's line of what_changed.
type PackageChange struct {
	Package string `json:"package"`
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	Summary string `json:"summary"`
}

// WhatChangedOut is what_changed's output.
type WhatChangedOut struct {
	Since     string          `json:"since"`
	Packages  []PackageChange `json:"packages"`
	Unchanged int             `json:"unchanged,omitempty" jsonschema:"packages with no document changed, not listed"`
	Changes   []Changed       `json:"changes"`
	Total     int             `json:"total"`
	Note      string          `json:"note,omitempty"`
}

func (s *Server) addChangesTool() {
	addTool(s, &mcp.Tool{
		Name: "what_changed",
		Description: "Changes in the installed docs since an earlier lock (an update or pull): documents added, " +
			"removed, renamed; changed sections with heading, lines, short diff; each package's from and to revisions.",
		Annotations: readOnly("What changed"),
	}, map[string]bound{"maxTokens": maxTokensBound}, s.whatChanged)
}

func (s *Server) whatChanged(ctx context.Context, _ *mcp.CallToolRequest, in WhatChangedIn) (*mcp.CallToolResult, WhatChangedOut, error) {
	if s.changes == nil {
		return nil, WhatChangedOut{}, errors.New("what_changed is not available in this server (run `ctx changes` in the project)")
	}
	budget, err := tokenBudget(in.MaxTokens)
	if err != nil {
		return nil, WhatChangedOut{}, err
	}
	set, err := s.changes(ctx, in.Package, in.Since, listAdvice)
	if err != nil {
		return nil, WhatChangedOut{}, err
	}
	out := WhatChangedOut{Since: set.Since, Packages: []PackageChange{}, Unchanged: set.Unchanged, Note: set.Note}
	var all []Changed
	for _, p := range set.Packages {
		out.Packages = append(out.Packages, PackageChange{Package: p.Alias, From: naming.ShortRev(p.OldRev, 12), To: naming.ShortRev(p.NewRev, 12), Summary: p.Summary()})
		for _, d := range p.Documents {
			// Its revision is its package's (PackageChange's from, for a
			// removed document, else to), said once there.
			c := Changed{Package: p.Alias, Path: d.Path, Change: d.Change, From: d.From}
			if len(d.Sections) == 0 {
				all = append(all, c)
				continue
			}
			for _, sec := range d.Sections {
				cs := c
				cs.Change, cs.Heading, cs.Lines, cs.Diff = sec.Change, sec.Heading(), [2]int{sec.StartLine, sec.EndLine}, sec.Diff
				if sec.Heading() == "" {
					cs.Heading = "(before the first heading)"
				}
				all = append(all, cs)
			}
		}
	}
	out.Total = len(all)
	build := func(items []Changed, lean bool, k int) WhatChangedOut {
		o := out
		o.Changes = firstN(items, k)
		if lean {
			o.Note = join(o.Note, "diffs left out to fit the budget: read a section with get_section, or ask for one package")
		}
		if k < len(items) {
			o.Note = join(o.Note, fmt.Sprintf("%d of %d changes listed: ask for one package, or a larger maxTokens", k, len(items)))
		}
		return o
	}
	fit := func(items []Changed, lean bool) (int, error) {
		return fitJSON(s, budget, in.MaxTokens, len(items), len(items),
			func(i int) any { return items[i] },
			func(k int) WhatChangedOut { return build(items, lean, k) })
	}
	k, err := fit(all, false)
	if err != nil {
		return nil, WhatChangedOut{}, err
	}
	items, lean := all, false
	if k < len(all) {
		// Not all fit with their diffs: without them, more may.
		bare := make([]Changed, len(all))
		for i, c := range all {
			c.Diff = ""
			bare[i] = c
		}
		if k2, err := fit(bare, true); err == nil && k2 > k {
			k, items, lean = k2, bare, true
		}
	}
	out = build(items, lean, k)
	return nil, out, nil
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
