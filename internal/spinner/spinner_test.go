package spinner

import (
	"strings"
	"sync"
	"testing"

	"github.com/ctx-dev/ctx/internal/termenv"
)

type buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestStopMarks: the final line's mark says whether it went well: a check
// that found 3 of 4 contexts unreadable is no ✓ (wiz20).
func TestStopMarks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		utf8, ok bool
		want     string
	}{
		{true, true, "\r\x1b[K✓ all good\n"},
		{true, false, "\r\x1b[K✗ 3 of 4 cannot be read\n"},
		{false, true, "\r\x1b[K+ all good\n"},
		{false, false, "\r\x1b[Kx 3 of 4 cannot be read\n"},
	} {
		var b buffer
		s := Start(&b, termenv.SymbolsFor(c.utf8), "checking", false)
		final := "all good"
		if !c.ok {
			final = "3 of 4 cannot be read"
		}
		s.Stop(c.ok, final)
		s.Stop(true, "again") // ignored
		if got := b.String(); !strings.HasSuffix(got, c.want) || strings.Count(got, final) != 1 {
			t.Errorf("utf8 %v, ok %v: %q, want it to end %q", c.utf8, c.ok, got, c.want)
		}
		if !c.utf8 && strings.ContainsFunc(b.String(), func(r rune) bool { return r > 127 }) {
			t.Errorf("ASCII spinner wrote non-ASCII: %q", b.String())
		}
	}
}

// TestWriteAbove: a note written while the spinner turns starts on a
// cleared line, not after the spinner's text.
func TestWriteAbove(t *testing.T) {
	t.Parallel()
	var b buffer
	s := Start(&b, termenv.SymbolsFor(true), "reading", false)
	s.Write([]byte("note: x\n"))
	s.Stop(true, "")
	if got := b.String(); !strings.Contains(got, "\r\x1b[Knote: x\n") {
		t.Errorf("note not on a line of its own: %q", got)
	}
}

// TestPaused: a paused spinner draws nothing (its line cleared once);
// resumed, it draws again. The spinner's own goroutine may draw a frame
// of its own at any time once resumed (its first comes late under load),
// so the resumed draw is looked for in all that follows the pause, not
// at the end (flake20).
func TestPaused(t *testing.T) {
	t.Parallel()
	var b buffer
	s := Start(&b, termenv.SymbolsFor(true), "reading", false)
	s.SetPaused(true)
	before := b.String()
	if !strings.HasSuffix(before, "\r\x1b[K") {
		t.Errorf("paused without clearing the line: %q", before)
	}
	s.draw(3)
	if got := b.String(); got != before {
		t.Errorf("paused spinner drew %q", strings.TrimPrefix(got, before))
	}
	s.SetPaused(false)
	s.draw(3)
	// Contains, not HasSuffix: the spinner's own tick may draw the next
	// frame before the buffer is read (a loaded machine).
	if got := b.String()[len(before):]; !strings.Contains(got, "⠸ reading") {
		t.Errorf("resumed spinner did not draw: %q", got)
	}
	s.Stop(true, "")
}

// TestLongMessageFits: a message wider than the terminal (a long registry
// URL) is cut to fit one line; wrapped, each redraw ("\r", clear the line)
// left the wrapped part behind and the screen filled with copies.
func TestLongMessageFits(t *testing.T) {
	t.Parallel()
	var b buffer
	long := "Reading the registry https://raw.githubusercontent.com/example-org/registry/main/contexts.json"
	s := start(&b, termenv.SymbolsFor(true), long, 40, false)
	s.Stop(true, "")
	for _, line := range strings.Split(b.String(), "\r\x1b[K") {
		if w := termenv.TextWidth(line); w > 39 {
			t.Errorf("spinner line %q takes %d columns on a 40-column terminal", line, w)
		}
	}
	if !strings.Contains(b.String(), "Reading the registry https://raw.git…") {
		t.Errorf("message not cut with an ellipsis: %q", b.String())
	}
}

// TestStartPaused: a spinner started paused (Start(..., true): git asks at the terminal)
// draws nothing, not even its first frame, until resumed, and clears no
// line it did not draw.
func TestStartPaused(t *testing.T) {
	t.Parallel()
	for range 50 {
		var b buffer
		s := Start(&b, termenv.SymbolsFor(true), "reading", true)
		s.draw(1)
		if got := b.String(); got != "" {
			t.Fatalf("paused spinner wrote %q", got)
		}
		s.SetPaused(false)
		s.draw(3)
		if got := b.String(); !strings.Contains(got, "⠸ reading") {
			t.Fatalf("resumed spinner did not draw: %q", got)
		}
		s.Stop(true, "")
	}
}
