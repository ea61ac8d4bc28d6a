package markdown

import (
	"strings"
	"testing"
)

// kindLetters writes kinds one letter a line: T text, B blank, C code,
// M comment, H heading line, h heading continuation.
func kindLetters(ks []Kind) string {
	var b strings.Builder
	for _, k := range ks {
		b.WriteByte("TBCMHh"[k])
	}
	return b.String()
}

// note22's Left: a fenced block indented inside a list item (CommonMark
// 5.2: the item's content starts after its marker and 1–4 blanks, and a
// fence may be indented up to three columns past that) was read as
// indented code, so its blank lines split it, its language was lost and a
// heading-like line in it could become a heading. Cases written from the
// spec's rules on list items and fenced code, not copied from its
// examples.
func TestScanListItemFences(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, doc, kinds string
		heads            int // headings Scan finds
	}{
		{"ordered, content at 4", "1.  Install:\n\n    ```sh\n    make\n\n    make install\n    ```\n\n## Next\n", "TBCCCCCBH", 1},
		{"bullet with three blanks", "-   Run:\n    ```\n    x\n    ```\nafter\n", "TCCCT", 0},
		{"two-digit number", "10. Build:\n\n    ~~~go\n    a\n    ~~~\n", "TBCCC", 0},
		{"two past the content", "- a\n\n    ```\n    b\n    ```\n", "TBCCC", 0},
		{"nested items", "1. a\n   - b\n\n     ```yaml\n     k: v\n\n     ```\n", "TTBCCCC", 0},
		{"fence on the marker line", "1. ```\n   foo\n   ```\n\n   bar\n", "CCCBT", 0},
		{"second item, fence on its line", "- a\n- ```\n  b\n\n\n  ```\n- c\n", "TCCCCCT", 0},
		{"lazy line keeps the item", "- item\ncontinued\n  ```\n  x\n  ```\n", "TTCCC", 0},
		// A closing fence may be indented up to three past the item's
		// content, and one indented more is text of the block.
		{"close three past the content", "1. a\n\n   ```\n   x\n      ```\n## out of code\n", "TBCCCH", 1},
		{"close deeper than three past is code", "1. a\n\n   ```\n   x\n       ```\n   y\n   ```\n", "TBCCCCC", 0},
		// Four columns past the content is indented code, not a fence.
		{"indented code in an item", "- a\n\n      ```\n      b\n\n## H\n", "TBTTBH", 1},
		// Outside any list, four blanks are indented code as before.
		{"indented code, no list", "para\n\n    ```\n    x\n\n## H\n", "TBTTBH", 1},
		// A paragraph at column 0 ends the item.
		{"item ended", "- a\n\npara\n\n    ```\n    x\n\n## H\n", "TBTBTTBH", 1},
		// A number other than 1 does not interrupt a paragraph: no item,
		// so the fence four in is indented code (in the paragraph).
		{"2. cannot interrupt", "The count is\n2.  ok\n    ```\n    x\n", "TTTT", 0},
		// A thematic break is no bullet.
		{"break", "- - -\n    ```\n    x\n", "TTT", 0},
		// A heading line ends the items.
		{"heading ends items", "- a\n# T\n    ```\n", "THT", 1},
		// rv-polish23: indented code and a thematic break are no
		// paragraph. A line at column 0 after an item's indented code is
		// no lazy continuation: it ends the item, and a fence four in
		// after it is that paragraph's text (the heading stays one).
		{"no lazy line after indented code", "- a\n\n      code\nx\n    ```\n    y\n\n## H\n", "TBTTTTBH", 1},
		// After a thematic break or indented code, "2." and an empty
		// item start a list (no paragraph to interrupt).
		{"2. after a break", "***\n2. b\n\n    ```\n    x\n    ```\n", "TTBCCC", 0},
		{"2. after indented code", "    indented\n2. b\n\n    ```\n    x\n    ```\n", "TTBCCC", 0},
		{"empty item after a break", "- - -\n-\n    ```\n    x\n    ```\n", "TTCCC", 0},
		// An item can begin with one blank line at most: an empty item
		// followed by one ends, and a line five in after it is indented
		// code, no fence (it hid the heading after it).
		{"empty item, then a blank", "-\n\n     ```\n     x\n\n## H\n", "TBTTBH", 1},
		{"empty ordered item, then a blank", "1.\n\n    ```\n    x\n\n## H\n", "TBTTBH", 1},
		{"empty item, then its text", "-\n  a\n\n     ```\n     x\n     ```\n", "TTBCCC", 0},
		// A heading on an item's line is no paragraph: the line after it
		// at column 0 ends the item (it opened a fence to the end).
		{"heading on the marker line", "- # h\nTitle\n    ```\n    x\n\n## H\n", "TTTTBH", 1},
		// A line four columns past the items it is in starts no block:
		// a lazy continuation, the item stays open for its fence.
		{"lazy line four in", "  2. b\n    ```\n     ```sh\n     x\n     ```\n", "TTCCC", 0},
		{"lazy line four in, wide item", "-    five\n    ```\n     ```sh\n     x\n     ```\n", "TTCCC", 0},
		{"item's break", "1. ***\n2. b\n\n    ```\n    x\n    ```\n", "TTBCCC", 0},
	} {
		b := Scan(Lines([]byte(tc.doc)))
		if got := kindLetters(b.Kinds); got != tc.kinds {
			t.Errorf("%s: kinds %s, want %s", tc.name, got, tc.kinds)
		}
		if len(b.Headings) != tc.heads {
			t.Errorf("%s: %d headings %v, want %d", tc.name, len(b.Headings), b.Headings, tc.heads)
		}
	}
}

