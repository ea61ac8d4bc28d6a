package indexer

import (
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

// Documents other than markdown (markdown.FormatOf: text,
// reStructuredText, AsciiDoc, YAML, JSON, TOML) are indexed as text, in
// the chunks the document model cuts (markdown.Doc.Chunks: rst and
// AsciiDoc titles are headings; a data file's top-level keys are packed
// into chunks of about markdown.DataChunkBytes). A data file's title (its
// "title" key…) is not put in front of every chunk, as a document's title
// is, since only one key holds it: with a title in each of a kep.yaml's
// chunks, they outranked the KEP's README (docs/DESIGN.md, issue 14).
// Non-markdown documents have no front matter, links or metadata: a YAML
// file is not front matter, and a kep.yaml's fields stay its README's
// (meta.go).

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
		shown := d.Lines
		if d.Format == markdown.FormatRST {
			shown = rstShown(d.RST())
		}
		p.Summary = sectionSummary(shown, d.Body)
		if p.Summary == "" {
			p.Summary = firstParagraph(shown, d.Body)
		}
		p.Tags = inlineTags(d.Lines, d.Body)
	}
	if p.Title == "" {
		base := path.Base(name)
		p.Title = strings.TrimSuffix(base, path.Ext(base))
	}
	p.Summary = markdown.Clip(p.Summary, 300)
	if !d.Format.IsData() {
		p.Heads = headingTexts(d)
	}
	p.Chunks = boundChunks(chunksOf(d))
	markNav(p.Chunks, d.RST())
	switch d.Format {
	case markdown.FormatRST:
		setIndexed(p.Chunks, d.Lines, rstIndexed(d.RST(), d.Lines))
		p.Links, p.Labels = extractRSTLinks(d.RST())
	case markdown.FormatAsciiDoc:
		p.Links = extractAsciiDocLinks(d.Lines, d.Body)
	}
	return p
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

// boundChunks splits every chunk longer than markdown.MaxChunkBytes
// (markdown.Doc.Chunks keeps a line longer than the cap whole: a minified
// JSON file is one line) into pieces of about equal size, at most
// markdown.MaxChunkBytes each, cut
// after a space or a comma where there is one in the last quarter of a
// piece, else between characters. Every piece keeps the chunk's trail and
// the lines it spans; no text is dropped.
func boundChunks(cs []chunk) []chunk {
	over := false
	for _, c := range cs {
		if len(c.Text) > markdown.MaxChunkBytes {
			over = true
			break
		}
	}
	if !over {
		return cs
	}
	var out []chunk
	for _, c := range cs {
		if len(c.Text) <= markdown.MaxChunkBytes {
			out = append(out, c)
			continue
		}
		parts := (len(c.Text) + markdown.MaxChunkBytes - 1) / markdown.MaxChunkBytes
		target := (len(c.Text) + parts - 1) / parts
		text, line := c.Text, c.Start
		first := true
		for text != "" {
			n := len(text)
			if n > markdown.MaxChunkBytes {
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

// rstShown is each line of an rst document as its reader sees it
// (markdown.RSTLine.Shown: markup not shown is "", code as written).
func rstShown(rst []markdown.RSTLine) []string {
	out := make([]string, len(rst))
	for i, l := range rst {
		out[i] = l.Shown
	}
	return out
}

// rstIndexed is each line of an rst document as search indexes it: text,
// titles and code as the rst reader shows them (markdown.RSTLine.Shown:
// roles and hyperlink references as their text, code as written), and a
// markup line (a directive and its options, a comment, a target, a
// substitution definition, docinfo) as written, its inline markup
// reduced and its backslashes kept (markdown.RSTInlineWritten). Indexing
// markup lines as shown (""), which is what a reader sees, moved ranks
// both ways (10 queries better, 8 worse over nine sets, round 13:
// bench/relevance/round13-rstmarkup.patch); their inline markup reduced,
// 4 better and 2 worse.
//
// A markup line and the lines that continue its text block
// (markdown.RSTLine.Cont: a directive's head wrapped over lines) are
// reduced as one block, so a role that spans them is its text.
func rstIndexed(rst []markdown.RSTLine, lines []string) []string {
	out := make([]string, len(rst))
	for i := 0; i < len(rst); {
		out[i] = rst[i].Shown
		if rst[i].Kind != markdown.RSTMarkup {
			i++
			continue
		}
		j := i + 1
		for j < len(rst) && rst[j].Cont {
			out[j] = rst[j].Shown
			j++
		}
		w := strings.Split(markdown.RSTInlineWritten(strings.Join(lines[i:j], "\n")), "\n")
		for k := i; k < j && k-i < len(w); k++ {
			if rst[k].Kind == markdown.RSTMarkup {
				out[k] = w[k-i]
			}
		}
		i = j
	}
	return out
}

// setIndexed sets each chunk's indexed text to its lines as shown (one
// string per line of lines) when they differ from its text. A piece of a
// line that boundChunks cut keeps its text.
func setIndexed(cs []chunk, lines, shown []string) {
	for i, c := range cs {
		if c.Start < 1 || c.End > len(lines) || c.Start > c.End {
			continue
		}
		ls, ps := lines[c.Start-1:c.End], shown[c.Start-1:c.End]
		if slices.Equal(ls, ps) || len(c.Text) != len(strings.Join(ls, "\n")) {
			continue
		}
		cs[i].indexed, cs[i].masked = strings.Join(ps, "\n"), true
	}
}
