package indexer

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

// Documents other than markdown (markdown.FormatOf: text,
// reStructuredText, AsciiDoc, YAML, JSON, TOML) are indexed as text, with
// the structure the document model finds. Text, rst and AsciiDoc are
// chunked as markdown is (chunkLines: titles are headings). A data file's
// top-level keys are its sections (chunkData): a key of dataChunkBytes or
// more is a chunk (split at blank lines, then lines, then within a line
// when over maxChunkBytes), smaller keys are packed together; its title
// (a "title" key…) is not put in front of every chunk, as a document's
// title is, since only one key holds it. Packing and the title matter on
// the shared corpus, whose 1,119 YAML files are mostly kep.yaml (about
// 1 KB of short keys): one chunk per key (6,509 chunks, a title in each)
// took MRR from 0.833 to 0.818 and Recall@5 from 0.948 to 0.914, as those
// tiny chunks outranked the KEPs' READMEs (bench/README.md); packed to
// 1,000 bytes without the title, no query's rank changed. Non-markdown
// documents have no front matter, links or metadata: a YAML file is not
// front matter, and a kep.yaml's fields stay its README's (meta.go).

// parseDocument parses one document by its format (its name's extension).
// name is used for the fallback title and in warnings; warn may be nil.
func parseDocument(name string, content []byte, warn func(string)) parsed {
	if markdown.FormatOf(name) == markdown.FormatMarkdown {
		return parseMarkdown(name, content, warn)
	}
	d := markdown.ParseFile(name, content)
	p := parsed{Lines: len(d.Lines)}
	if d.Err != nil && warn != nil {
		warn(name + ":" + strings.TrimPrefix(d.Err.Error(), "line ") + "; indexed as text")
	}
	if d.Format.IsData() {
		p.Title, p.Summary = dataTitle(d)
		p.keyTitle = p.Title != ""
	} else {
		for _, h := range d.Body.Headings {
			p.Title = markdown.Plain(h.Text)
			break
		}
		p.Summary = sectionSummary(d.Lines, d.Body)
		if p.Summary == "" {
			p.Summary = firstParagraph(d.Lines, d.Body)
		}
		p.Tags = inlineTags(d.Lines, d.Body)
	}
	if p.Title == "" {
		base := path.Base(name)
		p.Title = strings.TrimSuffix(base, path.Ext(base))
	}
	p.Summary = clip(p.Summary, 300)
	if d.Format.IsData() && len(d.Body.Headings) > 0 {
		p.Chunks = boundChunks(chunkData(d.Lines, d.Body))
	} else {
		p.Chunks = boundChunks(chunkLines(d.Lines, d.Body, 0))
	}
	return p
}

// dataChunkBytes is the size up to which a data file's consecutive
// top-level keys share a chunk: a key of this size or more is a chunk of
// its own (split under maxChunkBytes when larger), and smaller ones are
// packed with the keys after them.
const dataChunkBytes = 1000

// chunkData cuts a data file into chunks by its top-level keys (s's
// headings): each key's lines run to the next key (lines before the first
// key belong to it); a key of dataChunkBytes or more is a group of its
// own, smaller keys are packed in order into a group until it holds
// dataChunkBytes (never over maxChunkBytes); a last group under half that
// joins the one before it. A group over maxChunkBytes is
// split as a long markdown section is (appendSection). A chunk's trail is
// its first key. Blank lines at the ends of a chunk are left out.
func chunkData(lines []string, s markdown.Body) []chunk {
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
		if i > g.a && (size(g.a, i) >= dataChunkBytes || size(i, i+1) >= dataChunkBytes || size(g.a, i+1) > maxChunkBytes) {
			groups = append(groups, g)
			g = group{i, i}
		}
		g.b = i + 1
	}
	if n := len(groups); n > 0 && size(g.a, g.b) < dataChunkBytes/2 {
		groups[n-1].b = g.b // appendSection splits the whole under the cap
	} else {
		groups = append(groups, g)
	}
	var out []chunk
	for _, g := range groups {
		out = appendSection(out, lines, s.Kinds, bounds[g.a], bounds[g.b], []string{hs[g.a].Text}, 1, 0)
	}
	return out
}

// dataTitle returns a data file's title and summary: the top-level
// "title", else "info.title" (OpenAPI), else "name" (package.json,
// Chart.yaml), when it is a string or a number; the summary is "summary",
// "description" or "info.description", else the list of the top-level
// keys. Either may be "".
func dataTitle(d markdown.Doc) (title, summary string) {
	data := d.Data()
	for _, p := range [][]string{{"title"}, {"info", "title"}, {"name"}} {
		if title = scalar(data.Value(p...)); title != "" {
			break
		}
	}
	for _, p := range [][]string{{"summary"}, {"description"}, {"info", "description"}} {
		if summary = scalar(data.Value(p...)); summary != "" {
			return title, summary
		}
	}
	if hs := d.Body.Headings; len(hs) > 0 {
		keys := make([]string, 0, min(len(hs), 40))
		for _, h := range hs[:min(len(hs), 40)] {
			keys = append(keys, h.Text)
		}
		summary = "Keys: " + strings.Join(keys, ", ")
	}
	return title, summary
}

// boundChunks splits every chunk longer than maxChunkBytes (chunkLines
// keeps a line longer than the cap whole: a minified JSON file is one
// line) into pieces of about equal size, at most maxChunkBytes each, cut
// after a space or a comma where there is one in the last quarter of a
// piece, else between characters. Every piece keeps the chunk's trail and
// the lines it spans; no text is dropped.
func boundChunks(cs []chunk) []chunk {
	over := false
	for _, c := range cs {
		if len(c.Text) > maxChunkBytes {
			over = true
			break
		}
	}
	if !over {
		return cs
	}
	var out []chunk
	for _, c := range cs {
		if len(c.Text) <= maxChunkBytes {
			out = append(out, c)
			continue
		}
		parts := (len(c.Text) + maxChunkBytes - 1) / maxChunkBytes
		target := (len(c.Text) + parts - 1) / parts
		text, line := c.Text, c.Start
		first := true
		for text != "" {
			n := len(text)
			if n > maxChunkBytes {
				n = cutAt(text, target)
			}
			// A cut after a line end ends the piece at that line.
			piece := chunk{Trail: c.Trail, Start: line, Text: strings.TrimSuffix(text[:n], "\n")}
			piece.End = line + strings.Count(piece.Text, "\n")
			if first {
				piece.headsInText = c.headsInText
				first = false
			}
			line += strings.Count(text[:n], "\n")
			out = append(out, piece)
			text = text[n:]
		}
	}
	return out
}

// cutAt returns where to end a piece of text that should be about target
// bytes: after the last space, comma or line end in its last quarter,
// else at the last character boundary at or before target.
func cutAt(text string, target int) int {
	for i := target; i > target*3/4; i-- {
		switch text[i-1] {
		case ' ', ',', '\n', '\t':
			return i
		}
	}
	i := target
	for i > 0 && !utf8.RuneStart(text[i]) {
		i--
	}
	if i == 0 {
		i = target // not UTF-8 (Lines made it valid, so never): cut anyway
	}
	return i
}
