// Package markdown is ctx's document model, shared by the indexer and the
// MCP server so that a line number means the same thing to both: a search
// hit's line range is the range get_document serves, and a hit's heading
// trail names the section get_section returns.
//
// It owns:
//   - line splitting and normalisation (Lines): a byte-order mark is
//     dropped, invalid UTF-8 becomes U+FFFD, CRLF and lone CR end lines;
//   - the structure of a document (Parse, Scan): front matter, fenced code,
//     HTML comments, ATX and setext headings, with their line numbers;
//   - the outline and finding a section by heading or heading trail
//     (Doc.Outline, Doc.Section), and the plain text of a heading (Plain);
//   - the chunks search indexes and their unique heading trails
//     (Doc.Chunks, Doc.Trails), so that a hit's trail opens a section
//     that holds the hit;
//   - which files are documents (IsDocument, IsBinary) and the one walk
//     over a package folder (Walk).
//
// Everything but Walk is pure: no I/O. Walk reads only the fs.FS it is
// given.
package markdown

// Heading is one markdown heading (ATX or setext; never inside a code fence
// or an HTML comment).
type Heading struct {
	Level int    // 1–6
	Text  string // without #s and trailing #s
	Line  int    // the heading's line (for setext, its first text line); see Scan and Doc.Outline for the base
}

// Doc is a document split into lines, with its structure.
type Doc struct {
	// Lines are the normalised lines of the document (see Lines). Line n
	// of the file, 1-based, is Lines[n-1].
	Lines []string
	// FrontMatter is the front matter block; its Format is "" when there
	// is none or it is broken.
	FrontMatter FrontMatter
	// FrontMatterErr says, with its line, why a block that looks like
	// front matter is not one (it is never closed); the whole document is
	// then body.
	FrontMatterErr error
	// Body is the structure of Lines[FrontMatter.End:], with line numbers
	// 0-based into that slice.
	Body Body
}

// Parse splits content into lines and finds its front matter and structure.
func Parse(content []byte) Doc {
	d := Doc{Lines: Lines(content)}
	d.FrontMatter, d.FrontMatterErr = FindFrontMatter(d.Lines)
	d.Body = Scan(d.Lines[d.FrontMatter.End:])
	return d
}

// Outline returns the headings of the document in order, with 1-based file
// line numbers. Front matter is skipped.
func (d Doc) Outline() []Heading {
	hs := make([]Heading, len(d.Body.Headings))
	for i, h := range d.Body.Headings {
		h.Line += d.FrontMatter.End + 1
		hs[i] = h
	}
	return hs
}

// Outline returns the headings of a markdown document in order, with
// 1-based line numbers (Parse(content).Outline()).
func Outline(content []byte) []Heading { return Parse(content).Outline() }
