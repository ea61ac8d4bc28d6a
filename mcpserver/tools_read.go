package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/unicode/norm"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/project"
)

// read_relevant (issue 14): the best sections for a question in one call.
//
// The search (indexer.Reader.Search: BM25F and the query syntax) ranks
// chunks; each hit opens the section its heading trail names in the
// document model (markdown.Doc.Section), read through the server's safe
// reader (openDoc). The answer is assembled in three passes over the hits
// in rank order, within the budget (tokenBudget, counted on the whole
// answer as a client sees it):
//
//  1. each hit gets a passage: its whole section when that fits in a third
//     of the budget still free (the best hit: all of a budget too small to
//     share), else the hit's own chunk lines cut to that third, and their
//     neighbouring lines in the section as the third allows. A section
//     that overlaps a passage already taken (the same section again, a
//     section nested in it or holding it) keeps only the lines no passage
//     has; a hit whose lines are all taken adds nothing. The pass stops
//     when a third of what is left is under readMinShare.
//  2. what is left grows the passages sent in part, best first, line by
//     line (one after, one before) toward their whole sections, never
//     into another passage.
//  3. what is still left goes to the hits that got nothing, in rank
//     order, as in 1 but with all of it for each. The passages are then
//     put in reading order (inReadingOrder): the documents by their best
//     passage's rank, a document's passages together, in its order.
//
// A passage is sent as one text content (a header line naming its package
// and path, then its lines as they are in the file), with no resource
// link (agent22: the header names the document, which every document tool
// takes; a link per document was 129-146 bytes the model reads, up to 7%
// of an answer); a last text holds the note and the stale-index warning,
// when there are any. There
// is no structuredContent (addTool: Claude Code would show its JSON and
// drop the texts): each passage's metadata (package, path, heading trail,
// lines, provenance) is in _meta, for programs.
const (
	// readCandidates is how many search hits an answer is assembled from.
	readCandidates = 30
	// readShare: a passage of the first pass gets at most 1/readShare of
	// the budget left.
	readShare = 3
	// readMinShare is the fewest tokens of lines a passage cut from a
	// larger section is given (but for the best hit in a small budget);
	// when a third of the budget left is less, the first pass stops.
	readMinShare = 100
	// readHugeLine: a line longer than this many bytes is not counted but
	// taken to cost its length in tokens (an upper bound: a token is at
	// least one byte). A line longer than a passage's whole room is cut
	// and ends the passage.
	readHugeLine = 64 << 10
	// readMinCut is the fewest tokens of a cut line worth sending.
	readMinCut = 16
)

// noteTruncated is the note of an answer that left matching lines out.
const noteTruncated = "more matched than fits in maxTokens: read the rest of a section with get_section, or search for the other passages."

// ReadRelevantIn is read_relevant's input.
type ReadRelevantIn struct {
	Query     string   `json:"query" jsonschema:"the question or its key words, in search's query syntax"`
	Packages  []string `json:"packages,omitempty" jsonschema:"only these package aliases"`
	MaxTokens int      `json:"maxTokens,omitempty" jsonschema:"answer budget in tokens, default 10000"`
}

// RelevantSection describes one passage of a read_relevant answer (in its
// _meta); its text is the answer's text content of the same position.
type RelevantSection struct {
	Package string `json:"package" jsonschema:"the package alias"`
	Path    string `json:"path" jsonschema:"the document's path inside the package"`
	Heading string `json:"heading,omitempty" jsonschema:"the heading trail, A > B > C"`
	Lines   [2]int `json:"lines" jsonschema:"the lines sent, 1-based, inclusive"`
	// Section is the whole section's lines when only part of it was sent
	// (read the rest with get_section or get_document); absent when Lines
	// is the whole section, or all of it that no other section of the
	// answer holds (a section nested in another).
	Section [2]int `json:"section,omitzero" jsonschema:"the whole section's lines when only part of it was sent"`
	Kind    string `json:"kind" jsonschema:"the package's source kind: git, https or dir"`
	Commit  string `json:"commit,omitempty" jsonschema:"the revision its files are from, the one ctx installed (git commit, https sha256:); none for a dir source, which is live"`
	Edited  bool   `json:"edited,omitempty" jsonschema:"the file differs from what ctx installed at commit (a local edit): its text is not that revision's"`
	Cut     bool   `json:"cut,omitempty" jsonschema:"its last line is longer than the budget and only its start was sent"`
}

