// Package markdown is ctx's document model, shared by the indexer and the
// MCP server so that a line number means the same thing to both: a search
// hit's line range is the range get_document serves, and a hit's heading
// trail names the section get_section returns. Markdown is its first
// format; text, reStructuredText, AsciiDoc, YAML, JSON and TOML documents
// are read through the same model (Format, ParseFile).
//
// It owns:
//   - line splitting and normalisation (Lines): a byte-order mark is
//     dropped, invalid UTF-8 becomes U+FFFD, CRLF and lone CR end lines;
//   - the structure of a document (ParseFile by format; Parse and Scan for
//     markdown): front matter, fenced code, HTML comments, ATX and setext
//     headings, rst and AsciiDoc titles, the top-level keys of data files,
//     with their line numbers;
//   - the outline and finding a section by heading or heading trail
//     (Doc.Outline, Doc.Section), and the plain text of a heading (Plain);
//   - the chunks search indexes and their unique heading trails
//     (Doc.Chunks, Doc.Trails), so that a hit's trail opens a section
//     that holds the hit;
//   - a data file's values, decoded only as far as asked (Doc.Data);
//   - which files are documents and in which format (IsDocument,
//     FormatOf, IsBinary) and the one walk over a package folder (Walk).
//
// Everything but Walk is pure: no I/O. Walk reads only the fs.FS it is
// given.
package markdown

// Heading is one heading of a document: in markdown an ATX or setext
// heading (never inside a code fence or an HTML comment); an rst or
// AsciiDoc section title; a data file's top-level key (see ParseFile).
type Heading struct {
	Level int    // 1–6
	Text  string // without #s and trailing #s (markdown), ='s (AsciiDoc) or adornment (rst)
	Line  int    // the heading's line (for setext, its first text line; for an overlined rst title, the overline); see Scan and Doc.Outline for the base
}

// Doc is a document split into lines, with its structure. A Doc from
// Parse or ParseFile is read-only: its fields and their slices must not
// change (Section keeps what it derives from them, shared by the Doc's
// copies); parse again for other content.
type Doc struct {
	// Format is the document's format (ParseFile); Parse's is markdown.
	Format Format
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
	// Err says, with its 1-based line ("line 3: invalid YAML: …"), why a
	// data file's structure cannot be read: it does not parse. The
	// document is then text without headings.
	Err error
	// rst is each line as an rst reader sees it (readRST), for an rst
	// document; see RST.
	rst []RSTLine
	// memo holds what Section derives from the structure, built on first
	// use and shared by the Doc's copies (Parse and ParseFile make it; see
	// sectionMemo).
	memo *sectionMemo
}

// RST returns each line of an rst document as its reader sees it (the
// reader that also gave its outline: readRST); nil for other formats.
func (d Doc) RST() []RSTLine { return d.rst }

// Parse splits markdown content into lines and finds its front matter and
// structure. ParseFile parses a document of any format by its name.
func Parse(content []byte) Doc {
	d := Doc{Format: FormatMarkdown, Lines: Lines(content)}
	d.FrontMatter, d.FrontMatterErr = FindFrontMatter(d.Lines)
	d.Body = Scan(d.Lines[d.FrontMatter.End:])
	d.memo = newSectionMemo(d)
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
