package markdown

import (
	"slices"
	"strconv"
	"strings"
)

// Chunking limits. Headings of level ChunkLevel or less cut a document
// into sections; a section longer than MaxChunkBytes is split at paragraph
// boundaries (blank lines outside code), then at line boundaries (a single
// line longer than the cap stays whole here; the indexer cuts its text). A section with less prose and
// code than MinSectionBytes (headings, HTML comments and blank lines do not
// count) joins the next one, or the chunk before it when it is the last,
// so that near-empty sections (a KEP template's unfilled headings, "#
// Title" right before "## Summary") do not become chunks of their own that
// BM25's length normalisation would rank first.
const (
	ChunkLevel      = 3
	MaxChunkBytes   = 4000
	MinSectionBytes = 40
)

// Chunk is a piece of a document that search indexes and cites: a line
// range and the heading trail that names it.
type Chunk struct {
	// Heading is the index in Doc.Outline of the heading the chunk is
	// named for, or -1 for text before the first heading.
	Heading int
	// Trail is that heading's trail (Doc.Trails), nil when Heading is -1.
	// Doc.Section(strings.Join(Trail, TrailSep)) returns a section that
	// holds the chunk's lines.
	Trail []string
	// StartLine and EndLine are 1-based file lines, inclusive; the chunk
	// neither starts nor ends with a blank line.
	StartLine, EndLine int
	// HeadsInText is how many of the trail's last headings are lines of
	// the chunk (0 for the continuation of a split section).
	HeadsInText int
}

// Trails returns the heading trail of each heading of Outline, in order:
// the Plain texts of the heading and of the headings that enclose it,
// outermost first, each clipped to MaxHeadingBytes. A trail is unique in its document, as Doc.Section
// compares trails (case, emphasis and spacing aside, split at ">"): when an
// earlier heading has the same trail, " (2)", " (3)", … is added to the
// last text, the first number that makes it unique. Doc.Section finds each
// heading by its trail joined with TrailSep.
func (d Doc) Trails() [][]string {
	trails, _ := d.trails()
	return trails
}

// trails returns Trails and the normalised key of each (trailKey).
func (d Doc) trails() ([][]string, [][]string) {
	hs := d.Body.Headings
	trails := make([][]string, len(hs))
	keys := make([][]string, len(hs))
	seen := map[string]bool{}
	next := map[string]int{} // per taken trail, the number its next duplicate tries first
	var stack []int          // the enclosing headings of the current one, outermost first
	for i, h := range hs {
		for len(stack) > 0 && hs[stack[len(stack)-1]].Level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		t := make([]string, 0, len(stack)+1)
		for _, j := range stack {
			t = append(t, trails[j][len(trails[j])-1]) // an ancestor's own text, numbered if it had to be
		}
		own := Clip(Plain(h.Text), MaxHeadingBytes)
		t = append(t, own)
		// t without its last text is the enclosing heading's trail, so
		// its key is that heading's key and the last text's (trailKey
		// keys each text alone): the ancestors are not keyed again.
		var parent []string
		if len(stack) > 0 {
			parent = slices.Clip(keys[stack[len(stack)-1]])
		}
		keyOf := func(last string) []string { return append(parent, trailKey([]string{last})...) }
		k := keyOf(own)
		if base := strings.Join(k, "\x00"); seen[base] {
			// Numbers below next[base] are taken: a file of 100,000 equal
			// headings (a TOML array of tables) is not quadratic.
			n := max(next[base], 2)
			for ; ; n++ {
				t[len(t)-1] = own + " (" + strconv.Itoa(n) + ")"
				if k = keyOf(t[len(t)-1]); !seen[strings.Join(k, "\x00")] {
					break
				}
			}
			next[base] = n + 1
		}
		seen[strings.Join(k, "\x00")] = true
		trails[i], keys[i] = t, k
		stack = append(stack, i)
	}
	return trails, keys
}

// Chunks cuts the document body into chunks: one per section of a heading
// of level ChunkLevel or less (deeper headings stay inside), the text
// before the first heading its own, near-empty sections joined as the
// limits above say, long ones split. A data file's sections are its
// top-level keys, packed instead (chunkData): a key of DataChunkBytes or
// more is a chunk of its own, smaller ones share one. Every non-blank body
// line is in exactly one chunk, and the chunks are in line order.
func (d Doc) Chunks() []Chunk {
	return d.chunksWith(d.Trails())
}

// chunksWith is Chunks with the document's Trails already made (Section
// has them).
func (d Doc) chunksWith(trails [][]string) []Chunk {
	if d.Format.IsData() && len(d.Body.Headings) > 0 {
		return chunkData(d.Lines, d.Body, trails)
	}
	return chunkBody(d.Lines[d.FrontMatter.End:], d.Body, d.FrontMatter.End, trails)
}

