package indexer

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// The markdown scanner is line based on purpose: ctx needs exact line
// numbers for every heading and chunk, and a full CommonMark parse of 6,000
// files costs more than the whole index build may take. It follows
// CommonMark where it matters for structure: ATX headings (at most three
// spaces of indent, "#" followed by a space or the end of the line, closing
// #s removed), setext headings (a paragraph underlined with = or -),
// fenced code (``` and ~~~, closed by the same character at least as
// long) and HTML comment blocks; headings inside fences and comments are
// text.

var (
	atxRE     = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)
	atxEndRE  = regexp.MustCompile(`(?:^|[ \t]+)#+$`)
	fenceRE   = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")
	setextRE  = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	listRE    = regexp.MustCompile(`^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)`)
	tagLineRE = regexp.MustCompile(`(?i)^\s*[*_]{0,2}tags[*_]{0,2}\s*:\s*[*_]{0,2}(.+)$`)
)

// lineKind classifies one body line.
type lineKind uint8

const (
	kText      lineKind = iota
	kBlank              // only white space (outside code)
	kCode               // inside a fenced code block, or its fence lines
	kComment            // inside an HTML comment block
	kHeading            // an ATX heading, or the first text line of a setext heading
	kHeadingCt          // further lines of a setext heading, and its underline
)

// scanned is the structure of a document body.
type scanned struct {
	kinds    []lineKind
	headings []Heading // Line is 0-based into the body lines here
}

// scan classifies lines. Only the structure is computed; no text is copied.
func scan(lines []string) scanned {
	s := scanned{kinds: make([]lineKind, len(lines))}
	var fenceChar byte
	fenceLen := 0
	inComment := false
	paraStart := -1 // first line of the current paragraph that may become a setext heading
	for i, l := range lines {
		if fenceLen > 0 {
			s.kinds[i] = kCode
			t := strings.TrimLeft(l, " ")
			if len(l)-len(t) <= 3 {
				n := 0
				for n < len(t) && t[n] == fenceChar {
					n++
				}
				if n >= fenceLen && strings.TrimSpace(t[n:]) == "" {
					fenceLen = 0
				}
			}
			continue
		}
		if inComment {
			s.kinds[i] = kComment
			if strings.Contains(l, "-->") {
				inComment = false
			}
			continue
		}
		if strings.TrimSpace(l) == "" {
			s.kinds[i] = kBlank
			paraStart = -1
			continue
		}
		if m := fenceRE.FindStringSubmatch(l); m != nil && (m[1][0] == '~' || !strings.Contains(m[2], "`")) {
			fenceChar, fenceLen = m[1][0], len(m[1])
			s.kinds[i] = kCode
			paraStart = -1
			continue
		}
		if t := strings.TrimLeft(l, " "); len(l)-len(t) <= 3 && strings.HasPrefix(t, "<!--") {
			s.kinds[i] = kComment
			if !strings.Contains(t[4:], "-->") {
				inComment = true
			}
			paraStart = -1
			continue
		}
		if m := atxRE.FindStringSubmatch(l); m != nil {
			text := atxEndRE.ReplaceAllString(m[2], "")
			s.kinds[i] = kHeading
			s.headings = append(s.headings, Heading{Level: len(m[1]), Text: strings.TrimSpace(text), Line: i})
			paraStart = -1
			continue
		}
		if paraStart >= 0 {
			if m := setextRE.FindStringSubmatch(l); m != nil {
				level := 1
				if m[1][0] == '-' {
					level = 2
				}
				parts := make([]string, 0, i-paraStart)
				for j := paraStart; j < i; j++ {
					parts = append(parts, strings.TrimSpace(lines[j]))
					s.kinds[j] = kHeadingCt
				}
				s.kinds[paraStart] = kHeading
				s.kinds[i] = kHeadingCt
				s.headings = append(s.headings, Heading{Level: level, Text: strings.Join(parts, " "), Line: paraStart})
				paraStart = -1
				continue
			}
		}
		s.kinds[i] = kText
		if paraStart < 0 && setextCandidate(l) {
			paraStart = i
		}
	}
	return s
}

// setextCandidate reports whether l can start a paragraph (and so a setext
// heading): not a list item, quote, table row, HTML or indented code.
func setextCandidate(l string) bool {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) >= 4 || strings.HasPrefix(l, "\t") {
		return false
	}
	if listRE.MatchString(l) {
		return false
	}
	switch t[0] {
	case '>', '|', '<':
		return false
	}
	return true
}

// bodyStart returns the lines of content and the index of the first body
// line (after front matter). A broken front matter block is treated as body.
func bodyStart(lines []string) int {
	b, err := findFrontMatter(lines)
	if err != nil {
		return 0
	}
	return b.end
}