// ReadRelevantOut is read_relevant's _meta, for programs: the model reads
// the texts, which say all of it.
type ReadRelevantOut struct {
	Sections []RelevantSection `json:"sections" jsonschema:"the passages, the best document first, a document's passages in its order; their texts are the text contents of the same position"`
	// Truncated says that matching passages were left out or sent in part
	// to stay within maxTokens.
	Truncated bool   `json:"truncated,omitempty" jsonschema:"matching passages were left out or sent in part to stay within maxTokens"`
	Note      string `json:"note,omitempty" jsonschema:"what was left out, and how to read it"`
	Warning   string `json:"warning,omitempty" jsonschema:"the index may be stale, and why"`
	// Unmatched are the query's words no indexed document has
	// (indexer.Reader.Unmatched); the last text says so.
	Unmatched     []string `json:"unmatched,omitempty"`
	UnmatchedMore int      `json:"unmatchedMore,omitempty"` // past the first maxUnmatchedShown
	// CommonWordsOnly: no word of the query picks documents, each being
	// a stop word (indexer.Reader.Unmatched); the last text says so.
	CommonWordsOnly bool `json:"commonWordsOnly,omitempty"`
}

func (s *Server) addReadTools() {
	addTool(s, &mcp.Tool{
		Name: "read_relevant",
		Description: "Answer a question in one call: the best sections for `query`, each whole where it fits in maxTokens, " +
			"else its matching part; a document's sections come together, in its order. Each is a text: a header `[n] package/path:first-last · heading " +
			"trail · revision` (and `· also in v1.13, …` for a page kept per release: name a version to get its copy), then its lines. ctx's own notes and warnings start with `[ctx]`.",
		Annotations: readOnly("Read the relevant sections"),
	}, map[string]bound{"maxTokens": maxTokensBound}, s.readRelevant)
}

func (in ReadRelevantIn) maxTokens() int { return in.MaxTokens }

// readDoc is a document opened for an answer, with the token count of each
// line as far as it was needed.
type readDoc struct {
	doc markdown.Doc
	// commit is the revision its package's files are from (revOf) and
	// edited whether the file is not its text (snapshot.edited, of the
	// text read): asked once per document of an answer, not per passage
	// tried (rv-red22: three stats a passage, and a second read of a
	// file no stamp proves)
	commit string
	edited bool
	tok    []int // tok[i]: tokens of line i+1 and its newline; 0 = not counted yet
}

// passage is one section (or part of one) of an answer.
type passage struct {
	hit      indexer.Hit
	rank     int // the hit's place in the search's order
	rd       *readDoc
	sec      [2]int // the lines that are its whole section, after the lines other passages have are taken out
	full     [2]int // its whole section, as the answer names it when only part is sent
	from, to int    // the lines it sends
	cutText  string // when its last line (to) was cut: the part of it sent
	tokens   int    // the tokens of what it sends of lines from..to
	fixed    int    // the tokens of its header
	kind     string
	commit   string
	edited   bool // the file is not commit's text (snapshot.edited, red22)
}

