package webdoc

import (
	"net/url"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// llmsLinkRE finds, in one pass and in document order, the link targets
// of an llms.txt: inline links [text](target "title") and images, link
// reference definitions [label]: target, autolinks <https://...>, and
// bare http(s) URLs. Exactly one of its groups 1–4 matches.
var llmsLinkRE = lazyre.New(
	`\]\(\s*<?([^()<>\s]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)` + // inline link
		`|(?m:^[ \t]{0,3}\[[^\]]+\]:[ \t]*<?([^<>\s]+)>?)` + // reference definition
		`|<((?i:https?)://[^<>\s]+)>` + // autolink
		`|((?i:https?)://[^\s<>()\[\]"'\x60]+)`) // bare URL

// LLMSLinks lists the pages an llms.txt index links: the targets of its
// markdown links (inline, reference definitions and autolinks) and its
// bare http(s) URLs, in the order they appear. Each is resolved against
// base (the llms.txt's final URL) and kept only when it is on the same
// origin as base: the same scheme (an https index never leads to plain
// http) and the same host and port. A link with a user name or password,
// or to base itself, is dropped, and so is one whose path does not end in
// a document extension (.md, .markdown, .mdx, .txt: the pages an llms.txt
// points agents to; images and HTML sites are not fetched); fragments are
// dropped, and then each page is listed once. At most max links are returned (none when max ≤ 0);
// capped says whether the index held more.
func LLMSLinks(base *url.URL, body []byte, max int) (links []*url.URL, capped bool) {
	if base == nil {
		return nil, false
	}
	self := *base
	self.Fragment, self.RawFragment = "", ""
	seen := map[string]bool{self.String(): true}
	for _, m := range llmsLinkRE().FindAllSubmatch(body, -1) {
		var target string
		for _, g := range m[1:] {
			if g != nil {
				target = string(g)
				break
			}
		}
		if m[4] != nil { // a bare URL: sentence punctuation is not part of it
			target = strings.TrimRight(target, ".,;:!?*_")
		}
		ref, err := url.Parse(target)
		if err != nil {
			continue
		}
		u := base.ResolveReference(ref)
		if u.User != nil || !strings.EqualFold(u.Scheme, base.Scheme) || !strings.EqualFold(u.Host, base.Host) {
			continue
		}
		if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
			continue
		}
		if !markdownOrText(u.Path) {
			continue
		}
		u.Scheme, u.Host = base.Scheme, base.Host // one spelling, so that duplicates are found
		u.Fragment, u.RawFragment = "", ""
		key := u.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		if len(links) >= max {
			return links, true
		}
		links = append(links, u)
	}
	return links, false
}
