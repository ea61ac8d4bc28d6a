package webdoc

import (
	"net/url"
	"path"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/naming"
)

func TestDetect(t *testing.T) {
	for _, tc := range []struct{ url, ctype, want string }{
		{"https://h/llms.txt", "", FormLLMS},
		{"https://h/docs/llms-full.txt", "text/plain", FormLLMS},
		{"https://h/docs/LLMS.TXT", "", FormLLMS},
		{"https://h/llms.txt/", "", FormDocument},
		{"https://h/not-llms.txt", "", FormDocument},
		{"https://h/d.tar.gz", "", FormArchive},
		{"https://h/d.TGZ?x=1", "", FormArchive},
		{"https://h/d.zip", "", FormArchive},
		{"https://h/download", "application/zip", FormArchive},
		{"https://h/download", "application/gzip", FormArchive},
		{"https://h/guide.html", "text/html", FormDocument},
		{"https://h/", "", FormDocument},
		{"https://h/readme.md", "text/markdown", FormDocument},
	} {
		if got := Detect(tc.url, tc.ctype); got != tc.want {
			t.Errorf("Detect(%q, %q) = %q, want %q", tc.url, tc.ctype, got, tc.want)
		}
	}
}

func TestArchiveFormat(t *testing.T) {
	for _, tc := range []struct{ url, ctype, want, wantErr string }{
		{"https://h/a.tar.gz", "", FormatTarGz, ""},
		{"https://h/a.tgz", "application/octet-stream", FormatTarGz, ""},
		{"https://h/a.ZIP", "", FormatZip, ""},
		{"https://h/a", "application/x-gzip", FormatTarGz, ""},
		{"https://h/a", "application/zip; foo=bar", FormatZip, ""},
		{"https://h/a.tar", "", "", `"https://h/a.tar" is not an archive`},
		{"https://h/a", "text/html", "", `content type is "text/html"`},
	} {
		got, err := ArchiveFormat(tc.url, tc.ctype)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ArchiveFormat(%q, %q): err = %v, want %q", tc.url, tc.ctype, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ArchiveFormat(%q, %q) = %q, %v; want %q", tc.url, tc.ctype, got, err, tc.want)
		}
	}
}

func TestPagePath(t *testing.T) {
	for _, tc := range []struct{ url, want, wantErr string }{
		{"https://h", "index.md", ""},
		{"https://h/", "index.md", ""},
		{"https://h/docs/", "docs/index.md", ""},
		{"https://h/docs/guide", "docs/guide.md", ""},
		{"https://h/docs/guide.html", "docs/guide.md", ""},
		{"https://h/docs/guide.HTM", "docs/guide.md", ""},
		{"https://h/docs/guide.md", "docs/guide.md", ""},
		{"https://h/a.markdown", "a.markdown", ""},
		{"https://h/llms.txt", "llms.txt.md", ""},
		{"https://h/v1.2/api", "v1.2/api.md", ""},
		{"https://h/a//b/./c/../d", "a/b/d.md", ""},
		{"https://h/../../etc/passwd", "etc/passwd.md", ""},
		{"https://h/..", "index.md", ""},
		{"https://h/a%20b/c", "a b/c.md", ""},
		{"https://h/guide#install", "guide.md", ""},
		{"https://user:secret@h/guide", "guide.md", ""},
		{"https://h/page.php?id=2", "page.php-" + hash8("id=2") + ".md", ""},
		{"https://h/page.html?id=3", "page-" + hash8("id=3") + ".md", ""},
		{"https://h/?p=1", "index-" + hash8("p=1") + ".md", ""},
		{"https://h/.git/config", "", `".git"`},
		{"https://h/.well-known/llms.txt", "", "hidden"},
		{"https://h/a%5Cb", "", "backslash"},
		{"https://h/a%00b", "", "NUL"},
		{"https://h/" + strings.Repeat("x", 253), "", "bytes"},
		{"https://user:secret@h/.git", "", "https://user:xxxxx@h/.git"},
	} {
		got, err := PagePath(mustURL(t, tc.url))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("PagePath(%q): err = %v, want one containing %q", tc.url, err, tc.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("PagePath(%q): error shows the password: %v", tc.url, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("PagePath(%q) = %q, %v; want %q", tc.url, got, err, tc.want)
		}
	}
}

func hash8(q string) string {
	p, _ := PagePath(&url.URL{Path: "/x", RawQuery: q})
	return strings.TrimSuffix(strings.TrimPrefix(p, "x-"), ".md")
}

func TestPagePathQueryDistinct(t *testing.T) {
	a, _ := PagePath(&url.URL{Path: "/p", RawQuery: "id=1"})
	b, _ := PagePath(&url.URL{Path: "/p", RawQuery: "id=2"})
	c, _ := PagePath(&url.URL{Path: "/p"})
	if a == b || a == c || b == c || len(hash8("id=1")) != 8 {
		t.Errorf("pages that differ by query share a path: %q %q %q", a, b, c)
	}
}

func FuzzPagePath(f *testing.F) {
	for _, s := range []string{"https://h/", "https://h/a/b.html", "https://h/a?x=1", "https://h/.git", "https://h/a/../../b", "https://h/%2e%2e/x", "https://h/a%5c..%5cb", "https://h/C:/x", "https://h/x:$DATA"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		p, err := PagePath(u)
		if err != nil {
			return
		}
		if err := naming.CheckServedPath(p); err != nil {
			t.Fatalf("PagePath(%q) = %q, which fails CheckServedPath: %v", raw, p, err)
		}
		if !markdown.IsDocument(p) {
			t.Fatalf("PagePath(%q) = %q, which is not a document", raw, p)
		}
		if path.Clean(p) != p {
			t.Fatalf("PagePath(%q) = %q, not clean", raw, p)
		}
	})
}

func TestExt(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]string{
		"/a/Guide.MD": ".md", "/x.markdown": ".markdown", "/h.tar.gz": ".tar.gz", "/h.tgz": ".tgz",
		"/llms.txt": ".txt", "/p.html": ".html", "/docs/": "", "/repo": "", "/a.gz": "", "/v1.2": "",
	} {
		if got := Ext(p); got != want {
			t.Errorf("Ext(%q) = %q, want %q", p, got, want)
		}
	}
}