func (s *Server) readRelevant(ctx context.Context, req *mcp.CallToolRequest, in ReadRelevantIn) (*mcp.CallToolResult, any, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, nil, errors.New("empty query: give the question, for example \"how do I configure logging\"")
	}
	if err := indexer.CheckQuery(in.Query); err != nil {
		return nil, nil, err
	}
	budget, err := tokenBudget(in.MaxTokens)
	if err != nil {
		return nil, nil, err
	}
	snap, r, warn, err := s.indexFor(ctx, req, "", in.Packages...)
	if err != nil {
		return nil, nil, err
	}
	q := indexer.Query{Text: in.Query, Packages: in.Packages, Limit: readCandidates}
	hits, semNote, err := s.searchHybrid(ctx, r, q, false)
	if err != nil {
		return nil, nil, err
	}
	warn = joinNotes(warn, semNote)
	if indexer.OnlyExclusions(q) { // searched as written: say so
		warn = joinNotes(warn, indexer.OnlyExclusionsNote)
	}
	unmatched, common, err := r.Unmatched(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	// answer is the answer within maxTokens' budget, how many passages it
	// holds, and whether it fits at all (not even the note may).
	answer := func(maxTokens int, advice string) (*mcp.CallToolResult, int, bool) {
		budget, _ := tokenBudget(maxTokens)
		// What the answer holds besides its passages, the note included.
		out := ReadRelevantOut{Sections: []RelevantSection{}, Warning: warn, Truncated: true, Note: noteTruncated}
		out.Unmatched, out.UnmatchedMore = shownUnmatched(unmatched)
		out.CommonWordsOnly = common
		base, _ := s.renderPassages(nil, out)
		ps, truncated := s.assemble(snap, hits, budget-s.answerTokens(base, nil))
		out.Truncated = truncated
		var res *mcp.CallToolResult
		render := func() {
			switch {
			case len(ps) == 0 && out.Truncated:
				out.Note = fmt.Sprintf("matching sections were found, but none fits in maxTokens %d: %s; search and get_section read any section.", cmp.Or(maxTokens, DefaultMaxTokens), advice)
			case len(ps) == 0:
				out.Note = searchNoMatchNote(q)
			case out.Truncated:
				out.Note = noteTruncated
			default:
				out.Note = ""
			}
			res, out = s.renderPassages(ps, out)
		}
		render()
		// The passages were counted piece by piece; count the answer whole
		// and drop the lowest-ranked passages while it is over the budget.
		shown := len(ps)
		ps = dropWorst(ps, func(kept []*passage) bool {
			if len(kept) != shown {
				ps, shown, out.Truncated = kept, len(kept), true
				render()
			}
			return s.answerTokens(res, nil) > budget
		})
		return res, len(ps), s.answerTokens(res, nil) <= budget && !(len(ps) == 0 && out.Truncated)
	}
	res, _, ok := answer(in.MaxTokens, "")
	if ok {
		return res, nil, nil
	}
	if len(hits) == 0 {
		return nil, nil, errTooSmall(in.MaxTokens, s.answerTokens(res, nil)) // not even the note fits
	}
	// No passage fits (or not even the note): advise the smallest
	// maxTokens whose answer holds one, found by trying, since a passage
	// is cut to what is free (readMinShare), not a fixed size.
	holds := func(m int) bool {
		_, n, ok := answer(m, "")
		return ok && n > 0
	}
	cur := cmp.Or(in.MaxTokens, DefaultMaxTokens)
	hi := min(max(2*cur, 128), MaxMaxTokens)
	for !holds(hi) && hi < MaxMaxTokens {
		hi = min(2*hi, MaxMaxTokens)
	}
	advice := fmt.Sprintf("no maxTokens up to %d holds one", MaxMaxTokens)
	if holds(hi) {
		lo := cur // holds none
		for lo+1 < hi {
			mid := (lo + hi) / 2
			if holds(mid) {
				hi = mid
			} else {
				lo = mid
			}
		}
		advice = fmt.Sprintf("give maxTokens %d or more (an answer with the first passage)", hi)
	}
	res, _, _ = answer(in.MaxTokens, advice)
	if s.answerTokens(res, nil) > budget { // not even the note fits
		return nil, nil, fmt.Errorf("maxTokens %d is too small for this answer: matching sections were found; %s", cur, advice)
	}
	return res, nil, nil
}

// assemble picks the passages of an answer from hits, best first, within
// budget tokens (see the comment at the top of this file). truncated says
// that matching lines were left out.
func (s *Server) assemble(snap snapshot, hits []indexer.Hit, budget int) (ps []*passage, truncated bool) {
	a := &assembly{s: s, snap: snap, docs: map[[2]string]*readDoc{}, left: budget}
	// First pass: a share of what is left for each hit, best first.
	var later []int // the hits left for the third pass, in rank order
	for i := range hits {
		if a.left/readShare < readMinShare && len(a.ps) > 0 {
			for ; i < len(hits); i++ {
				later = append(later, i)
			}
			break
		}
		if !a.take(hits, i, func(fixed int) int {
			room := a.left/readShare - fixed
			if room < readMinShare && len(a.ps) == 0 {
				room = a.left - fixed // a small budget: all of it for the best hit
			}
			return room
		}) {
			later = append(later, i)
		}
	}
	// Second pass: grow the passages sent in part, best first.
	for _, p := range a.ps {
		if p.cutText != "" {
			continue
		}
		lo, hi := p.sec[0], p.sec[1]
		for _, o := range a.ps {
			if o == p || !p.sameDoc(o) {
				continue
			}
			if o.to < p.from {
				lo = max(lo, o.to+1)
			}
			if o.from > p.to {
				hi = min(hi, o.from-1)
			}
		}
		s.grow(p, lo, hi, &a.left)
	}
	// Third pass: what is still left for the hits that got nothing yet.
	for _, i := range later {
		if a.left <= readMinCut || !a.take(hits, i, func(fixed int) int { return a.left - fixed }) {
			truncated = true
		}
	}
	inReadingOrder(a.ps)
	for _, p := range a.ps {
		truncated = truncated || !p.whole()
	}
	return a.ps, truncated
}

