package indexer

import (
	"cmp"
	"path"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/lazyre"
)

// A Hugo site may keep a page's text apart from its page: the bundle's
// page (a branch bundle's _index.md, a leaf bundle's index.md) is a front
// matter, with the title, and one shortcode that includes a file of the
// folder ({{% content "README.md" %}}: VictoriaMetrics' docs, 33 such
// pages, set 20), and the included file has the text and no title (Hugo
// renders it only there). Read alone, that file was titled by its first
// heading: the single-node page "Prominent features", guides "Purpose",
// "Overview". A document with no front matter title (parseMarkdown's
// titleFallback) that its folder's bundle page includes whole takes that
// page's title (bundleOf is the one rule of which page that is, includeOf of what
// it includes); the bundle page is read as the document's side file, so a
// change to it reads the document again (fileStat.bundle), as a README's
// kep.yaml is.

// bundlePages are the names of a bundle's own page, in the order they
// are looked for.
var bundlePages = [...]string{"_index.md", "index.md"}

// maxBundleSize bounds a bundle page read as a side file: an include page
// is a front matter and one line. A larger bundle page is a page of its
// own, titles no sibling, and is not read with them.
const maxBundleSize = 4 << 10

// bundleOf is the one rule of which bundle page may title a document: for
// the i-th of n documents sorted by path (rel(i)), when it is markdown,
// the stamp and path of
// the first of bundlePages in its folder that is one of the documents
// (listed(k)'s, when listed has it), is not the document itself and is at
// most maxBundleSize, else nil, "". A bundle page is a document: one the
// walk does not list (hidden, ignored) is no page of the package, and
// nothing is stat'ed here (a stat of each name for every document was a
// cost of the freshness check, issue 31). The page read for the title is
// the one named here (readBundleTitle), not the first on disk.
func bundleOf(i, n int, rel func(int) string, listed func(k int) (*sideStamp, bool)) (*sideStamp, string) {
	r := rel(i)
	if !markdown.IsDocument(r) || markdown.FormatOf(r) != markdown.FormatMarkdown {
		return nil, "" // only a markdown page takes a title from it (titleFallback)
	}
	dir := path.Dir(r)
	for _, name := range bundlePages {
		if cmpInDir(r, dir, name) == 0 {
			return nil, "" // a bundle page is not titled by a sibling
		}
		// Looked for without making its path: the freshness check asks
		// for every document, and most folders have no bundle page.
		k := sort.Search(n, func(k int) bool { return cmpInDir(rel(k), dir, name) >= 0 })
		if k == n || cmpInDir(rel(k), dir, name) != 0 {
			continue
		}
		if s, _ := listed(k); s != nil {
			if s.Size > maxBundleSize {
				return nil, ""
			}
			return s, rel(k)
		}
	}
	return nil, ""
}

// cmpInDir compares s with path.Join(dir, name) (dir a folder as path.Dir
// gives it, name a file name), as strings.Compare would, without making
// the joined path.
func cmpInDir(s, dir, name string) int {
	if dir == "." {
		return strings.Compare(s, name)
	}
	if len(s) <= len(dir) {
		if c := strings.Compare(s, dir[:len(s)]); c != 0 {
			return c
		}
		return -1 // a prefix of dir + "/" + name
	}
	if c := strings.Compare(s[:len(dir)], dir); c != 0 {
		return c
	}
	if s[len(dir)] != '/' {
		return cmp.Compare(s[len(dir)], '/')
	}
	return strings.Compare(s[len(dir)+1:], name)
}

// includeRE matches a page body that is one include shortcode of a file
// (Hugo: {{% content "F" %}}, {{< include "F" >}}, {{< readfile file="F" >}}).
// The delimiters pair ({{< … >}} or {{% … %}}: Hugo reads no other), one
// group for the file of each.
var includeRE = lazyre.New(`^\{\{(?:<-?\s*(?:content|include|readfile|readFile)\s+(?:file\s*=\s*)?"([^"]+)"\s*-?>` +
	`|%-?\s*(?:content|include|readfile|readFile)\s+(?:file\s*=\s*)?"([^"]+)"\s*-?%)\}\}$`)

// includeOf reads a bundle page: when it is a front matter with a title
// (its title, else page_title) and a body of one include shortcode of a
// file in its folder or below, the title and that file's path relative to
// the page's folder; else "", "".
func includeOf(page []byte) (title, target string) {
	lines := markdown.Lines(page)
	block, err := markdown.FindFrontMatter(lines)
	if err != nil || block.Format == "" {
		return "", ""
	}
	fm, err := decodeFrontMatter(block)
	if err != nil {
		return "", ""
	}
	title = fm.Title
	if title == "" {
		title = fm.PageTitle
	}
	body := strings.TrimSpace(strings.Join(lines[block.End:], "\n"))
	m := includeRE().FindStringSubmatch(body)
	if title == "" || m == nil {
		return "", ""
	}
	target = path.Clean(m[1] + m[2]) // one of the two is empty
	if path.IsAbs(target) || target == ".." || strings.HasPrefix(target, "../") {
		return "", ""
	}
	return markdown.Clip(title, markdown.MaxHeadingBytes), target
}

// bundleTitle is the title the bundle page (its content) gives the
// document rel beside it, "" when it gives none.
func bundleTitle(rel string, page []byte) string {
	title, target := includeOf(page)
	if title == "" || path.Join(path.Dir(rel), target) != rel {
		return ""
	}
	return title
}

// bundleStamps gives each document of files (sorted by rel) the stamp of
// its bundle page (bundleOf) among files.
func bundleStamps(files []fileStat) {
	rel := func(k int) string { return files[k].rel }
	listed := func(k int) (*sideStamp, bool) {
		return &sideStamp{Size: files[k].size, ModNS: files[k].modNS, CNS: files[k].cns, Ino: files[k].ino}, true
	}
	for i := range files {
		files[i].bundle, files[i].bundlePage = bundleOf(i, len(files), rel, listed)
	}
}

// readBundleTitle reads the bundle page of the document rel (page,
// bundleOf's: a document of the package, at abs) and returns the title it
// gives rel (bundleTitle), "" when none: a page that cannot be read or is
// over maxBundleSize titles nothing (it is indexed, and any fault
// reported, as a document of its own).
func readBundleTitle(rel, page, abs string) string {
	if page == "" || path.Dir(page) != path.Dir(rel) || page == rel {
		return ""
	}
	b, err := readSide(abs, maxBundleSize)
	if err != nil {
		return ""
	}
	return bundleTitle(rel, b)
}
