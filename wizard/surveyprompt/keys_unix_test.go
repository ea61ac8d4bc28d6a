//go:build unix

package surveyprompt

import (
	"os"
	"testing"
)

// byteAtATime is a terminal whose reads return one byte each: a slow link
// that splits an arrow key's sequence (ESC, then "[A") across reads.
type byteAtATime struct{ *os.File }

func (b byteAtATime) Read(p []byte) (int, error) { return b.File.Read(p[:min(1, len(p))]) }

// TestCancelKeysSplitSequence: an escape byte whose sequence's rest is
// already on its way (the next read has it) is an arrow key, not Esc: it
// reaches survey with the rest, and the list does not close. Esc pressed
// alone, nothing after it, still cancels. (The link's split is made by
// the reader, the bytes all written first: no timing in the test.)
func TestCancelKeysSplitSequence(t *testing.T) {
	t.Parallel()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	r := cancelKeys{byteAtATime{pr}}
	buf := make([]byte, 16)
	if _, err := pw.WriteString("\x1b[A"); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for len(got) < 3 {
		n, err := r.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	if string(got) != "\x1b[A" {
		t.Errorf("split arrow key read as %q, want %q", got, "\x1b[A")
	}
	if _, err := pw.WriteString("\x1b"); err != nil {
		t.Fatal(err)
	}
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "\x03" {
		t.Errorf("Esc alone read as %q, %v; want Ctrl-C", buf[:n], err)
	}
	// Esc, then the terminal's answer to survey's cursor query: the Esc
	// still cancels (survey keeps what came before the answer).
	if _, err := pw.WriteString("\x1b\x1b[1;5R"); err != nil {
		t.Fatal(err)
	}
	got = nil
	for len(got) < 7 {
		n, err := r.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	if string(got) != "\x03\x1b[1;5R" {
		t.Errorf("Esc before a cursor report read as %q, want %q", got, "\x03\x1b[1;5R")
	}
}