// inReadingOrder sorts ps as an answer sends them: the documents in the
// order of their best passage, each document's passages together and in
// the document's own order (round 20's leftover: passages in rank order
// sent a chapter's sections backwards and in pieces, with other documents
// between them, and an agent read them so).
func inReadingOrder(ps []*passage) {
	best := map[[2]string]int{}
	for _, p := range ps {
		k := [2]string{p.hit.Package, p.hit.Path}
		if r, ok := best[k]; !ok || p.rank < r {
			best[k] = p.rank
		}
	}
	slices.SortFunc(ps, func(p, q *passage) int {
		return cmp.Or(best[[2]string{p.hit.Package, p.hit.Path}]-best[[2]string{q.hit.Package, q.hit.Path}], p.from-q.from)
	})
}

// dropWorst drops the lowest-ranked passages of ps (worst), the others
// kept in their order, while over says that an answer of them is over its
// budget.
func dropWorst(ps []*passage, over func(ps []*passage) bool) []*passage {
	for len(ps) > 0 && over(ps) {
		w := worst(ps)
		ps = slices.Delete(ps, w, w+1)
	}
	return ps
}

// worst is the index in ps of the passage of the lowest rank: the one an
// answer over its budget drops first.
func worst(ps []*passage) int {
	w := 0
	for i, p := range ps {
		if p.rank > ps[w].rank {
			w = i
		}
	}
	return w
}

// assembly is the state of one answer's assembly.
type assembly struct {
	s    *Server
	snap snapshot
	docs map[[2]string]*readDoc // nil: not served (hidden, gone, binary, too big)
	ps   []*passage
	left int // tokens left of the budget
}

func (a *assembly) open(h indexer.Hit) *readDoc {
	k := [2]string{h.Package, h.Path}
	if d, ok := a.docs[k]; ok {
		return d
	}
	var rd *readDoc
	if served(h.Path) {
		if clean, data, err := a.s.openDoc(a.snap, h.Package, h.Path); err == nil {
			d := markdown.ParseFile(clean, data)
			rd = &readDoc{doc: d, tok: make([]int, len(d.Lines)), edited: a.snap.edited(h.Package, clean, data)}
			rd.commit, _ = a.snap.revOf(h.Package)
		}
	}
	a.docs[k] = rd
	return rd
}

