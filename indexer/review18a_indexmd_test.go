package indexer

import (
	"slices"
	"strings"
	"testing"
)

// codeSpansOf is CommonMark's code spans of one line of inline text (the
// backtick-string rule and backslash escapes; INDEX.md's entries have no
// other construct that holds a backtick): the spans' contents, in order.
func codeSpansOf(s string) []string {
	run := func(i int) int {
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		return n
	}
	var spans []string
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\' && i+1 < len(s) && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", s[i+1]) >= 0:
			i += 2
		case s[i] == '`':
			n := run(i)
			end := -1
			for j := i + n; j < len(s); {
				if s[j] != '`' {
					j++
					continue
				}
				m := run(j)
				if m == n {
					end = j
					break
				}
				j += m
			}
			if end < 0 {
				i += n
				continue
			}
			c := s[i+n : end]
			if len(c) > 1 && c[0] == ' ' && c[len(c)-1] == ' ' && strings.Trim(c, " ") != "" {
				c = c[1 : len(c)-1]
			}
			spans = append(spans, c)
			i = end + n
		default:
			i++
		}
	}
	return spans
}

// TestReview18aIndexMDBackticks (review18a): red18's inlineText escapes a
// title's backticks only when their number is odd. An even number can
// still leave one open for the path's to close: runs of different lengths
// ("`x```": a run of 1 and one of 3), an author's escaped backtick ("\`"
// counts, yet is no run), and a title and a summary each with an
// unmatched pair of backticks, which pair across the path. The path must stay a code
// span of its own in every entry; a title's own balanced code span stays.
func TestReview18aIndexMDBackticks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ title, summary string }{
		{"Title `x```", ""},
		{"foo \\`bar `baz", ""},
		{"x `` y", "z `` w"},
		{"Title with `backtick", "some `summary"},
		{"`a` ``b", "c"},
	} {
		s := &pkgSection{docs: []fileRecord{{Path: "b.md", Title: tc.title, Summary: tc.summary}}}
		line := s.docLine(s.docs[0], levelFull)
		if spans := codeSpansOf(line); !slices.Contains(spans, "b.md") {
			t.Errorf("title %q, summary %q: %q has the code spans %q, not the path's", tc.title, tc.summary, line, spans)
		}
	}
	s := &pkgSection{docs: []fileRecord{{Path: "c.md", Title: "The `kubectl` command", Summary: "Run ``a`b`` first."}}}
	if line, want := s.docLine(s.docs[0], levelFull), []string{"kubectl", "c.md", "a`b"}; !slices.Equal(codeSpansOf(line), want) {
		t.Errorf("%q: code spans %q, want %q", line, codeSpansOf(line), want)
	}
}
