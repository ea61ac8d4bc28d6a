package markdown

import "testing"

// TestOpenFence: the fence a reader is still inside after each line, as
// Scan reads blocks (adjacent blocks, a longer closing fence, tildes, a
// fence inside a comment, front matter shifting the body).
func TestOpenFence(t *testing.T) {
	t.Parallel()
	d := Parse([]byte("---\ntitle: x\n---\n# T\n\n```toml\na = 1\n```\n~~~~\nb\n~~~~~\n```\nc\n\n<!--\n```\n-->\ntext\n"))
	want := map[int]string{4: "", 6: "```", 7: "```", 8: "", 9: "~~~~", 10: "~~~~", 11: "", 12: "```", 13: "```", 14: "```", 15: "```", 16: "", 17: "", 18: ""}
	// Line 15 opens no comment: it is in the block, which line 16 closes.
	for line, w := range want {
		if got := d.OpenFence(line); got != w {
			t.Errorf("OpenFence(%d) = %q, want %q", line, got, w)
		}
	}
	if got := d.OpenFence(0); got != "" {
		t.Errorf("OpenFence(0) = %q", got)
	}
	if got := d.OpenFence(99); got != "" {
		t.Errorf("OpenFence(99) = %q", got)
	}
	c := Parse([]byte("<!--\n```\n-->\nx\n"))
	for line := 1; line <= 4; line++ {
		if got := c.OpenFence(line); got != "" {
			t.Errorf("a fence inside a comment: OpenFence(%d) = %q", line, got)
		}
	}
	if got := ParseFile("a.rst", []byte("x\n\n::\n\n  ```\n")).OpenFence(5); got != "" {
		t.Errorf("rst: %q", got)
	}
}
