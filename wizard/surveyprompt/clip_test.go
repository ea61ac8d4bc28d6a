package surveyprompt

import (
	"io"
	"reflect"
	"strings"
	"testing"
)

// TestClipKeepsCombiningMarks: a combining mark takes no column and stays
// with the character before it. Counted as a column, "é" written as e and
// U+0301 was clipped at half the room, and the cut could fall between the
// e and its accent, showing "e…" (review19d).
func TestClipKeepsCombiningMarks(t *testing.T) {
	t.Parallel()
	e := "e\u0301" // é, decomposed
	s := strings.Repeat(e, 80)
	if got := textWidth(s); got != 80 {
		t.Errorf("textWidth(80 × e+U+0301) = %d, want 80", got)
	}
	got := clip(s, 10, "…")
	if want := strings.Repeat(e, 9) + "…"; got != want {
		t.Errorf("clip(…, 10) = %+q, want %+q", got, want)
	}
	// Wide characters take two columns; a cut never splits a rune.
	if got, want := clip("日本語の説明", 7, "…"), "日本語…"; got != want {
		t.Errorf("clip(CJK, 7) = %q, want %q", got, want)
	}
}

// TestClipASCII: in a terminal that does not take UTF-8 the cut is "...".
func TestClipASCII(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abcdefghij", 10, "abcdefghij"},
		{"abcdefghijk", 10, "abcdefg..."},
		{"abcdefghijk", 4, "a..."},
		{"abcdefghijk", 3, ""},
	} {
		if got := clip(c.s, c.n, "..."); got != c.want {
			t.Errorf("clip(%q, %d, ...) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

// keys is a terminal.FileReader that returns one chunk a read.
type keys struct{ reads []string }

func (k *keys) Read(p []byte) (int, error) {
	if len(k.reads) == 0 {
		return 0, io.EOF
	}
	n := copy(p, k.reads[0])
	k.reads = k.reads[1:]
	return n, nil
}

func (k *keys) Fd() uintptr { return ^uintptr(0) }

// TestCancelKeys: Ctrl-D, and Esc pressed alone (an escape byte last in a
// read, or followed by another escape byte), reach survey as Ctrl-C; an
// arrow key's sequence, and an escape byte followed by more in the same
// read, are left as they are. The read "\x1b\x1b[12;1R" is an Esc and the
// terminal's answer to survey's cursor query, read together (flake20:
// the pty test TestCancelKeys/esc/confirm failed so, under load).
func TestCancelKeys(t *testing.T) {
	t.Parallel()
	in := &keys{reads: []string{"\x1b", "\x1b[A", "a\x04", "\x1b[B\x1b", "\x1bx", "\x1b\x1b[12;1R", "\x1b\x1b"}}
	r := cancelKeys{in}
	var got []string
	buf := make([]byte, 16)
	for {
		n, err := r.Read(buf)
		if err != nil {
			break
		}
		got = append(got, string(buf[:n]))
	}
	want := []string{"\x03", "\x1b[A", "a\x03", "\x1b[B\x03", "\x1bx", "\x03\x1b[12;1R", "\x03\x03"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reads %q, want %q", got, want)
	}
}
