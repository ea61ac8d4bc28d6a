package markdown

import (
	"slices"
	"strings"
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

// matches reports whether heading text t is want (normalised): as written,
// or as its Plain text (what a heading trail shows).
func matches(t, want string) bool {
	return normHeading(t) == want || normHeading(Plain(t)) == want
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
	hs := d.Outline()
	want := normHeading(heading)
	wantParts := trailKey([]string{heading})
	trails, keys := d.trails()
	find := func(match func(i int) bool) int {
		for i := range hs {
			if match(i) {
				return i
			}
		}
		return -1
	}
	idx := find(func(i int) bool { return slices.Equal(keys[i], wantParts) })
	byTrail := idx >= 0
	if idx < 0 {
		idx = find(func(i int) bool { return matches(hs[i].Text, want) })
	}
	if idx < 0 {
		// 2b. the heading whose heading-ID marker ({#id}, {/*id*/}) is heading
		idx = find(func(i int) bool { id := d.headingID(hs[i]); return id != "" && normHeading(id) == want })
	}
	if idx < 0 && len(wantParts) > 1 {
		idx = find(func(i int) bool {
			t := keys[i]
			return len(t) >= len(wantParts) && slices.Equal(t[len(t)-len(wantParts):], wantParts)
		})
		if idx < 0 {
			last := wantParts[len(wantParts)-1]
			idx = find(func(i int) bool { return matches(hs[i].Text, last) })
		}
	}
	if idx < 0 {
		return Section{}, hs, false
	}
	s := d.extent(hs, idx)
	if byTrail && hs[idx].Level <= ChunkLevel {
		for _, c := range d.chunksWith(trails) {
			if c.Heading == idx {
				s.StartLine, s.EndLine = min(s.StartLine, c.StartLine), max(s.EndLine, c.EndLine)
			}
		}
	}
	return s, hs, true
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