// DataChunkBytes is the size up to which a data file's consecutive
// top-level keys share a chunk. A kep.yaml is about 1 KB of one-line
// keys: a chunk per key (6,509 on the shared corpus, whose 1,119 YAML
// files are mostly kep.yaml) outranked the KEPs' READMEs in search
// (bench/relevance MRR 0.833 to 0.818); packed to 1,000 bytes, no query's
// rank changed (docs/DESIGN.md, issue 14).
const DataChunkBytes = 1000

// chunkData cuts a data file into chunks by its top-level keys (s's
// headings): each key's lines run to the next key (lines before the first
// key belong to it); a key of DataChunkBytes or more is a group of its
// own, smaller keys are packed in order into a group until it holds
// DataChunkBytes (never over MaxChunkBytes); a last group under half that
// joins the one before it. A group over MaxChunkBytes is split as a long
// section is (appendChunks). A chunk is named for its first key.
func chunkData(lines []string, s Body, trails [][]string) []Chunk {
	hs := s.Headings
	bounds := make([]int, len(hs)+1) // key i's lines are [bounds[i], bounds[i+1])
	for i, h := range hs[1:] {
		bounds[i+1] = h.Line
	}
	bounds[len(hs)] = len(lines)
	off := make([]int, len(lines)+1) // off[i]: bytes of lines[:i] with their line ends
	for i, l := range lines {
		off[i+1] = off[i] + len(l) + 1
	}
	size := func(a, b int) int { return off[bounds[b]] - off[bounds[a]] } // bytes of keys a..b-1
	type group struct{ a, b int }
	var groups []group
	g := group{0, 0}
	for i := range hs {
		if i > g.a && (size(g.a, i) >= DataChunkBytes || size(i, i+1) >= DataChunkBytes || size(g.a, i+1) > MaxChunkBytes) {
			groups = append(groups, g)
			g = group{i, i}
		}
		g.b = i + 1
	}
	if n := len(groups); n > 0 && size(g.a, g.b) < DataChunkBytes/2 {
		groups[n-1].b = g.b // appendChunks splits the whole under the cap
	} else {
		groups = append(groups, g)
	}
	var out []Chunk
	for _, g := range groups {
		out = appendChunks(out, lines, s.Kinds, bounds[g.a], bounds[g.b], g.a, trails[g.a], 1, 0)
	}
	return out
}

// chunkBody chunks body lines (0-based offset base into the file), whose
// headings have the given trails.
func chunkBody(lines []string, s Body, base int, trails [][]string) []Chunk {
	var out []Chunk
	secStart := 0        // first line of the pending section
	secHead := -1        // the heading the pending section is named for
	var trailLines []int // the lines of the current trail's headings (levels 1–ChunkLevel)
	var trailLevels []int
	var secLines []int // trailLines when the pending section was named
	// cum[i] is contentBytes of lines[:i]: a run of near-empty sections (a
	// file of headings only) is measured in constant time per heading, not
	// from its start again (2 MB of markdown headings took 79.5 s).
	cum := make([]int, len(lines)+1)
	for i := range lines {
		cum[i+1] = cum[i] + contentBytes(lines, s.Kinds, i, i+1)
	}
	flush := func(end int) {
		in := 0
		for _, l := range secLines {
			if l >= secStart {
				in++
			}
		}
		out = appendChunks(out, lines, s.Kinds, secStart, end, secHead, trailOf(trails, secHead), in, base)
	}
	for i, h := range s.Headings {
		if h.Level > ChunkLevel {
			continue
		}
		if cum[h.Line]-cum[secStart] >= MinSectionBytes {
			flush(h.Line)
			secStart = h.Line
		}
		for len(trailLevels) > 0 && trailLevels[len(trailLevels)-1] >= h.Level {
			trailLevels, trailLines = trailLevels[:len(trailLevels)-1], trailLines[:len(trailLines)-1]
		}
		trailLevels, trailLines = append(trailLevels, h.Level), append(trailLines, h.Line)
		// A near-empty section joins this one, and the chunk is named for
		// this heading: the text under it is what the chunk is about
		// ("# Setup / one line / ## Install / the steps" is "Setup > Install").
		secHead = i
		secLines = append(secLines[:0], trailLines...)
	}
	// A small last section joins the chunk before it when that one has room.
	if n := len(out); n > 0 && cum[len(lines)]-cum[secStart] < MinSectionBytes {
		prev := &out[n-1]
		a := prev.StartLine - base - 1
		end := len(lines)
		for end > a && strings.TrimSpace(lines[end-1]) == "" {
			end--
		}
		size := 0
		for i := a; i < end; i++ {
			size += len(lines[i]) + 1
		}
		if prev.EndLine-base == secStart-countBlankBefore(lines, secStart) && size <= MaxChunkBytes && end > secStart {
			prev.EndLine = base + end
			return out
		}
	}
	flush(len(lines))
	return out
}

