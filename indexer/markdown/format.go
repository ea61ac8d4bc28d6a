package markdown

import (
	"path"
	"strings"
)

// Format is how a document is read, told by its file name (FormatOf). The
// zero value is not a document.
type Format string

// The formats ctx indexes and serves. Markdown has front matter and
// markdown headings; text has no structure; reStructuredText and AsciiDoc
// have their own section titles; the data formats (YAML, JSON, TOML) have
// one section per top-level key (see ParseFile).
const (
	FormatMarkdown Format = "markdown"
	FormatText     Format = "text"
	FormatRST      Format = "rst"
	FormatAsciiDoc Format = "asciidoc"
	FormatYAML     Format = "yaml"
	FormatJSON     Format = "json"
	FormatTOML     Format = "toml"
)

// extensions maps each document extension (lower case) to its format, in
// the order messages list them.
var extensions = []struct {
	ext    string
	format Format
}{
	{".md", FormatMarkdown},
	{".markdown", FormatMarkdown},
	{".mdx", FormatMarkdown},
	{".txt", FormatText},
	{".rst", FormatRST},
	{".adoc", FormatAsciiDoc},
	{".yaml", FormatYAML},
	{".yml", FormatYAML},
	{".json", FormatJSON},
	{".toml", FormatTOML},
}

// FormatOf returns the format of the file named p (a path or a base name)
// by its extension, in any case: .md, .markdown and .mdx are markdown, .txt
// text, .rst reStructuredText, .adoc AsciiDoc, .yaml and .yml YAML, .json
// JSON, .toml TOML. Any other name gives "" (not a document). Hidden
// elements are IsDocument's business, not FormatOf's.
func FormatOf(p string) Format {
	ext := strings.ToLower(path.Ext(p))
	for _, e := range extensions {
		if e.ext == ext {
			return e.format
		}
	}
	return ""
}

// Extensions returns the document extensions, lower case with their dot,
// in the order: markdown, text, reStructuredText, AsciiDoc, YAML, JSON,
// TOML.
func Extensions() []string {
	out := make([]string, len(extensions))
	for i, e := range extensions {
		out[i] = e.ext
	}
	return out
}

// ExtensionsOf returns the extensions of format f, lower case with their
// dot, in Extensions' order: of markdown, .md, .markdown and .mdx.
func ExtensionsOf(f Format) []string {
	var out []string
	for _, e := range extensions {
		if e.format == f {
			out = append(out, e.ext)
		}
	}
	return out
}

// ExtensionList is Extensions for a message: ".md, .markdown, …, .json
// and .toml".
func ExtensionList() string {
	exts := Extensions()
	return strings.Join(exts[:len(exts)-1], ", ") + " and " + exts[len(exts)-1]
}

// IsData reports whether f is a data format (YAML, JSON, TOML), whose
// sections are its top-level keys.
func (f Format) IsData() bool {
	return f == FormatYAML || f == FormatJSON || f == FormatTOML
}

// HasFrontMatter reports whether documents of format f can have front
// matter: only markdown. A YAML file that starts with "---" is YAML, not
// front matter.
func (f Format) HasFrontMatter() bool { return f == FormatMarkdown }

// MIMEType is the media type a document of format f is served with.
func (f Format) MIMEType() string {
	switch f {
	case FormatMarkdown:
		return "text/markdown"
	case FormatRST:
		return "text/x-rst"
	case FormatAsciiDoc:
		return "text/asciidoc"
	case FormatYAML:
		return "application/yaml"
	case FormatJSON:
		return "application/json"
	case FormatTOML:
		return "application/toml"
	}
	return "text/plain"
}

// IsMDX reports whether the file named p is MDX (.mdx, in any case): a
// markdown document whose tags are JSX (ParseFile).
func IsMDX(p string) bool { return strings.EqualFold(path.Ext(p), ".mdx") }

// ParseFile parses the document named name (its format is FormatOf(name);
// a name that is not a document's is read as text): its lines (Lines, the
// same for every format), and its structure by format:
//   - markdown: front matter and markdown headings (Parse); in MDX
//     (IsMDX) a heading's JSX tags are markup, not its text
//     ("## Methods <EnterpriseAlert inline />" is "Methods": dropJSXTags),
//     so its title, trail and Section agree;
//   - text: none;
//   - reStructuredText: section titles, underlined or over- and
//     underlined; each adornment style is a level, in the order they first
//     appear (as docutils decides);
//   - AsciiDoc: "= Title" (level 1), "== Section" (level 2) and so on to
//     six, outside delimited blocks and comments;
//   - YAML, JSON, TOML: one level-1 heading per top-level key (each
//     document's, for a YAML stream; each table header and each key
//     before the first table, for TOML), at the key's line. A file that
//     does not parse, or whose top level is not a mapping (a JSON array),
//     has no headings; Doc.Err says why when it does not parse.
//
// Outline and Section work the same for every format, so get_section
// finds an rst title or a YAML key as it finds a markdown heading.
func ParseFile(name string, content []byte) Doc {
	f := FormatOf(name)
	if f == "" {
		f = FormatText
	}
	if f == FormatMarkdown {
		d := Parse(content)
		if IsMDX(name) {
			for i, h := range d.Body.Headings {
				d.Body.Headings[i].Text = dropJSXTags(h.Text)
			}
		}
		return d
	}
	d := Doc{Format: f, Lines: Lines(content)}
	switch f {
	case FormatRST:
		d.rst, d.Body = readRST(d.Lines)
	case FormatAsciiDoc:
		d.Body = scanAsciiDoc(d.Lines)
	case FormatYAML, FormatJSON, FormatTOML:
		d.Body, d.Err = scanData(f, d.Lines)
	default:
		d.Body = scanText(d.Lines)
	}
	d.memo = newSectionMemo(d)
	return d
}

// scanText classifies lines as Blank or Text: a text file has no headings.
func scanText(lines []string) Body {
	b := Body{Kinds: make([]Kind, len(lines))}
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			b.Kinds[i] = Blank
		}
	}
	return b
}
