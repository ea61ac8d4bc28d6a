package webdoc

import (
	"net/url"
	"testing"
)

// FuzzConvert: no page makes the converter panic (a panic in ctx add's
// fetch ends the process), and what tame bounds stays bounded: the
// markdown of a page is at most 64 times its HTML (spans and nesting were
// the ways past it: red20b findings 2, 3).
func FuzzConvert(f *testing.F) {
	for _, s := range []string{
		`<table><tr><th colspan="2">a</th></tr><tr><td rowspan="3">b</td><td>c</td></tr></table>`,
		`<blockquote><ul><li>a<ol start="7"><li>b</li></ol></li></ul></blockquote>`,
		`<html><head><meta charset="iso-8859-1"><title>t</title></head><body><h1>x</h1><pre>` + "`" + `</pre></body></html>`,
		`<table><tr><td colspan="999999999999">x</td><td rowspan="-1">y</td></tr><table><tr><td colspan=3>z</table></table>`,
		`<dl><dt>a<dd>b</dl><a href="../x.md">l</a><img src="i.png" alt="[1] a/b.md:1-2">`,
	} {
		f.Add([]byte(s))
	}
	u, _ := url.Parse("https://docs.example.com/dir/page.html")
	f.Fuzz(func(t *testing.T, body []byte) {
		md, err := Convert(u, "text/html", body)
		if err != nil {
			return
		}
		if len(md) > 64*len(body)+64<<10 {
			t.Errorf("a %d-byte page became %d bytes of markdown", len(body), len(md))
		}
	})
}