// Outline returns the headings of a markdown document in order. Front matter
// is skipped. Used to cut sections (get_section).
func Outline(content []byte) []Heading {
	lines := splitLines(normalize(content))
	start := bodyStart(lines)
	s := scan(lines[start:])
	for i := range s.headings {
		s.headings[i].Line += start + 1
	}
	return s.headings
}

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
// boundaries; a single line longer than the cap stays whole.
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
func chunkLines(lines []string, s scanned, base int) []chunk {
	var out []chunk
	type level struct {
		n, line int
		text    string
	}
	var trail, secTrail []level // the current trail; the trail where the pending section starts
	secStart := 0
	flush := func(end int) {
		t := make([]string, len(secTrail))
		in := 0
		for i, e := range secTrail {
			t[i] = e.text
			if e.line >= secStart {
				in++
			}
		}
		out = appendSection(out, lines, s.kinds, secStart, end, t, in, base)
	}
	for _, h := range s.headings {
		if h.Level > 3 {
			continue
		}
		content := contentBytes(lines, s.kinds, secStart, h.Line)
		if content >= minSectionBytes {
			flush(h.Line)
			secStart = h.Line
		}
		for len(trail) > 0 && trail[len(trail)-1].n >= h.Level {
			trail = trail[:len(trail)-1]
		}
		trail = append(trail, level{h.Level, h.Line, cleanInline(h.Text)})
		// A near-empty section joins this one, and the chunk is named for
		// this heading: the text under it is what the chunk is about
		// ("# Setup / one line / ## Install / the steps" is "Setup > Install").
		secTrail = slices.Clone(trail)
	}
	// A small last section joins the chunk before it when that one has room.
	if n := len(out); n > 0 && contentBytes(lines, s.kinds, secStart, len(lines)) < minSectionBytes {
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
func contentBytes(lines []string, kinds []lineKind, a, b int) int {
	n := 0
	for i := a; i < b; i++ {
		if kinds[i] == kText || kinds[i] == kCode {
			n += len(strings.TrimSpace(lines[i]))
		}
	}
	return n
}

// appendSection adds the chunks of lines[start:end].
func appendSection(out []chunk, lines []string, kinds []lineKind, start, end int, trail []string, in int, base int) []chunk {
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
		if i == end || kinds[i] == kBlank {
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

var (
	linkRE  = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	emph    = strings.NewReplacer("**", "", "__", "") // as the regexp \*\*|__, without its scan of every position
	autoRE  = regexp.MustCompile(`<(https?://[^>]+)>`)
	tagsRE  = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
	quoteRE = regexp.MustCompile(`^ {0,3}>\s?`)
)

// cleanInline removes markdown markup that a reader of INDEX.md or a
// heading trail does not need: links keep their text, emphasis markers and
// HTML tags go.
//
// Each expression runs only when its first character is in s: Go's regexp
// tries every position of a string, and this runs on every summary and
// heading of every document.
func cleanInline(s string) string {
	if strings.IndexByte(s, '[') >= 0 {
		s = linkRE.ReplaceAllString(s, "$1")
	}
	if strings.IndexByte(s, '<') >= 0 {
		s = autoRE.ReplaceAllString(s, "$1")
		s = tagsRE.ReplaceAllString(s, "")
	}
	s = emph.Replace(s)
	return collapseSpace(s)
}

// firstParagraph returns the first paragraph of prose: block quotes are
// unwrapped, list items kept; headings, code, HTML, tables, images and tag
// lines are skipped.
func firstParagraph(lines []string, s scanned) string {
	var para []string
	for i, l := range lines {
		k := s.kinds[i]
		if k != kText {
			if len(para) > 0 && (k == kBlank || k == kHeading || k == kCode) {
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
	return cleanInline(strings.Join(para, " "))
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
func sectionSummary(lines []string, s scanned) string {
	for i, h := range s.headings {
		if h.Level > 3 || !summaryHdRE.MatchString(strings.TrimSpace(cleanInline(h.Text))) {
			continue
		}
		end := len(lines)
		for _, n := range s.headings[i+1:] {
			if n.Level <= 3 {
				end = n.Line
				break
			}
		}
		from := h.Line + 1
		for from < end && s.kinds[from] == kHeadingCt {
			from++
		}
		if from >= end {
			return ""
		}
		return firstParagraph(lines[from:end], scanned{kinds: s.kinds[from:end]})
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
func inlineTags(lines []string, s scanned) []string {
	for i, l := range lines {
		if s.kinds[i] != kText {
			continue
		}
		if m := tagLineRE.FindStringSubmatch(l); m != nil {
			return cleanTags(strings.Split(strings.Trim(m[1], "*_ "), ","))
		}
	}
	return nil
}

// parsed is everything ctx learns from one markdown file.
type parsed struct {
	Title   string
	Summary string
	Tags    []string
	Type    string
	Lines   int
	Chunks  []chunk

	summaryFromFM bool
}

// parseMarkdown parses one document. name is used for the fallback title
// and in warnings; warn may be nil.
func parseMarkdown(name string, content []byte, warn func(string)) parsed {
	lines := splitLines(normalize(content))
	p := parsed{Lines: len(lines)}
	var fm frontMatter
	block, err := findFrontMatter(lines)
	if err != nil {
		if warn != nil {
			warn(name + ":" + strings.TrimPrefix(err.Error(), "line ") + "; front matter ignored, body indexed")
		}
	} else if block.format != "" {
		fm, err = decodeFrontMatter(block)
		if err != nil && warn != nil {
			warn(name + ":" + strings.TrimPrefix(err.Error(), "line ") + "; front matter ignored, body indexed")
		}
	}
	body := lines[block.end:]
	s := scan(body)
	p.Title = fm.Title
	if p.Title == "" {
		for _, h := range s.headings {
			if h.Level == 1 {
				p.Title = cleanInline(h.Text)
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
	p.Chunks = chunkLines(body, s, block.end)
	return p
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