// take adds the passage of hits[rank]: its whole section (less the lines other passages
// send) when it fits in the room roomFor gives for its overhead, else the
// hit's own lines and their neighbours as the room allows. It returns
// false when the hit was left out for want of room, true when it was
// taken or adds nothing (its lines are sent already, its document is not
// served).
func (a *assembly) take(hits []indexer.Hit, rank int, roomFor func(fixed int) int) bool {
	s, h := a.s, hits[rank]
	rd := a.open(h)
	if rd == nil || len(rd.doc.Lines) == 0 {
		return true
	}
	full, ok := sectionOf(rd.doc, h)
	if !ok {
		return true
	}
	sec, ok := uncovered(full, h.Lines, a.ps, h)
	if !ok {
		return true // every line of it is in the answer already
	}
	p := &passage{hit: h, rank: rank, rd: rd, sec: sec, full: full, kind: a.snap.kindOf(h.Package)}
	p.commit, p.edited = rd.commit, rd.edited
	p.fixed = s.passageOverhead(p)
	room := roomFor(p.fixed)
	if n, fits := s.rangeTokens(rd, sec[0], sec[1], room); fits {
		p.from, p.to, p.tokens = sec[0], sec[1], n
	} else if room < readMinShare && (len(a.ps) > 0 || room < readMinCut) {
		return false // no room for a useful part of it
	} else {
		from := max(h.Lines[0], sec[0])
		if from > sec[1] {
			from = sec[0]
		}
		// The hit's own lines, as many as fit.
		last := min(h.Lines[1], sec[1])
		p.from = from
		p.to, p.tokens = s.fitLines(rd, from, last, room)
		if p.to < last && s.lineTokens(rd, p.to+1) > room && room-p.tokens > readMinCut {
			// A line longer than the whole room (a minified blob, a
			// table on one line): send its start.
			if c := s.cutToTokens(rd.doc.Lines[p.to], room-p.tokens-1); c != "" {
				p.to, p.cutText = p.to+1, c
				p.tokens += s.countTokens(c) + 1
			}
		}
		if p.to < p.from {
			return false
		}
		if p.cutText == "" {
			// Then their neighbours.
			room -= p.tokens
			s.grow(p, sec[0], sec[1], &room)
		}
	}
	a.left -= p.fixed + p.tokens
	a.ps = append(a.ps, p)
	return true
}

// grow adds lines lo..hi around p's lines to it, one after, one before in
// turn, while their tokens fit in *left (which it lowers).
func (s *Server) grow(p *passage, lo, hi int, left *int) {
	for after := true; p.from > lo || p.to < hi; after = !after {
		next := p.to + 1
		if !after || next > hi {
			next = p.from - 1
			if next < lo {
				next = p.to + 1
			}
		}
		t := s.lineTokens(p.rd, next)
		if t > *left {
			return
		}
		*left -= t
		p.tokens += t
		if next < p.from {
			p.from = next
		} else {
			p.to = next
		}
	}
}

// sectionOf is the range of lines that is h's section: the section its
// heading trail names (markdown.Doc.Section) together with the hit's own
// lines (a chunk named for a heading can start on a near-empty parent
// heading just above it), or the hit's lines alone when the trail names
// no section that holds them (no heading, or the document changed since
// it was indexed). ok is false when the hit's lines are not in the
// document any more.
func sectionOf(d markdown.Doc, h indexer.Hit) ([2]int, bool) {
	n := len(d.Lines)
	a, b := max(h.Lines[0], 1), min(h.Lines[1], n)
	if a > b {
		return [2]int{}, false
	}
	if h.Heading != "" {
		if sec, _, ok := d.Section(h.Heading); ok && sec.StartLine <= b && sec.EndLine >= a {
			return [2]int{min(a, sec.StartLine), max(b, sec.EndLine)}, true
		}
	}
	return [2]int{a, b}, true
}

// uncovered takes the lines that passages of the same document already
// send out of sec, and returns the run of the lines left that holds most
// of the hit's own lines (hl). ok is false when none of hl is left.
func uncovered(sec, hl [2]int, ps []*passage, h indexer.Hit) ([2]int, bool) {
	runs := [][2]int{sec}
	for _, p := range ps {
		if p.hit.Package != h.Package || p.hit.Path != h.Path {
			continue
		}
		var next [][2]int
		for _, r := range runs {
			if p.to < r[0] || p.from > r[1] {
				next = append(next, r)
				continue
			}
			if r[0] < p.from {
				next = append(next, [2]int{r[0], p.from - 1})
			}
			if p.to < r[1] {
				next = append(next, [2]int{p.to + 1, r[1]})
			}
		}
		runs = next
	}
	best, most := [2]int{}, 0
	for _, r := range runs {
		if n := min(r[1], hl[1]) - max(r[0], hl[0]) + 1; n > most {
			best, most = r, n
		}
	}
	return best, most > 0
}

// lineTokens is the token count of line i (1-based) and its newline.
func (s *Server) lineTokens(rd *readDoc, i int) int {
	if t := rd.tok[i-1]; t > 0 {
		return t
	}
	l := rd.doc.Lines[i-1]
	t := len(l) + 1
	if len(l) <= readHugeLine {
		t = s.countTokens(l) + 1
	}
	rd.tok[i-1] = t
	return t
}

