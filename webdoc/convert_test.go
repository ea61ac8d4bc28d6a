package webdoc

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
)

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

const page = `<!doctype html>
<html><head><title>Guide</title><style>body{color:red}</style>
<script>alert("x")</script></head>
<body>
<nav><a href="/home">Home</a> | <a href="/other">Other</a></nav>
<h1>Install</h1>
<p>Read <a href="setup.html">the setup</a> and <a href="https://other.example/x">elsewhere</a>.</p>
<h2>Code</h2>
<pre><code class="language-go">func main() {
	fmt.Println("hi")
}
</code></pre>
<img src="../img/a.png" alt="diagram">
<table><thead><tr><th>Flag</th><th>Meaning</th></tr></thead>
<tbody><tr><td>-v</td><td>verbose</td></tr></tbody></table>
</body></html>`

func TestConvertHTML(t *testing.T) {
	u := mustURL(t, "https://docs.example.com/guide/install.html")
	md, err := Convert(u, "text/html; charset=utf-8", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	got := string(md)
	for _, want := range []string{
		"# Install\n",
		"## Code\n",
		"```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```",
		"[the setup](https://docs.example.com/guide/setup.html)",
		"[elsewhere](https://other.example/x)",
		"![diagram](https://docs.example.com/img/a.png)",
		"| Flag | Meaning |",
		"| -v   | verbose |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("converted page lacks %q:\n%s", want, got)
		}
	}
	for _, banned := range []string{"alert", "color:red", "Home", "Other", "Guide"} {
		if strings.Contains(got, banned) {
			t.Errorf("converted page holds %q (script, style, nav or head):\n%s", banned, got)
		}
	}
	if !strings.HasSuffix(got, "\n") || strings.HasSuffix(got, "\n\n") {
		t.Errorf("converted page should end in one newline: %q", got[max(0, len(got)-20):])
	}
}

func TestConvertCharset(t *testing.T) {
	u := mustURL(t, "https://docs.example.com/a")
	body := []byte("<html><head><meta charset=\"iso-8859-1\"></head><body><p>caf\xe9</p></body></html>")
	md, err := Convert(u, "text/html", body)
	if err != nil {
		t.Fatal(err)
	}
	if string(md) != "café\n" {
		t.Errorf("got %q, want %q", md, "café\n")
	}
}

func TestConvertKinds(t *testing.T) {
	text := []byte("\ufeff# Title\r\n\r\nSome <b>text</b>.\r\n")
	html := []byte("<!DOCTYPE html><html><body><h1>T</h1><p>x</p></body></html>")
	pdf := []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n")
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for _, tc := range []struct {
		name, url, ctype string
		body             []byte
		want             string // "" with wantErr
		wantErr          string
	}{
		{"markdown kept as is", "https://h/a.md", "text/markdown; charset=utf-8", text, string(text), ""},
		{"plain kept", "https://h/llms.txt", "text/plain", text, string(text), ""},
		{"markdown by extension", "https://h/a.md", "application/octet-stream", text, string(text), ""},
		{"markdown by extension without type", "https://h/a.markdown", "", text, string(text), ""},
		{"html by type", "https://h/a", "text/html", html, "# T\n\nx\n", ""},
		{"html by extension", "https://h/a.htm", "", html, "# T\n\nx\n", ""},
		{"html sniffed", "https://h/a", "application/octet-stream", html, "# T\n\nx\n", ""},
		{"text sniffed without type", "https://h/a", "", []byte("just text\n"), "just text\n", ""},
		{"html type wins over .md", "https://h/a.md", "text/html", html, "# T\n\nx\n", ""},
		{"pdf", "https://h/a.pdf", "application/pdf", pdf, "", `content type "application/pdf" is not a document`},
		{"pdf named .md", "https://h/a.md", "application/pdf", pdf, "", `content type "application/pdf" is not a document`},
		{"image without type", "https://h/a", "", png, "", `content type "image/png (sniffed; the server sent no content type)" is not a document`},
		{"json", "https://h/a", "application/json", []byte(`{"a":1}`), "", `content type "application/json" is not a document`},
		{"binary served as text", "https://h/a.txt", "text/plain", []byte("a\x00b"), "", "holds a NUL byte"},
		{"empty html", "https://h/app", "text/html", []byte("<html><body><script>x()</script></body></html>"), "", "has no text once converted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Convert(mustURL(t, tc.url), tc.ctype, tc.body)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.url) {
					t.Errorf("error %q does not name the page %s", err, tc.url)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestConvertDeepHTML(t *testing.T) {
	body := bytes.Repeat([]byte("<div>"), 100000)
	_, err := Convert(mustURL(t, "https://h/deep"), "text/html", body)
	if err == nil || !strings.Contains(err.Error(), "open stack of elements exceeds") {
		t.Fatalf("err = %v, want the nesting limit", err)
	}
}
