package markdown

import (
	"slices"
	"strings"
	"sync"
)

// Section is a heading's extent in a document, in 1-based file lines.
type Section struct {
	Heading string // the heading's text
	Level   int
	// StartLine is the heading's line, or, for a section found by its
	// trail, the first line of a chunk named for it that starts earlier
	// (see Doc.Section).
	StartLine int
	// EndLine is the last line before the next heading of the same or a
	// higher level (or the document's last line), blank lines at the end
	// left out, or, for a section found by its trail, the last line of a
	// chunk named for the heading that ends later.
	EndLine int
}

// TrailSep separates the headings of a heading trail ("Setup > Install"),
// as search hits show them.
const TrailSep = " > "

// normHeading makes heading comparison forgiving: case, surrounding space,
// leading #s and markdown emphasis do not matter.
func normHeading(h string) string {
	h = strings.TrimSpace(h)
	h = strings.TrimLeft(h, "#")
	h = strings.TrimSpace(h)
	h = strings.Map(func(r rune) rune {
		switch r {
		case '`', '*':
			return -1
		case '_':
			return ' '
		}
		return r
	}, h)
	return strings.ToLower(strings.Join(strings.Fields(h), " "))
}

// trailKey normalises a heading trail: each part split at ">" is
// normalised, so "A>B", "a > b" and "A  >  B" are the same trail.
func trailKey(parts []string) []string {
	var out []string
	for _, p := range parts {
		for _, q := range strings.Split(p, ">") {
			out = append(out, normHeading(q))
		}
	}
	return out
}

// Section finds the section under heading, matched case-insensitively
// (leading #s, emphasis and surrounding space ignored), in this order:
//  1. the heading whose trail is heading (Trails, joined by TrailSep): the
//     Plain texts of it and of the headings that enclose it, outermost
//     first, as search hits name their chunks ("Setup > Install", "Setup"
//     for a heading that nothing encloses, "Setup > Install (2)" for the
//     second heading of that trail);
//  2. the first heading whose text, or Plain text, is heading, else the
//     first whose heading-ID marker gives it as id ("usage" or "#usage"
//     for "## Usage {#usage}": StripHeadingID);
//  3. when heading is a trail, the first heading whose trail ends with its
//     parts, so that "Mac > Install" finds the Install under Mac, not the
//     one under Linux;
//  4. the first heading whose text is the trail's last part.
//
// The section runs from the heading to the line before the next heading of
// the same or a higher level. Found by its trail (1), it also takes in the
// chunks (Doc.Chunks) named for the heading: near-empty sections before it
// whose lines joined its chunk, a near-empty last section after it. So the
// section a search hit's trail opens holds the hit's lines.
//
// It returns the outline too, for hints when nothing matches.
func (d Doc) Section(heading string) (Section, []Heading, bool) {
	m := d.memo
	if m == nil || !m.of(d) {
		m = &sectionMemo{} // a Doc not made by Parse or ParseFile, or changed since
	}
	hs := d.Outline()
	want := normHeading(heading)
	wantParts := trailKey([]string{heading})
	keys := m.trailKeys(d)
	idx := slices.IndexFunc(keys, func(k []string) bool { return slices.Equal(k, wantParts) })
	byTrail := idx >= 0
	if idx < 0 {
		idx = m.texts(d).find(want)
	}
	if idx < 0 {
		// 2b. the heading whose heading-ID marker ({#id}, {/*id*/}) is heading
		idx = slices.IndexFunc(m.headingIDs(d), func(id *string) bool { return id != nil && *id == want })
	}
	if idx < 0 && len(wantParts) > 1 {
		idx = slices.IndexFunc(keys, func(k []string) bool {
			return len(k) >= len(wantParts) && slices.Equal(k[len(k)-len(wantParts):], wantParts)
		})
		if idx < 0 {
			idx = m.texts(d).find(wantParts[len(wantParts)-1])
		}
	}
	if idx < 0 {
		return Section{}, hs, false
	}
	s := d.extent(hs, idx)
	if byTrail && hs[idx].Level <= ChunkLevel {
		if sp := m.chunkSpans(d)[idx]; sp[0] > 0 {
			s.StartLine, s.EndLine = min(s.StartLine, sp[0]), max(s.EndLine, sp[1])
		}
	}
	return s, hs, true
}

