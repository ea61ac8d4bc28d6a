package indexer

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

// Lines, front matter, headings and line kinds come from the document
// model (package indexer/markdown), which the MCP server shares: a chunk's
// line numbers are the lines get_document serves.

var tagLineRE = regexp.MustCompile(`(?i)^\s*[*_]{0,2}tags[*_]{0,2}\s*:\s*[*_]{0,2}(.+)$`)

// chunk is one searchable piece of a document.
type chunk struct {
	Trail      []string // heading trail, outermost first
	Start, End int      // 1-based file lines, inclusive
	Text       string   // the lines Start..End
	// headsInText is how many of the trail's last headings are lines of
	// Text (0 for the continuation of a split section).
	headsInText int
}

// Chunking limits. A section longer than maxChunkBytes is split at
// paragraph boundaries (blank lines outside code), then at line
// boundaries; a single line longer than the cap is a chunk of its own,
// which boundChunks cuts within the line.
const maxChunkBytes = 4000

// minSectionBytes: a section with less prose and code than this (headings
// and HTML comments do not count) joins the next section, or the previous
// chunk when it is the last, so that near-empty sections (a KEP template's
// unfilled headings, "# Title" right before "## Summary") do not become
// chunks of their own that BM25's length normalisation would rank first.
const minSectionBytes = 40

