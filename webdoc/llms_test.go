package webdoc

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

const llmsTxt = `# Example

> Docs for example.

Intro text with a bare link https://docs.example.com/bare.md, and one in prose (https://docs.example.com/paren.md).

## Guides

- [Install](/install.md): how to install
- [Config](config.md "Configuration")
- [Same again](https://docs.example.com/install.md#step-2)
- [Same, other case](HTTPS://Docs.Example.COM/install.md)
- [Other host](https://other.example.com/x.md)
- [Plain http](http://docs.example.com/downgrade.md)
- [Mail](mailto:team@example.com)
- [JS](javascript:alert(1))
- [FTP](ftp://docs.example.com/f.md)
- [Creds](https://user:pw@docs.example.com/secret.md)
- [Self](llms.txt)
- ![Diagram](img/d.png)
- <https://docs.example.com/auto.md>
- [Deep](../../up.md)
- [Query](api.md?v=2)
- [Port](https://docs.example.com:8443/port.md)

[ref]: /reference.md
`

func TestLLMSLinks(t *testing.T) {
	base := mustURL(t, "https://docs.example.com/v1/llms.txt")
	links, capped := LLMSLinks(base, []byte(llmsTxt), 100)
	want := []string{
		"https://docs.example.com/bare.md",
		"https://docs.example.com/paren.md",
		"https://docs.example.com/install.md",
		"https://docs.example.com/v1/config.md",
		"https://docs.example.com/auto.md",
		"https://docs.example.com/up.md",
		"https://docs.example.com/v1/api.md?v=2",
		"https://docs.example.com/reference.md",
	}
	if got := strs(links); !slices.Equal(got, want) || capped {
		t.Errorf("LLMSLinks =\n%s\ncapped %v; want\n%s", strings.Join(got, "\n"), capped, strings.Join(want, "\n"))
	}

	links, capped = LLMSLinks(base, []byte(llmsTxt), 3)
	if got := strs(links); !slices.Equal(got, want[:3]) || !capped {
		t.Errorf("LLMSLinks(max 3) = %v, capped %v; want %v, capped", got, capped, want[:3])
	}
	links, capped = LLMSLinks(base, []byte(llmsTxt), len(want))
	if len(links) != len(want) || capped {
		t.Errorf("LLMSLinks(max %d) = %d links, capped %v; want all, not capped", len(want), len(links), capped)
	}
	if links, capped = LLMSLinks(base, []byte(llmsTxt), 0); len(links) != 0 || !capped {
		t.Errorf("LLMSLinks(max 0) = %v, %v; want none, capped", links, capped)
	}
	if links, capped = LLMSLinks(base, []byte("no links here"), 0); len(links) != 0 || capped {
		t.Errorf("LLMSLinks(no links, max 0) = %v, %v; want none, not capped", links, capped)
	}
}

func TestLLMSLinksHTTPBase(t *testing.T) {
	base := mustURL(t, "http://127.0.0.1:8080/llms.txt")
	links, _ := LLMSLinks(base, []byte("[a](/a.md) [b](http://127.0.0.1:8080/b.md) [c](https://127.0.0.1:8080/c.md) [d](http://127.0.0.1/d.md) [e](HTTP://127.0.0.1:8080/e.md)"), 10)
	want := []string{"http://127.0.0.1:8080/a.md", "http://127.0.0.1:8080/b.md", "http://127.0.0.1:8080/e.md"}
	if got := strs(links); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func strs(us []*url.URL) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.String())
	}
	return out
}

func FuzzLLMSLinks(f *testing.F) {
	f.Add([]byte(llmsTxt), 5)
	f.Add([]byte("[x](</a b.md>) <https://docs.example.com/%zz> https://docs.example.com/a)"), 3)
	f.Add([]byte("[r]: //evil.example/x\n[s]: https://docs.example.com\\@evil.example/"), 10)
	base, _ := url.Parse("https://docs.example.com/llms.txt")
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		n %= 50
		links, capped := LLMSLinks(base, body, n)
		if len(links) > max(n, 0) || (capped && len(links) != max(n, 0)) {
			t.Fatalf("%d links, capped %v, with max %d", len(links), capped, n)
		}
		seen := map[string]bool{}
		for _, u := range links {
			if u.Scheme != "https" || u.Host != "docs.example.com" || u.User != nil || u.Fragment != "" {
				t.Fatalf("link %q leaves the origin of %s", u, base)
			}
			if seen[u.String()] || u.String() == base.String() {
				t.Fatalf("link %q listed twice or is the index itself", u)
			}
			seen[u.String()] = true
		}
	})
}