// sectionMemo is what Section looks headings up by, derived from a Doc's
// structure: each part is built on its first use, once (sync.Once: a Doc
// may be read from several goroutines), and then shared by every copy of
// the Doc. Before it, every Section call rebuilt every heading's trail
// (and the chunks, and each heading's normalised text), so Section of each
// of a page's n trails was quadratic. A Doc is read-only (see Doc); a copy
// whose Lines, headings, front matter or format were reassigned is not the
// Doc the memo was made for (built), and Section then works without it.
// An edit in place is not seen: it breaks Doc's rule.
type sectionMemo struct {
	built docShape // the Doc it is for (newSectionMemo)

	trailOnce    sync.Once
	trails, keys [][]string // Doc.trails

	textOnce sync.Once
	text     headingTexts

	idOnce sync.Once
	ids    []*string // per heading, its heading-ID marker's id normalised; nil when it has none

	spanOnce sync.Once
	spans    [][2]int // per heading, the first and last line of the chunks named for it; {0, 0} when none
}

func (m *sectionMemo) trailKeys(d Doc) [][]string {
	m.trailOnce.Do(func() { m.trails, m.keys = d.trails() })
	return m.keys
}

// headingTexts is each heading's text and Plain text (what a heading
// trail shows), normalised (normHeading).
type headingTexts struct{ norm, plain []string }

// find returns the first heading whose text, as written or as its Plain
// text, is want (normalised), or -1.
func (h *headingTexts) find(want string) int {
	for i := range h.norm {
		if h.norm[i] == want || h.plain[i] == want {
			return i
		}
	}
	return -1
}

func (m *sectionMemo) texts(d Doc) *headingTexts {
	m.textOnce.Do(func() {
		hs := d.Body.Headings
		m.text = headingTexts{norm: make([]string, len(hs)), plain: make([]string, len(hs))}
		for i, h := range hs {
			m.text.norm[i], m.text.plain[i] = normHeading(h.Text), normHeading(Plain(h.Text))
		}
	})
	return &m.text
}

func (m *sectionMemo) headingIDs(d Doc) []*string {
	m.idOnce.Do(func() {
		hs := d.Outline()
		m.ids = make([]*string, len(hs))
		for i, h := range hs {
			if id := d.headingID(h); id != "" {
				n := normHeading(id)
				m.ids[i] = &n
			}
		}
	})
	return m.ids
}

func (m *sectionMemo) chunkSpans(d Doc) [][2]int {
	m.spanOnce.Do(func() {
		m.spans = make([][2]int, len(d.Body.Headings))
		m.trailKeys(d)
		for _, c := range d.chunksWith(m.trails) {
			if c.Heading < 0 {
				continue
			}
			sp := &m.spans[c.Heading]
			if sp[0] == 0 {
				*sp = [2]int{c.StartLine, c.EndLine}
			} else {
				sp[0], sp[1] = min(sp[0], c.StartLine), max(sp[1], c.EndLine)
			}
		}
	})
	return m.spans
}

// Sections returns the section of every heading of the outline, in order:
// from the heading to the line before the next heading of the same or a
// higher level, as Section finds it by its text. Found by its trail,
// Section may also take in the chunks named for the heading, so it holds
// this section and may run wider. A section's extent includes its
// sub-sections, which follow it.
func (d Doc) Sections() []Section {
	hs := d.Outline()
	out := make([]Section, len(hs))
	for i := range hs {
		out[i] = d.extent(hs, i)
	}
	return out
}

// extent is the section of outline heading hs[idx]: from its line up to
// the line before the next heading of the same or a higher level (or the
// document's end), blank lines at the end left out.
func (d Doc) extent(hs []Heading, idx int) Section {
	h := hs[idx]
	s := Section{Heading: h.Text, Level: h.Level, StartLine: h.Line, EndLine: len(d.Lines)}
	for _, n := range hs[idx+1:] {
		if n.Level <= h.Level {
			// A setext heading's Line is its text line, so the section
			// ends before the text, not before the underline.
			s.EndLine = n.Line - 1
			break
		}
	}
	for s.EndLine > s.StartLine && strings.TrimSpace(d.Lines[s.EndLine-1]) == "" {
		s.EndLine--
	}
	return s
}

// docShape identifies the structure a sectionMemo was made for: a Doc
// whose Lines or Headings were reassigned or appended to, or whose front
// matter or format changed, is not the same (edits in place are not seen).
type docShape struct {
	lines  *string
	nLines int
	heads  *Heading
	nHeads int
	fmEnd  int
	format Format
}

func first[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

func shapeOf(d Doc) docShape {
	return docShape{first(d.Lines), len(d.Lines), first(d.Body.Headings), len(d.Body.Headings), d.FrontMatter.End, d.Format}
}

func newSectionMemo(d Doc) *sectionMemo { return &sectionMemo{built: shapeOf(d)} }

func (m *sectionMemo) of(d Doc) bool { return m.built == shapeOf(d) }