func trailOf(trails [][]string, i int) []string {
	if i < 0 {
		return nil
	}
	return trails[i]
}

// headingsOnly reports whether lines[a:b] are heading and blank lines.
func headingsOnly(kinds []Kind, a, b int) bool {
	for _, k := range kinds[a:b] {
		if k != HeadingLine && k != HeadingCont && k != Blank {
			return false
		}
	}
	return true
}

// countBlankBefore counts the blank lines right before line i.
func countBlankBefore(lines []string, i int) int {
	n := 0
	for i-n-1 >= 0 && strings.TrimSpace(lines[i-n-1]) == "" {
		n++
	}
	return n
}

// contentBytes counts the bytes of prose and code in lines[a:b]: headings,
// HTML comments and blank lines do not count.
func contentBytes(lines []string, kinds []Kind, a, b int) int {
	n := 0
	for i := a; i < b; i++ {
		if kinds[i] == Text || kinds[i] == Code {
			n += len(strings.TrimSpace(lines[i]))
		}
	}
	return n
}

// appendChunks adds the chunks of lines[start:end], a section named for
// heading head.
func appendChunks(out []Chunk, lines []string, kinds []Kind, start, end, head int, trail []string, in int, base int) []Chunk {
	for start < end && strings.TrimSpace(lines[start]) == "" {
		start++
	}
	for end > start && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	if start >= end {
		return out
	}
	size := 0
	for i := start; i < end; i++ {
		size += len(lines[i]) + 1
	}
	if size <= MaxChunkBytes {
		return append(out, Chunk{Heading: head, Trail: trail, StartLine: base + start + 1, EndLine: base + end, HeadsInText: in})
	}
	// Split into paragraphs: runs separated by blank lines outside code.
	type span struct{ a, b, size int }
	var paras []span
	a := start
	for i := start; i <= end; i++ {
		if i == end || kinds[i] == Blank {
			if i < end && i > a && headingsOnly(kinds, a, i) {
				continue // a heading opens the paragraph after it, never ends a piece
			}
			if i > a {
				sz := 0
				for j := a; j < i; j++ {
					sz += len(lines[j]) + 1
				}
				paras = append(paras, span{a, i, sz})
			}
			a = i + 1
		}
	}
	// Paragraphs over the cap are split at line boundaries.
	var pieces []span
	for _, p := range paras {
		if p.size <= MaxChunkBytes {
			pieces = append(pieces, p)
			continue
		}
		ps := p.a
		sz := 0
		for j := p.a; j < p.b; j++ {
			l := len(lines[j]) + 1
			// A heading (with its blank lines) is not cut from the line
			// after it: a line over the cap after a sub-heading left the
			// heading a piece of its own, the end of a chunk (review of
			// aeca32b).
			if sz > 0 && sz+l > MaxChunkBytes && !headingsOnly(kinds, ps, j) {
				pieces = append(pieces, span{ps, j, sz})
				ps, sz = j, 0
			}
			sz += l
		}
		pieces = append(pieces, span{ps, p.b, sz})
	}
	// Greedily pack pieces into chunks under the cap; off gives the byte
	// length of lines joined with their newlines, blank lines included.
	off := make([]int, end-start+1)
	for j := start; j < end; j++ {
		off[j-start+1] = off[j-start] + len(lines[j]) + 1
	}
	joined := func(a, b int) int { return off[b-start] - off[a-start] - 1 }
	cs := pieces[0].a
	last := pieces[0].a
	first := true
	emit := func(a, b int) {
		for b > a && strings.TrimSpace(lines[b-1]) == "" {
			b--
		}
		c := Chunk{Heading: head, Trail: trail, StartLine: base + a + 1, EndLine: base + b}
		if first {
			c.HeadsInText = in
		}
		out = append(out, c)
		first = false
	}
	// Aim at equal parts: a 4,100-byte section becomes two chunks of about
	// 2,050 bytes, not one of 4,000 and a 100-byte tail that BM25's length
	// normalisation would rank above everything else.
	parts := (joined(start, end) + MaxChunkBytes - 1) / MaxChunkBytes
	target := joined(start, end) / max(parts, 1)
	for _, p := range pieces {
		if p.a > cs && (joined(cs, p.b) > MaxChunkBytes || joined(cs, last) >= target) {
			emit(cs, last)
			cs = p.a
		}
		last = p.b
	}
	emit(cs, last)
	return out
}