// chunkLines cuts body lines (0-based offset base into the file) into chunks
// that follow H1–H3 headings. A section that holds nothing but its heading
// joins the next one (so "# Title" right before "## Summary" is not a
// chunk of its own). Every non-blank line ends up in exactly one chunk.
func chunkLines(lines []string, s markdown.Body, base int) []chunk {
	var out []chunk
	type level struct {
		n, line int
		text    string
	}
	var trail, secTrail []level // the current trail; the trail where the pending section starts
	secStart := 0
	// cum[i] is contentBytes of lines[:i]: a run of near-empty sections
	// (a file of headings only) is measured in constant time per heading.
	cum := make([]int, len(lines)+1)
	for i := range lines {
		cum[i+1] = cum[i] + contentBytes(lines, s.Kinds, i, i+1)
	}
	flush := func(end int) {
		t := make([]string, len(secTrail))
		in := 0
		for i, e := range secTrail {
			t[i] = e.text
			if e.line >= secStart {
				in++
			}
		}
		out = appendSection(out, lines, s.Kinds, secStart, end, t, in, base)
	}
	for _, h := range s.Headings {
		if h.Level > 3 {
			continue
		}
		content := cum[h.Line] - cum[secStart]
		if content >= minSectionBytes {
			flush(h.Line)
			secStart = h.Line
		}
		for len(trail) > 0 && trail[len(trail)-1].n >= h.Level {
			trail = trail[:len(trail)-1]
		}
		trail = append(trail, level{h.Level, h.Line, markdown.Plain(h.Text)})
		// A near-empty section joins this one, and the chunk is named for
		// this heading: the text under it is what the chunk is about
		// ("# Setup / one line / ## Install / the steps" is "Setup > Install").
		secTrail = slices.Clone(trail)
	}
	// A small last section joins the chunk before it when that one has room.
	if n := len(out); n > 0 && cum[len(lines)]-cum[secStart] < minSectionBytes {
		prev := &out[n-1]
		a := prev.Start - base - 1
		end := len(lines)
		for end > a && strings.TrimSpace(lines[end-1]) == "" {
			end--
		}
		size := 0
		for i := a; i < end; i++ {
			size += len(lines[i]) + 1
		}
		if prev.End-base == secStart-countBlankBefore(lines, secStart) && size <= maxChunkBytes && end > secStart {
			prev.End = base + end
			prev.Text = strings.Join(lines[a:end], "\n")
			return out
		}
	}
	flush(len(lines))
	return out
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
func contentBytes(lines []string, kinds []markdown.Kind, a, b int) int {
	n := 0
	for i := a; i < b; i++ {
		if kinds[i] == markdown.Text || kinds[i] == markdown.Code {
			n += len(strings.TrimSpace(lines[i]))
		}
	}
	return n
}

// appendSection adds the chunks of lines[start:end].
func appendSection(out []chunk, lines []string, kinds []markdown.Kind, start, end int, trail []string, in int, base int) []chunk {
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
	if size <= maxChunkBytes {
		return append(out, chunk{Trail: trail, Start: base + start + 1, End: base + end, Text: strings.Join(lines[start:end], "\n"), headsInText: in})
	}
	// Split into paragraphs: runs separated by blank lines outside code.
	type span struct{ a, b, size int }
	var paras []span
	a := start
	for i := start; i <= end; i++ {
		if i == end || kinds[i] == markdown.Blank {
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
		if p.size <= maxChunkBytes {
			pieces = append(pieces, p)
			continue
		}
		ps := p.a
		sz := 0
		for j := p.a; j < p.b; j++ {
			l := len(lines[j]) + 1
			if sz > 0 && sz+l > maxChunkBytes {
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
		c := chunk{Trail: trail, Start: base + a + 1, End: base + b, Text: strings.Join(lines[a:b], "\n")}
		if first {
			c.headsInText = in
		}
		out = append(out, c)
		first = false
	}
	// Aim at equal parts: a 4,100-byte section becomes two chunks of about
	// 2,050 bytes, not one of 4,000 and a 100-byte tail that BM25's length
	// normalisation would rank above everything else.
	parts := (joined(start, end) + maxChunkBytes - 1) / maxChunkBytes
	target := joined(start, end) / max(parts, 1)
	for _, p := range pieces {
		if p.a > cs && (joined(cs, p.b) > maxChunkBytes || joined(cs, last) >= target) {
			emit(cs, last)
			cs = p.a
		}
		last = p.b
	}
	emit(cs, last)
	return out
}

var quoteRE = regexp.MustCompile(`^ {0,3}>\s?`)

// firstParagraph returns the first paragraph of prose: block quotes are
// unwrapped, list items kept; headings, code, HTML, tables, images and tag
// lines are skipped.
func firstParagraph(lines []string, s markdown.Body) string {
	var para []string
	for i, l := range lines {
		k := s.Kinds[i]
		if k != markdown.Text {
			if len(para) > 0 && (k == markdown.Blank || k == markdown.HeadingLine || k == markdown.Code) {
				break
			}
			continue
		}
		t := strings.TrimSpace(quoteRE.ReplaceAllString(l, ""))
		if t == "" {
			if len(para) > 0 {
				break
			}
			continue
		}
		if strings.HasPrefix(t, "<") || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "![") ||
			strings.HasPrefix(t, "[![") || tagLineRE.MatchString(t) || isRule(t) || isLinkDef(t) ||
			linkItemRE.MatchString(t) || checkItemRE.MatchString(t) {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, t)
		if len(para) >= 20 {
			break
		}
	}
	return markdown.Plain(strings.Join(para, " "))
}

var (
	linkDefRE   = regexp.MustCompile(`^\[[^\]]+\]:\s`)
	linkItemRE  = regexp.MustCompile(`^(?:(?:[-*+]|\d+[.)])\s+)?\[[^\]]*\]\([^)]*\)\s*$`) // a table-of-contents or navigation entry
	checkItemRE = regexp.MustCompile(`^(?:[-*+]|\d+[.)])\s+\[[ xX]\]\s`)                  // a checklist item
	summaryHdRE = regexp.MustCompile(`(?i)^(summary|overview|abstract|tl;?dr)$`)
)

// sectionSummary returns the first paragraph of a section headed
// "Summary", "Overview", "Abstract" or "TL;DR", when the document has one
// (design documents and KEPs put a title, a table of contents and
// checklists before it).
func sectionSummary(lines []string, s markdown.Body) string {
	for i, h := range s.Headings {
		if h.Level > 3 || !summaryHdRE.MatchString(strings.TrimSpace(markdown.Plain(h.Text))) {
			continue
		}
		end := len(lines)
		for _, n := range s.Headings[i+1:] {
			if n.Level <= 3 {
				end = n.Line
				break
			}
		}
		from := h.Line + 1
		for from < end && s.Kinds[from] == markdown.HeadingCont {
			from++
		}
		if from >= end {
			return ""
		}
		return firstParagraph(lines[from:end], markdown.Body{Kinds: s.Kinds[from:end]})
	}
	return ""
}

func isLinkDef(t string) bool { return linkDefRE.MatchString(t) }

func isRule(t string) bool {
	t = strings.ReplaceAll(t, " ", "")
	if len(t) < 3 {
		return false
	}
	return strings.Trim(t, "-") == "" || strings.Trim(t, "*") == "" || strings.Trim(t, "_") == ""
}

// inlineTags finds a "Tags: a, b" line outside code.
func inlineTags(lines []string, s markdown.Body) []string {
	for i, l := range lines {
		if s.Kinds[i] != markdown.Text {
			continue
		}
		if m := tagLineRE.FindStringSubmatch(l); m != nil {
			return cleanTags(strings.Split(strings.Trim(m[1], "*_ "), ","))
		}
	}
	return nil
}

// parsed is everything ctx learns from one document.
type parsed struct {
	Title   string
	Summary string
	Tags    []string
	Type    string
	Lines   int
	Chunks  []chunk
	Meta    map[string]any // normalised front matter (normalizeMeta)
	Links   []rawLink      // front matter links, then body links in line order

	summaryFromFM bool
	// keyTitle: the title is a data file's key value (dataTitle), which
	// its key's chunk holds; it is not put in front of every chunk as a
	// document's title is.
	keyTitle bool
}

// parseMarkdown parses one markdown document (parseDocument parses any
// format). name is used for the fallback title and in warnings; warn may
// be nil.
func parseMarkdown(name string, content []byte, warn func(string)) parsed {
	d := markdown.Parse(content)
	lines := d.Lines
	p := parsed{Lines: len(lines)}
	var fm frontMatter
	block, err := d.FrontMatter, d.FrontMatterErr
	if err != nil {
		if warn != nil {
			warn(name + ":" + strings.TrimPrefix(err.Error(), "line ") + "; front matter ignored, body indexed")
		}
	} else if block.Format != "" {
		fm, err = decodeFrontMatter(block)
		if err != nil && warn != nil {
			warn(name + ":" + strings.TrimPrefix(err.Error(), "line ") + "; front matter ignored, body indexed")
		}
	}
	body := lines[block.End:]
	s := d.Body
	p.Title = fm.Title
	if p.Title == "" {
		for _, h := range s.Headings {
			if h.Level == 1 {
				p.Title = markdown.Plain(h.Text)
				break
			}
		}
	}
	if p.Title == "" {
		base := path.Base(name)
		p.Title = strings.TrimSuffix(base, path.Ext(base))
	}
	p.Summary = fm.Summary
	p.summaryFromFM = p.Summary != ""
	if p.Summary == "" {
		p.Summary = sectionSummary(body, s)
	}
	if p.Summary == "" {
		p.Summary = firstParagraph(body, s)
	}
	p.Summary = clip(p.Summary, 300)
	p.Tags = fm.Tags
	if len(p.Tags) == 0 {
		p.Tags = inlineTags(body, s)
	}
	p.Type = fm.Type
	p.Chunks = boundChunks(chunkLines(body, s, block.End))
	p.Meta = normalizeMeta(fm.Fields)
	for _, l := range frontMatterLinks(fm.Fields, block.First+1) {
		l.Line = keyLine(lines, block, l.Type)
		p.Links = append(p.Links, l)
	}
	p.Links = append(p.Links, extractLinks(lines, s, block.End)...)
	if len(p.Links) > maxLinksPerDoc {
		p.Links = p.Links[:maxLinksPerDoc]
	}
	return p
}

// keyLine returns the 1-based line of key in the front matter block (the
// block's first line when it cannot be told).
func keyLine(lines []string, block markdown.FrontMatter, key string) int {
	for i := block.First; i < block.End && i < len(lines); i++ {
		t := strings.TrimLeft(lines[i], " \t\"'")
		if strings.HasPrefix(t, key) {
			rest := strings.TrimLeft(t[len(key):], " \t\"'")
			if strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "=") {
				return i + 1
			}
		}
	}
	return block.First + 1
}

// clip shortens s to at most n bytes at a word boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
		for cut > 0 && !runeStart(s[cut]) {
			cut--
		}
	}
	return strings.TrimRight(s[:cut], " ,;:") + "…"
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }

// firstSentence returns the first sentence of s (at most 160 bytes).
func firstSentence(s string) string {
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case '.', '!', '?':
			if s[i+1] == ' ' && i > 10 {
				return clip(s[:i+1], 160)
			}
		}
	}
	return clip(s, 160)
}
