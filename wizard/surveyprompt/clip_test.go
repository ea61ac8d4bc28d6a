package surveyprompt

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/termenv"
	"github.com/ctx-dev/ctx/wizard"
)

// TestClipKeepsCombiningMarks: a combining mark takes no column and stays
// with the character before it. Counted as a column, "é" written as e and
// U+0301 was clipped at half the room, and the cut could fall between the
// e and its accent, showing "e…" (review19d).
func TestClipKeepsCombiningMarks(t *testing.T) {
	t.Parallel()
	e := "e\u0301" // é, decomposed
	s := strings.Repeat(e, 80)
	if got := termenv.TextWidth(s); got != 80 {
		t.Errorf("termenv.TextWidth(80 × e+U+0301) = %d, want 80", got)
	}
	got := termenv.Clip(s, 10, "…")
	if want := strings.Repeat(e, 9) + "…"; got != want {
		t.Errorf("termenv.Clip(…, 10) = %+q, want %+q", got, want)
	}
	// Wide characters take two columns; a cut never splits a rune.
	if got, want := termenv.Clip("日本語の説明", 7, "…"), "日本語…"; got != want {
		t.Errorf("termenv.Clip(CJK, 7) = %q, want %q", got, want)
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
		if got := termenv.Clip(c.s, c.n, "..."); got != c.want {
			t.Errorf("termenv.Clip(%q, %d, ...) = %q, want %q", c.s, c.n, got, c.want)
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

// screen is a terminal.FileWriter that keeps nothing.
type screen struct{}

func (screen) Write(p []byte) (int, error) { return len(p), nil }
func (screen) Fd() uintptr                 { return ^uintptr(0) }

// TestKeyWithCursorReport: survey asks the terminal where the cursor is
// (ESC [ 6 n) twice as a yes/no prompt starts reading, and keeps only
// what came before the answer in the read that held it: a key read after
// the answer, in the same read, was dropped. Esc (and Ctrl-C, and a
// letter) pressed while the terminal answered is still a key (flake20:
// the pty test TestCancelKeys/esc/confirm failed so under -race).
func TestKeyWithCursorReport(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		reads []string
		want  bool
		err   error
	}{
		{"esc after the report", []string{"\x1b[30;100R", "\x1b[1;16R\x1b"}, false, wizard.ErrInterrupted},
		{"esc before the report", []string{"\x1b[30;100R", "\x1b\x1b[1;16R"}, false, wizard.ErrInterrupted},
		{"ctrl-c after the report", []string{"\x1b[30;100R\x03"}, false, wizard.ErrInterrupted},
		{"n after the report", []string{"\x1b[30;100R", "\x1b[1;16Rn", "\r"}, false, nil},
		{"arrow and n after the report", []string{"\x1b[30;100R", "\x1b[1;16R\x1b[Dn", "\r"}, false, nil},
	} {
		p := New(&keys{reads: c.reads}, screen{}, io.Discard, Options{UTF8: true})
		got, err := p.Confirm("Go on?", true)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("%s: got %v, %v; want %v, %v", c.name, got, err, c.want, c.err)
		}
	}
}