// A passage that starts inside a list item's fence reopens it with its
// language, and one that ends inside closes it (read_relevant).
func TestOpeningFenceInListItem(t *testing.T) {
	t.Parallel()
	d := Parse([]byte("# T\n\n1.  Install:\n\n    ```sh\n    make\n\n    make install\n    ```\n- ```go\n  x\n  ```\n"))
	for _, tc := range []struct {
		line          int
		open, opening string
	}{
		{3, "", ""}, {5, "```", "```sh"}, {7, "```", "```sh"}, {9, "", ""},
		{10, "```", "```go"}, {11, "```", "```go"}, {12, "", ""},
	} {
		if got := d.OpenFence(tc.line); got != tc.open {
			t.Errorf("OpenFence(%d) = %q, want %q", tc.line, got, tc.open)
		}
		if got := d.OpeningFence(tc.line); got != tc.opening {
			t.Errorf("OpeningFence(%d) = %q, want %q", tc.line, got, tc.opening)
		}
	}
}

// A long section splits at blank lines outside code: never at the blank
// line inside a list item's fence.
func TestChunksKeepListItemFence(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("# Setup\n\n")
	for range 5 {
		b.WriteString("Some prose about the setup that goes on for a while, line after line.\n\n")
	}
	b.WriteString("1.  Install:\n\n    ```sh\n")
	for range 115 {
		b.WriteString("    make all install clean test\n\n")
	}
	b.WriteString("    ```\n\nDone.\n")
	d := Parse([]byte(b.String()))
	open, close := 0, 0
	for i, l := range d.Lines {
		if strings.TrimSpace(l) == "```sh" {
			open = i + 1
		}
		if strings.TrimSpace(l) == "```" {
			close = i + 1
		}
	}
	for _, c := range d.Chunks() {
		if c.StartLine > open && c.StartLine <= close || c.EndLine >= open && c.EndLine < close {
			t.Errorf("chunk %d-%d cuts the fence %d-%d", c.StartLine, c.EndLine, open, close)
		}
	}
}

// TestListItemsLinearWork: the list-item scanner's steps (codeWork: the
// bytes isBreak reads) stay within a constant per byte for a line of
// markers, each of which tested the rest of the line for a thematic
// break (40,000 markers took 1.7 s before maxListDepth). Not parallel: it
// sets codeWork.
func TestListItemsLinearWork(t *testing.T) {
	for _, n := range []int{1 << 12, 1 << 15} {
		src := strings.Repeat("- ", n) + "x\n" + strings.Repeat(" ", 2*n) + "```\ny\n"
		w := 0
		codeWork = &w
		b := Scan(Lines([]byte(src)))
		codeWork = nil
		if len(b.Kinds) != 3 {
			t.Fatalf("%d markers: %d lines", n, len(b.Kinds))
		}
		if limit := 40 * len(src); w > limit {
			t.Errorf("%d markers: %d steps (%.1f a byte), want at most %d", n, w, float64(w)/float64(len(src)), limit)
		}
	}
}

// FuzzFencesAgreeWithKinds: Body.Fences and Kinds say the same (every
// fence's lines are Code, in order, not overlapping), and OpenFence is
// non-empty exactly on a fence's lines before its close.
func FuzzFencesAgreeWithKinds(f *testing.F) {
	for _, s := range []string{
		"1.  Install:\n\n    ```sh\n    make\n    ```\n",
		"- a\n- ```\n  b\n- c\n",
		"* x\n\t~~~\n\ty\n\t~~~\n",
		"---\nt: 1\n---\n1. ```go\n   x\n",
		"- - - \n  ```\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		d := Parse([]byte(src))
		body := d.FrontMatter.End
		prev := -1
		inFence := make([]bool, len(d.Body.Kinds))
		for _, fe := range d.Body.Fences {
			if fe.Open <= prev || fe.Close < fe.Open || fe.Close > len(d.Body.Kinds) {
				t.Fatalf("fence %v after %d of %d lines", fe, prev, len(d.Body.Kinds))
			}
			for i := fe.Open; i <= fe.Close && i < len(d.Body.Kinds); i++ {
				if d.Body.Kinds[i] != Code {
					t.Fatalf("fence %v: line %d is kind %d", fe, i, d.Body.Kinds[i])
				}
				inFence[i] = i < fe.Close
			}
			prev = fe.Close
		}
		for i := range d.Body.Kinds {
			if got := d.OpenFence(body + i + 1); (got != "") != inFence[i] {
				t.Fatalf("line %d: OpenFence %q, in a fence before its close: %v", body+i+1, got, inFence[i])
			}
			if o := d.OpeningFence(body + i + 1); !strings.HasPrefix(o, d.OpenFence(body+i+1)) {
				t.Fatalf("line %d: OpeningFence %q does not start with OpenFence", body+i+1, o)
			}
		}
	})
}
