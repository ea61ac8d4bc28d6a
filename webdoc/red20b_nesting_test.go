package webdoc

import (
	"net/url"
	"strings"
	"testing"
)

// red20b finding 3: html.Parse lets elements nest 512 deep, and the
// converter prefixes every line of a nested blockquote or list once per
// level and re-reads the content below at each level: a 13 KB page of
// blockquotes 500 deep cost 0.7–1.3 s of CPU, 900 MB of allocations and
// became 500 KB of markdown; a 10 MB page of them, over ten minutes of CPU and
// some 400 MB written into the package. The test bounds what one such
// page may cost and how much it may grow.
func TestRed20bNestedQuotesBounded(t *testing.T) {
	u, _ := url.Parse("https://docs.example.com/page.html")
	nest := func(open, close string, d int) string {
		return strings.Repeat(open, d) + "deepest" + strings.Repeat(close, d)
	}
	for _, tc := range []struct{ name, page string }{
		{"blockquotes", nest("<blockquote>q", "</blockquote>", 500)},
		{"lists", nest("<ul><li>i", "</li></ul>", 250)},
		{"ordered lists", nest("<ol><li>i", "</li></ol>", 250)},
		{"mixed", nest("<blockquote><ul><li>m", "</li></ul></blockquote>", 160)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, got := convertCost(t, u, tc.page)
			if got > 64<<20 {
				t.Errorf("converting a %d-byte page allocated %d MB (want under 64 MB)", len(tc.page), got>>20)
			}
			if len(md) > 8*len(tc.page)+4096 {
				t.Errorf("a %d-byte page became %d bytes of markdown (want at most 8 times as much)", len(tc.page), len(md))
			}
			if !strings.Contains(string(md), "deepest") {
				t.Errorf("the innermost text is gone")
			}
		})
	}
}

// An ordered list's start number indents every line of the list by its
// width: it is bounded too, as nesting is.
func TestRed20bListStartBounded(t *testing.T) {
	u, _ := url.Parse("https://docs.example.com/page.html")
	page := strings.Repeat(`<ol start="999999999999999999"><li>x`, 8) + strings.Repeat("<li>item</li>", 2000) + strings.Repeat("</li></ol>", 8)
	md, err := Convert(u, "text/html", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(md), "999999999999999999") {
		t.Errorf("the list's start is kept as sent")
	}
	if len(md) > 8*len(page) {
		t.Errorf("a %d-byte page became %d bytes of markdown", len(page), len(md))
	}
}

// Nesting within the bound is laid out as before.
func TestRed20bShallowNestingKept(t *testing.T) {
	u, _ := url.Parse("https://docs.example.com/page.html")
	md, err := Convert(u, "text/html", []byte(`<blockquote><p>quoted</p><ul><li>one<ul><li>two</li></ul></li></ul></blockquote><ol start="3"><li>three</li></ol>`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"> quoted", ">   - two", "3. three"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("no %q in:\n%s", want, md)
		}
	}
}
