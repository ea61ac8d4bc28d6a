package indexer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/tokens"
	"github.com/ctx-dev/ctx/project"
)

// INDEX.md's "Recently changed" part (issue 32): what the last update
// changed, one line per package, recorded by NoteRecent in
// index/recent.json and rendered at the top of INDEX.md within a share of
// its budget (recentShare).

// recentFile is the record's name in the index folder.
const recentFile = "recent.json"

// maxRecentBytes bounds the record that is read.
const maxRecentBytes = 64 << 10

// recentShare is the part of INDEX.md's budget "Recently changed" may
// take: 1/recentShare; lines past it are left out.
const recentShare = 8

// maxRecentDocs is how many documents a package's line names.
const maxRecentDocs = 5

// RecentChange is one package's line in INDEX.md's "Recently changed".
type RecentChange struct {
	Alias   string    `json:"alias"`
	From    string    `json:"from,omitempty"` // the revision before, full
	To      string    `json:"to,omitempty"`   // the revision now, full
	When    time.Time `json:"when"`
	Summary string    `json:"summary"` // "3 documents, 1 section changed"
	// Docs name the changed documents ("guide.md: Configure", "new.md
	// added"), the first maxRecentDocs shown.
	Docs []string `json:"docs,omitempty"`
}

// NoteRecent records recent as what the last update changed and renders
// INDEX.md again (RenderIndexMD) so that its "Recently changed" part shows
// it; an empty recent leaves the record as it is.
func NoteRecent(ctx context.Context, contextDir string, recent []RecentChange, opts Options) (*SyncReport, error) {
	if len(recent) == 0 {
		return nil, nil
	}
	if err := writeRecent(confine.New(contextDir), filepath.Join(contextDir, project.IndexDir), recent, nil); err != nil {
		return nil, err
	}
	return RenderIndexMD(ctx, contextDir, opts)
}

// writeRecent records recent in indexDir (an empty one leaves the record);
// with dur, its fsync is dur's pass (publish's, before meta.json).
func writeRecent(d confine.Dir, indexDir string, recent []RecentChange, dur *durable) error {
	if len(recent) == 0 {
		return nil
	}
	if err := dur.writeJSON(d, filepath.Join(indexDir, recentFile), recent, dur != nil); err != nil {
		return fmt.Errorf("indexer: record recent changes: %w", err)
	}
	return nil
}

// noteRecent records what opts.Recent returns, if set, before a render;
// a failure is a warning (the render goes on without it). The record's
// fsync is dur's pass.
func noteRecent(d confine.Dir, indexDir string, opts Options, dur *durable, warn func(string)) {
	if opts.Recent == nil {
		return
	}
	r := opts.Recent()
	warmForRecent(indexDir, r, warmCodec)
	if err := writeRecent(d, indexDir, r, dur); err != nil {
		warn(fmt.Sprintf("%v; INDEX.md does not say what changed", err))
	}
}

// startNoteRecent is noteRecent in a goroutine: a Stream's Finish
// records what changed (opts.Recent waits for the command's summary of the
// changes) while it writes the search index, since publish is the first to
// read the record (issue 31). The function it returns waits for it and
// gives its warning, if any, to warn, on the caller's goroutine. A record
// written when the index's update then fails is harmless: the command
// records it again and renders INDEX.md (workspace's NoteChanges, when its
// report says the index did not note the changes).
func startNoteRecent(d confine.Dir, indexDir string, opts Options, dur *durable) (wait func(warn func(string))) {
	var msgs []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		noteRecent(d, indexDir, opts, dur, func(m string) { msgs = append(msgs, m) })
	}()
	return func(warn func(string)) {
		<-done
		for _, m := range msgs {
			warn(m)
		}
	}
}

// readRecent reads the record of indexDir; none when missing or unreadable.
func readRecent(indexDir string) []RecentChange {
	b, err := boundedfile.ReadFile(filepath.Join(indexDir, recentFile), maxRecentBytes)
	if err != nil {
		return nil
	}
	var r []RecentChange
	if json.Unmarshal(b, &r) != nil {
		return nil
	}
	return r
}

// recentHash identifies the record, for indexInputHash.
func recentHash(r []RecentChange) string {
	if len(r) == 0 {
		return ""
	}
	b, _ := json.Marshal(r)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8])
}

// recentHead and recentTail open and close INDEX.md's "Recently
// changed" part.
const (
	recentHead = "## Recently changed\n\n"
	recentTail = "\nThe `what_changed` MCP tool or `ctx changes` shows the sections and diffs.\n\n"
)

// recentLine is the line of INDEX.md's "Recently changed" part for c.
func recentLine(c RecentChange) string {
	line := "- " + codeSpan(c.Alias)
	if c.From != "" || c.To != "" {
		line += " " + codeSpan(naming.ShortRev(c.From, 7)) + " → " + codeSpan(naming.ShortRev(c.To, 7))
	}
	if !c.When.IsZero() {
		line += " (" + c.When.UTC().Format("2006-01-02") + ")"
	}
	line += ": " + strings.ReplaceAll(c.Summary, "\n", " ")
	var docs []string
	for i, d := range c.Docs {
		if i == maxRecentDocs {
			docs = append(docs, fmt.Sprintf("%d more", len(c.Docs)-i))
			break
		}
		docs = append(docs, codeSpan(d))
	}
	if len(docs) > 0 {
		line += ": " + strings.Join(docs, ", ")
	}
	return line + "\n"
}

// warmForRecent starts loading the codec when the render of r will need
// it: a word of its lines (a new section title, say) that INDEX.md's
// kept pieces (tokensFile) do not hold. Loading it takes ~16 ms of CPU,
// which the render paid on the update's critical path; started here,
// as soon as the command's summary of the changes is known, it runs on
// the other core while the search index and the catalogue are written
// (upd23). The render counts as before: with the codec, exactly. warm
// starts the load (warmCodec).
func warmForRecent(indexDir string, r []RecentChange, warm func()) {
	if len(r) == 0 {
		return
	}
	var tc tokens.Counter
	readCostMemo(indexDir).seed(&tc)
	// The part as recentPart renders it with every line (a piece may run
	// over a line's end: "`\n\n" before the tail).
	// One buffer: adding each line to a string copied the text so far
	// each time, quadratic in the packages of the update (rv-upd23).
	var text strings.Builder
	text.WriteString(recentHead)
	for _, c := range r {
		text.WriteString(recentLine(c))
	}
	text.WriteString(recentTail)
	if !tc.Knows(text.String()) {
		warm()
	}
}

// warmCodec starts loading the o200k codec in the background.
func warmCodec() { go tokens.Codec() }

// recentPart renders the record as INDEX.md's "Recently changed" part,
// within budget/recentShare tokens (lines past it left out), or "" when
// there is nothing to show. Every name is a code span (codeSpan).
func recentPart(r []RecentChange, pkgs []Package, budget int, tc *tokens.Counter) string {
	installed := map[string]bool{}
	for _, p := range pkgs {
		installed[p.Alias] = true
	}
	head, tail := recentHead, recentTail
	limit := budget / recentShare
	out := head
	n := 0
	for _, c := range r {
		if !installed[c.Alias] {
			continue
		}
		line := recentLine(c)
		if tc.Count(out+line+tail) > limit {
			break
		}
		out += line
		n++
	}
	if n == 0 {
		return ""
	}
	return out + tail
}
