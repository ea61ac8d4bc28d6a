package webdoc

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// What a page may ask of the HTML converter. html-to-markdown lays a
// table's spans out cell by cell, each an insert into its row, and reads
// colspan and rowspan with no upper bound (a 95-byte page with
// colspan="2000000000" ended ctx out of memory: red20b finding 2); it
// prefixes every line of a blockquote or list once per level and reads
// the content below again at each level (blockquotes 500 deep: 900 MB
// allocated for a 13 KB page, growing it 38 times: red20b finding 3).
// tame bounds both on the parsed page, before conversion:
const (
	// maxColSpan and maxRowSpan are HTML's own bounds (a browser clamps
	// colspan to 1,000 and rowspan to 65,534); a rowspan is also cut at
	// the table's rows, as a browser cuts it.
	maxColSpan = 1000
	maxRowSpan = 65534
	// maxSpanCost bounds, over a page, each table's cells added by spans
	// times its widest row: the converter's work to lay the spans out.
	// A table past what is left of it loses its spans (its cells are kept,
	// one each, in their rows). A 200-row table that spans two columns in
	// every row costs some 2,000.
	maxSpanCost = 4_000_000
	// maxNesting is how deep blockquotes and lists (together) are laid
	// out as such; deeper ones are kept as plain blocks (their text
	// stays, without a further prefix).
	maxNesting = 8
	// maxListStart bounds an ordered list's start number, whose width
	// every line of the list is indented by.
	maxListStart = 999_999
)

// tame bounds, in place, what the page doc asks of the converter (see
// above).
func tame(doc *html.Node) {
	budget := maxSpanCost
	var walk func(n *html.Node, nesting int)
	walk = func(n *html.Node, nesting int) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Table:
				tameSpans(n, &budget)
			case atom.Blockquote, atom.Ul, atom.Ol:
				nesting++
				if nesting > maxNesting {
					flatten(n)
				} else if n.DataAtom == atom.Ol {
					clampAttr(n, "start", -maxListStart, maxListStart)
				}
			}
		}
		// html.Parse keeps elements within 512 levels: the recursion is
		// bounded.
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, nesting)
		}
	}
	walk(doc, 0)
}

// flatten makes a blockquote or list a plain block, and a list's items
// plain blocks too.
func flatten(n *html.Node) {
	list := n.DataAtom == atom.Ul || n.DataAtom == atom.Ol
	rename(n)
	if !list {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Li {
			rename(c)
		}
	}
}

func rename(n *html.Node) {
	n.DataAtom, n.Data = atom.Div, "div"
}

// tameSpans clamps the spans of table's cells to HTML's bounds and to the
// table's rows, and drops them all when laying them out would cost more
// than what is left of budget. Cells and rows of a nested table are its
// own.
func tameSpans(table *html.Node, budget *int) {
	type cell struct {
		n          *html.Node
		row        int
		cols, rows int
	}
	var cells []cell
	rows := 0
	var collect func(n *html.Node)
	collect = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Table:
				continue // its own, when the walk reaches it
			case atom.Tr:
				rows++
			case atom.Td, atom.Th:
				cells = append(cells, cell{n: c, row: rows, cols: span(c, "colspan"), rows: span(c, "rowspan")})
			}
			collect(c)
		}
	}
	collect(table)
	added, width := 0, 0
	rowWidth := map[int]int{}
	for _, c := range cells {
		c.cols = min(c.cols, maxColSpan)
		c.rows = min(c.rows, maxRowSpan, max(rows-c.row+1, 1))
		added += c.cols*c.rows - 1
		rowWidth[c.row] += c.cols
		width = max(width, rowWidth[c.row])
	}
	if added == 0 {
		return
	}
	if cost := added * max(width, 1); added <= *budget && cost <= *budget {
		*budget -= cost
		for _, c := range cells {
			clampAttr(c.n, "colspan", 1, maxColSpan)
			clampAttr(c.n, "rowspan", 1, min(maxRowSpan, max(rows-c.row+1, 1)))
		}
		return
	}
	for _, c := range cells {
		removeAttr(c.n, "colspan")
		removeAttr(c.n, "rowspan")
	}
}

// span is a cell's colspan or rowspan as a whole number of at least 1 (a
// value that is none counts as 1, as html-to-markdown reads it), capped
// where a product of two cannot overflow.
func span(n *html.Node, key string) int {
	for _, a := range n.Attr {
		if a.Key == key {
			v, err := strconv.Atoi(strings.TrimSpace(a.Val))
			if err != nil || v < 1 {
				return 1
			}
			return min(v, 1<<20)
		}
	}
	return 1
}

// clampAttr rewrites n's whole-number attribute key into [lo, hi]; a value
// that is not a whole number is left alone (the converter ignores it).
func clampAttr(n *html.Node, key string, lo, hi int) {
	for i, a := range n.Attr {
		if a.Key != key {
			continue
		}
		v, err := strconv.Atoi(strings.TrimSpace(a.Val))
		if err != nil {
			continue
		}
		if c := min(max(v, lo), hi); c != v {
			n.Attr[i].Val = strconv.Itoa(c)
		}
	}
}

func removeAttr(n *html.Node, key string) {
	kept := n.Attr[:0]
	for _, a := range n.Attr {
		if a.Key != key {
			kept = append(kept, a)
		}
	}
	n.Attr = kept
}
