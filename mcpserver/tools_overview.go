package mcpserver

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/indexer/markdown"
)

// GetOverviewIn is get_overview's input.
type GetOverviewIn struct {
	Package   string `json:"package,omitempty" jsonschema:"only this package's part of the catalogue"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page"`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"answer budget in tokens: default 10000; with no argument 2000, an outline if over"`
}

// overviewTokens is get_overview's budget when it is called with no
// argument, an agent's first call: INDEX.md whole when it fits, else its
// outline (overviewOutline). A project of a few packages fits; one of
// hundreds of documents costs about 8,000 tokens whole (INDEX.md's own
// budget), before the agent has asked anything.
const overviewTokens = 2000

func (in GetOverviewIn) maxTokens() int { return in.MaxTokens }

func (s *Server) addOverviewTool() {
	addTool(s, &mcp.Tool{
		Name:        "get_overview",
		Description: "The catalogue of all installed documentation (INDEX.md): titles and summaries. Read it first to see what exists.",
		Annotations: readOnly("Documentation overview"),
	}, map[string]bound{"maxTokens": maxTokensBound}, s.getOverview)
}

// Paging get_overview (agent20). A page is a window of lines of the text
// read: INDEX.md whole, or one package's part of it (its "## alias"
// heading to the next package's). INDEX.md is rendered again whenever the
// packages change, so a line number does not survive between two calls:
// the cursor holds the package, a hash of the text read (overviewState)
// and the line the next page starts at. A page after a re-render that
// changed that text is refused (start over); one that changed only other
// packages' parts follows on.

// overviewListing is get_overview's listing key (listingKey).
var overviewListing = listingKey("get_overview")

// overviewState is the hash of the lines a get_overview page is cut from.
func overviewState(lines []string) string {
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil)[:4])
}

// overviewCursor is the nextCursor that reads pkg's part (INDEX.md whole
// for "") of state on from line.
func overviewCursor(pkg, state string, line int) string {
	return encodeCursor(overviewListing, pkg+"@"+state+":"+strconv.Itoa(line))
}

// decodeOverviewCursor is overviewCursor's reverse.
func decodeOverviewCursor(c string) (pkg, state string, line int, err error) {
	after, _, err := decodeCursor(c, overviewListing)
	if err != nil {
		return "", "", 0, err
	}
	i, j := strings.LastIndexByte(after, '@'), strings.LastIndexByte(after, ':')
	if i >= 0 && j > i {
		pkg, state = after[:i], after[i+1:j]
		line, err = strconv.Atoi(after[j+1:])
	}
	if i < 0 || j < i || err != nil || line < 2 || state == "" {
		return "", "", 0, errors.New("the cursor is not one this server gave: call get_overview again without cursor to start over")
	}
	return pkg, state, line, nil
}

// packagePart is alias's part of INDEX.md: the lines from its "## alias"
// heading to the next package's heading; ok is false when INDEX.md has no
// such heading.
func packagePart(d markdown.Doc, alias string) ([]string, bool) {
	pkgs := packageHeadings(d)
	for i, h := range pkgs {
		if h.Text != alias {
			continue
		}
		end := len(d.Lines)
		if i+1 < len(pkgs) {
			end = pkgs[i+1].Line - 1
		}
		return d.Lines[h.Line-1 : end], true
	}
	return nil, false
}

// packageHeadings are INDEX.md's package headings (level 2).
func packageHeadings(d markdown.Doc) []markdown.Heading {
	var pkgs []markdown.Heading
	for _, h := range d.Outline() {
		if h.Level == 2 {
			pkgs = append(pkgs, h)
		}
	}
	return pkgs
}

func (s *Server) getOverview(ctx context.Context, req *mcp.CallToolRequest, in GetOverviewIn) (*mcp.CallToolResult, any, error) {
	budget, err := tokenBudget(in.MaxTokens)
	if err != nil {
		return nil, nil, err
	}
	var state string
	from := 1
	if in.Cursor != "" {
		var pkg string
		if pkg, state, from, err = decodeOverviewCursor(in.Cursor); err != nil {
			return nil, nil, err
		}
		if in.Package != "" && in.Package != pkg {
			return nil, nil, fmt.Errorf("the cursor reads on in %s, not package %q: call again with the cursor alone, or with package and no cursor", overviewWhat(pkg), in.Package)
		}
		in.Package = pkg
	}
	if in.Package != "" {
		if err := s.checkPackage(s.snapshot(), in.Package); err != nil {
			return nil, nil, err
		}
	}
	data, warn, err := s.readIndexMD(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	lines := markdown.Lines(data)
	what := overviewWhat(in.Package)
	if in.Package != "" {
		part, ok := packagePart(markdown.Parse(data), in.Package)
		if !ok {
			return nil, nil, fmt.Errorf("INDEX.md has no part for package %q (it lists only some packages, to fit its budget): call list_contexts with package %q to see its documents", in.Package, in.Package)
		}
		lines = part
	}
	now := overviewState(lines)
	if in.Cursor != "" && (state != now || from > len(lines)) {
		return nil, nil, fmt.Errorf("%s changed since the previous page (INDEX.md was rendered again after the packages changed): call get_overview again without cursor to start over", what)
	}
	out := DocumentOut{Path: "INDEX.md", URI: "ctx://index", TotalLines: len(lines), Note: warn}
	if in.Package == "" && in.MaxTokens == 0 && in.Cursor == "" {
		first, _ := tokenBudget(overviewTokens)
		if w, err := s.cutWindow(out, what, lines, 1, len(lines), 0, first); err == nil && !w.Truncated {
			return windowResult(w, what), nil, nil
		}
		if res, ok := s.overviewOutline(out, data, len(s.snapshot().aliases), first); ok {
			return res, nil, nil
		}
	}
	// The footer and _meta of a page that is cut carry its cursor in place
	// of nextOffset: the text gets that much less.
	reserve := 2*s.countTokens(overviewCursor(in.Package, now, len(lines))) + 4
	w, err := s.cutWindow(out, what, lines, from, len(lines), 0, budget)
	if err == nil && w.Truncated {
		w, err = s.cutWindow(out, what, lines, from, len(lines), 0, budget-reserve)
	}
	if err != nil {
		// What comes with a page as cutWindow counts it (footer, link,
		// _meta), the cursor, and a few tokens of text.
		frame := out
		n := len(lines)
		fill(&frame, window{StartLine: n, EndLine: n, NextOffset: n, Truncated: true, CutLine: true})
		need := (s.answerTokens(windowResult(frame, what), nil)+reserve+16)*100/headroomPercent + 1
		return nil, nil, fmt.Errorf("maxTokens %d is too small for a page of %s: what comes with its text (footer, cursor, link) takes most of it; give maxTokens %d or more (up to %d)",
			cmp.Or(in.MaxTokens, DefaultMaxTokens), what, need, MaxMaxTokens)
	}
	if w.Truncated {
		w.NextCursor, w.NextOffset = overviewCursor(in.Package, now, w.NextOffset), 0
	}
	return windowResult(w, what), nil, nil
}

// overviewWhat names the text get_overview reads for pkg ("": INDEX.md).
func overviewWhat(pkg string) string {
	if pkg == "" {
		return "INDEX.md"
	}
	return fmt.Sprintf("INDEX.md, package %s's part", pkg)
}

// overviewOutline is get_overview's first answer when INDEX.md is over
// budget: its lines before the first package, then each package's heading
// and the line under it (where it is read from, its revision, its document
// count), then the first k of its entries as titles (indexer.EntryTitle:
// a document's line without its summary) and how many more there are,
// with the most packages and then the largest k that fit; and how many of
// the installed packages it leaves out (INDEX.md itself may list only
// some). A package's part is read whole with get_overview's package. ok
// is false when INDEX.md has no package heading or not even its top fits
// (the caller sends a window).
func (s *Server) overviewOutline(out DocumentOut, data []byte, installed, budget int) (*mcp.CallToolResult, bool) {
	d := markdown.Parse(data)
	pkgs := packageHeadings(d)
	if len(pkgs) == 0 {
		return nil, false
	}
	top := strings.TrimRight(strings.Join(d.Lines[:pkgs[0].Line-1], "\n"), "\n")
	type part struct {
		alias, head string
		entries     []string
	}
	parts := make([]part, len(pkgs))
	most := 0
	for i, h := range pkgs {
		end := len(d.Lines)
		if i+1 < len(pkgs) {
			end = pkgs[i+1].Line - 1
		}
		p := part{alias: h.Text, head: d.Lines[h.Line-1]}
		for _, l := range d.Lines[h.Line:end] {
			switch {
			case strings.HasPrefix(l, "- "):
				p.entries = append(p.entries, indexer.EntryTitle(l))
			case strings.TrimSpace(l) != "" && len(p.entries) == 0 && !strings.Contains(p.head, "\n"):
				p.head += "\n" + l // the line under the heading: where it is from
			}
		}
		most = max(most, len(p.entries))
		parts[i] = p
	}
	out.Outline, out.Truncated = true, true
	render := func(n, k int) *mcp.CallToolResult {
		o := out
		var b strings.Builder
		b.WriteString(top)
		for _, p := range parts[:n] {
			b.WriteString("\n\n" + p.head)
			if k > 0 && len(p.entries) > 0 {
				b.WriteString("\n")
			}
			for _, e := range firstN(p.entries, k) {
				b.WriteString("\n" + e)
			}
			if more := len(p.entries) - k; more > 0 && k > 0 {
				fmt.Fprintf(&b, "\n- … and %d more (package=%s)", more, p.alias)
			}
		}
		if more := max(installed, len(parts)) - n; more > 0 {
			fmt.Fprintf(&b, "\n\n… and %d more packages: list_contexts lists them all", more)
		}
		o.Text = b.String()
		return windowResult(o, "INDEX.md")
	}
	fits := func(n, k int) bool { return s.answerTokens(render(n, k), nil) <= budget }
	if !fits(0, 0) {
		return nil, false
	}
	// The most packages that fit with no entry (more packages, a longer
	// answer), then, when all fit, the most entries of each.
	n := sort.Search(len(parts), func(n int) bool { return !fits(n+1, 0) })
	k := 0
	if n == len(parts) {
		k = sort.Search(most, func(k int) bool { return !fits(n, k+1) })
	}
	return render(n, k), true
}