// rangeTokens counts lines a..b, stopping as soon as the count is over
// limit; fits says it is not.
func (s *Server) rangeTokens(rd *readDoc, a, b, limit int) (int, bool) {
	n := 0
	for i := a; i <= b; i++ {
		n += s.lineTokens(rd, i)
		if n > limit {
			return n, false
		}
	}
	return n, true
}

// fitLines returns the last line to of the longest run from..to' (to' ≤ to)
// whose tokens stay within limit, and their count; to < from when not even
// line from fits.
func (s *Server) fitLines(rd *readDoc, from, to, limit int) (int, int) {
	n := 0
	i := from
	for ; i <= to; i++ {
		t := s.lineTokens(rd, i)
		if n+t > limit {
			break
		}
		n += t
	}
	return i - 1, n
}

// cutToTokens returns the longest start of l (at a rune boundary) found
// within limit tokens, or "".
func (s *Server) cutToTokens(l string, limit int) string {
	if limit <= 0 {
		return ""
	}
	n := min(len(l), limit*4)
	for n > 0 {
		p := truncUTF8(l, n)
		t := s.countTokens(p)
		if t <= limit {
			return p
		}
		n = min(len(p)-1, len(p)*limit/t*9/10)
	}
	return ""
}

// revLabel is a passage's provenance as its header shows it; a file
// edited since ctx installed it is "local edit of" the revision (red22).
func revLabel(kind, commit string, edited bool) string {
	switch {
	case kind == project.KindDir:
		return "live"
	case commit == "":
		return kind
	case edited:
		return "local edit of " + kind + " " + naming.ShortRev(commit, 12)
	}
	return kind + " " + naming.ShortRev(commit, 12)
}

// header is a passage's first line: "[n] package/path:first-last · trail ·
// revision", and the whole section's lines when only part is sent; the
// path, trail and versions escaped (safetext.Escape; the trail and
// versions through headerField), so a header is one line of ctx's fields
// whatever a repository names its files and headings.
func (p *passage) header(n int) string {
	var b strings.Builder
	// The names are a repository's: a newline or line separator in a file
	// name or heading would start a line of the header's form (red22).
	fmt.Fprintf(&b, "[%d] %s/%s:%d-%d", n, p.hit.Package, safetext.Escape(p.hit.Path), p.from, p.to)
	if p.hit.Heading != "" {
		b.WriteString(" · " + headerField(p.hit.Heading))
	}
	b.WriteString(" · " + revLabel(p.kind, p.commit, p.edited))
	if len(p.hit.Versions) > 0 { // a page kept per release: one copy sent (indexer.Hit.Versions)
		b.WriteString(" · also in " + headerField(strings.Join(p.hit.Versions, ", ")))
	}
	if !p.whole() {
		fmt.Fprintf(&b, " · part of lines %d-%d", p.full[0], p.full[1])
	}
	if p.cutText != "" {
		fmt.Fprintf(&b, " · line %d cut", p.to)
	}
	return b.String()
}

