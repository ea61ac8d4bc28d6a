package webdoc

import (
	"net/url"
	"runtime"
	"strings"
	"testing"
)

// red20b finding 2: html-to-markdown's table plugin reads colspan and
// rowspan with no upper bound and builds the spanned grid cell by cell, so
// a 60-byte page <td colspan="2000000000"> asked for tens of gigabytes and
// ended ctx with "fatal error: out of memory" (an https source, or any page
// an llms.txt lists). Here the spans are a million, which costs hundreds of
// megabytes before the fix instead of crashing, and the test bounds what
// converting such a page may allocate.
func TestRed20bTableSpansBounded(t *testing.T) {
	u, _ := url.Parse("https://docs.example.com/page.html")
	for _, tc := range []struct{ name, page string }{
		{"colspan", `<table><tr><td colspan="1000000">spanned</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>`},
		{"rowspan", `<table><tr><td rowspan="1000000">spanned</td><td>b</td></tr><tr><td>d</td></tr></table>`},
		{"both", `<table><tr><td rowspan="3000" colspan="1000">spanned</td></tr></table>`},
		// Every cell within HTML's own bounds (colspan ≤ 1000): 4,000
		// such cells are a 150 KB page and four million grid cells.
		{"many spec-sized", "<table>" + strings.Repeat(`<tr><td colspan="1000">x</td></tr>`, 4000) + "</table>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, got := convertCost(t, u, tc.page)
			if got > 64<<20 {
				t.Errorf("converting a %d-byte page allocated %d MB (want under 64 MB); output %d bytes", len(tc.page), got>>20, len(md))
			}
			if len(md) > 4<<20 {
				t.Errorf("a %d-byte page became %d bytes of markdown", len(tc.page), len(md))
			}
			if !strings.Contains(string(md), "spanned") && !strings.Contains(string(md), "x") {
				t.Errorf("the cell's text is gone:\n%.300s", md)
			}
		})
	}
}

// convertCost converts page and says how many bytes the process
// allocated meanwhile (the tests that call it are not parallel).
func convertCost(t *testing.T, u *url.URL, page string) ([]byte, uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	md, err := Convert(u, "text/html", []byte(page))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return md, after.TotalAlloc - before.TotalAlloc
}

// A span within reason is still laid out as the browser shows it.
func TestRed20bTableSpanKept(t *testing.T) {
	u, _ := url.Parse("https://docs.example.com/page.html")
	md, err := Convert(u, "text/html", []byte(`<table><tr><th colspan="2">Both</th></tr><tr><td>a</td><td>b</td></tr></table>`))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(md), "\n") {
		if strings.Contains(line, "a") && strings.Count(line, "|") != 3 {
			t.Errorf("row %q: want two cells", line)
		}
		if strings.Contains(line, "Both") && strings.Count(line, "|") != 3 {
			t.Errorf("header %q: want the span's two columns", line)
		}
	}
}