// headerField is a repository's text in a field of a passage's header (a
// heading trail, a page's versions), escaped (safetext.Escape), with each
// middle dot that has a space (or the field's end) beside it written
// \u00b7: " · " separates the header's fields, and a heading "Setup · git
// 0123456789ab" read as a revision field before the real one (red22's
// Left). A dot inside a word (Catalan's "col·lecció") stays. The path is
// left as it is: it comes before the line range, which ends it, and an
// agent passes it back to the document tools.
func headerField(s string) string {
	s = safetext.Escape(s)
	if !strings.Contains(s, "·") {
		return s
	}
	var b strings.Builder
	prev := ' ' // the field's ends are the separator's spaces
	for i, r := range s {
		next := ' '
		if rest := s[i+utf8.RuneLen(r):]; rest != "" {
			next, _ = utf8.DecodeRuneInString(rest)
		}
		if r == '·' && (unicode.IsSpace(prev) || unicode.IsSpace(next)) {
			b.WriteString(`\u00b7`)
		} else {
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// headerRE matches a line in the form of a passage's header ("[n]
// package/path:first-last", header).
var headerRE = lazyre.New(`^\[[0-9]+\]\s+[^\n]*/[^\n]*:[0-9]+-[0-9]+`)

// unforged is a passage's line l as sent: one in the form of a header gets
// a backslash in front (Markdown's escape of "[", which renders the same),
// so that a document cannot forge a passage of another package, at another
// revision, inside its own (red18 finding 5). What a model reads as a
// header is one too: after leading blanks or invisible format characters
// (a zero-width space), in look-alike characters (full-width brackets and
// digits: the line's NFKC form), and after a Unicode line separator, which
// markdown.Lines does not split on but a model reads as a line end
// (review18a). The answer's last count (answerTokens) covers the bytes it
// adds.
func unforged(l string) string {
	if !strings.ContainsRune(l, '[') && !hasNonASCII(l) {
		return l // no bracket, nor anything that reads as one
	}
	var b strings.Builder
	start := 0
	for i, r := range l {
		if r == '\u2028' || r == '\u2029' || r == '\u0085' {
			b.WriteString(markForged(l[start:i]))
			b.WriteRune(r)
			start = i + utf8.RuneLen(r)
		}
	}
	b.WriteString(markForged(l[start:]))
	return b.String()
}

// unforgedText is text with each line unforged.
func unforgedText(text string) string {
	if !strings.Contains(text, "[") && !hasNonASCII(text) {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = unforged(l)
	}
	return strings.Join(lines, "\n")
}

// markForged is s with a backslash in front when, read as a model reads
// it (leading blanks and format characters dropped, NFKC), it has a
// header's form or starts as ctx's own words do (ctxMark, in any case, or
// a document tool's footer, "[ctx: ": red20b finding 6).
func markForged(s string) string {
	v := norm.NFKC.String(strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) }))
	if !strings.HasPrefix(v, "[") {
		return s
	}
	if headerRE().MatchString(v) || len(v) >= 5 && (strings.EqualFold(v[:5], "[ctx]") || strings.EqualFold(v[:5], "[ctx:")) {
		return `\` + s
	}
	return s
}

// ctxMark starts each line of ctx's own words in a text that also holds
// document lines (read_relevant's last text, a document tool's notes): a
// document's line that starts so is sent escaped (markForged), so a note
// or warning a document writes never reads as ctx's (red20b finding 6).
const ctxMark = "[ctx] "

// ctxWords is the non-blank lines of text, ctx's own words, each with
// ctxMark in front ("" when there are none).
func ctxWords(text string) string {
	var b strings.Builder
	for l := range strings.SplitSeq(text, "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(ctxMark + l)
	}
	return b.String()
}

// whole reports whether p sends its whole section.
func (p *passage) whole() bool {
	return p.from == p.sec[0] && p.to == p.sec[1] && p.cutText == ""
}

func (p *passage) meta() RelevantSection {
	m := RelevantSection{Package: p.hit.Package, Path: p.hit.Path, Heading: p.hit.Heading, Lines: [2]int{p.from, p.to},
		Kind: p.kind, Commit: p.commit, Edited: p.edited, Cut: p.cutText != ""}
	if !p.whole() {
		m.Section = p.full
	}
	return m
}

// sameDoc reports whether o is a passage of p's document.
func (p *passage) sameDoc(o *passage) bool {
	return o.hit.Package == p.hit.Package && o.hit.Path == p.hit.Path
}

// passageOverhead estimates the tokens a passage adds besides its lines:
// its header (its metadata in _meta is not counted: answerTokens).
func (s *Server) passageOverhead(p *passage) int {
	p.from, p.to = p.sec[0], p.sec[1] // a part's header is a little longer
	h := p.header(99) + " · part of lines 99999-99999"
	return s.countTokens(h) + 2
}

// mergeTouching is ps (in reading order) with each run of passages of one
// document that touch (the next starts on the line after the last one
// ends, or only blank lines are between them) made one passage: one text
// and one header for what reads as one run of the document (round 21's
// leftover: a chapter's adjacent sections came as two texts, each with its
// header and provenance). The merged passage names the first's heading
// trail (the others' headings are among its lines), the lowest rank, and
// when it does not send all of them, the lines of all its sections. ps is
// not changed.
func mergeTouching(ps []*passage) []*passage {
	var out []*passage
	for _, p := range ps {
		if len(out) > 0 {
			if last := out[len(out)-1]; last.sameDoc(p) && last.cutText == "" && last.to < p.from && onlyBlank(last.rd.doc.Lines[last.to:p.from-1]) {
				m := *last
				m.to, m.cutText, m.tokens = p.to, p.cutText, last.tokens+p.tokens
				m.sec = [2]int{min(last.sec[0], p.sec[0]), max(last.sec[1], p.sec[1])}
				m.full = [2]int{min(last.full[0], p.full[0]), max(last.full[1], p.full[1])}
				m.rank = min(last.rank, p.rank)
				out[len(out)-1] = &m
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

// onlyBlank reports whether every line of lines is blank.
func onlyBlank(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// renderPassages builds the answer of ps: per passage a text (header and
// lines), then a text with the warning and the note
// (when there are any); out gets their metadata and is the answer's _meta.
func (s *Server) renderPassages(ps []*passage, out ReadRelevantOut) (*mcp.CallToolResult, ReadRelevantOut) {
	res := &mcp.CallToolResult{Content: []mcp.Content{}}
	ps = mergeTouching(ps)
	out.Sections = make([]RelevantSection, 0, len(ps))
	for i, p := range ps {
		var b strings.Builder
		b.WriteString(p.header(i + 1))
		b.WriteByte('\n')
		// A part that starts inside a fenced code block opens it (with
		// the block's language, polish23), and one that ends inside one
		// closes it: unpaired, a fence turned the part's text, or the
		// next passage's header, into code (agent22).
		opening, closing := p.rd.doc.OpeningFence(p.from-1), p.rd.doc.OpenFence(p.to)
		if opening != "" {
			b.WriteString(unforged(opening) + "\n")
		}
		last := p.to
		if p.cutText != "" {
			last--
		}
		for j, l := range p.rd.doc.Lines[p.from-1 : last] {
			if j > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(unforged(l))
		}
		if p.cutText != "" {
			if last >= p.from {
				b.WriteByte('\n')
			}
			b.WriteString(unforged(p.cutText))
		}
		if closing != "" {
			b.WriteString("\n" + closing)
		}
		res.Content = append(res.Content, &mcp.TextContent{Text: b.String()})
		out.Sections = append(out.Sections, p.meta())
	}
	if tail := ctxWords(out.Warning + "\n" + unmatchedNote(out.Unmatched, out.UnmatchedMore, out.CommonWordsOnly, len(ps) > 0) + "\n" + out.Note); tail != "" {
		res.Content = append(res.Content, &mcp.TextContent{Text: tail})
	}
	if b, err := marshalJSON(out); err == nil {
		_ = json.Unmarshal(b, &res.Meta)
	}
	return res, out
}

// maxUnmatchedShown is how many of a query's unmatched words an answer
// names; the rest are counted (review20-agent20: the hundreds of words of
// a pasted log line, each named, took more than the answer's budget, and
// a query that matched was refused as "maxTokens is too small").
const maxUnmatchedShown = 10

// shownUnmatched is words (indexer.Reader.Unmatched) as an answer names
// them: the first maxUnmatchedShown, and how many more there are.
func shownUnmatched(words []string) ([]string, int) {
	if len(words) <= maxUnmatchedShown {
		return words, 0
	}
	return words[:maxUnmatchedShown], len(words) - maxUnmatchedShown
}

// unmatchedNote says which of a query's words no document has
// (shownUnmatched: words, and more not named), so that an agent tells a
// typo or an absent term from a weak match; "" when every word is there.
// common (indexer.Reader.Unmatched) says instead that no word of the query
// picks documents, each being a stop word, and what to send (polish21b:
// "how do I" got weak hits with nothing said). found says the answer has
// passages or hits, which then match the other words.
func unmatchedNote(words []string, more int, common, found bool) string {
	if common {
		return indexer.CommonWordsNote(found)
	}
	if len(words) == 0 {
		return ""
	}
	q := make([]string, len(words), len(words)+1)
	for i, w := range words {
		q[i] = safetext.Quote(w) // the client's words: bounded
	}
	if more > 0 {
		q = append(q, fmt.Sprintf("%d more", more))
	}
	n := "no document has the " + wording.Plural(len(words)+more, "word ", "words ") + wording.List(q, "or") + " (a typo?)"
	if found {
		n += ": the sections above match the other words"
	}
	return n + "."
}

// hasNonASCII reports whether s has a byte outside ASCII (where a
// look-alike of "[" or an invisible character could be).
func hasNonASCII(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }) >= 0
}
