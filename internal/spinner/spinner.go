// Package spinner draws one line with an activity indicator on a terminal
// while something slow runs (a registry's imports, access checks).
package spinner

import (
	"fmt"
	"io"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/ctx-dev/ctx/internal/termenv"
)

// Spinner redraws "FRAME message" in place every tick until Stop.
type Spinner struct {
	w   io.Writer
	sym termenv.Symbols
	msg string
	mu  sync.Mutex
	// paused: not drawn (git asks at the terminal: SetPaused).
	paused bool
	done   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
}

// tick is how often the frame turns.
const tick = 100 * time.Millisecond

// Start draws message on w (a terminal that moves the cursor) with sym's
// frames until Stop. The message is cut to the terminal's width (when w
// is one whose size can be read): a wrapped line is not redrawn in place.
// Started paused (SetPaused), it draws nothing until SetPaused(false): a
// spinner started while git asks at the terminal (progress.Pause) and
// paused after drew its first frame over the question when its goroutine
// ran between the two.
func Start(w io.Writer, sym termenv.Symbols, message string, paused bool) *Spinner {
	cols := 0
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		if c, _, err := term.GetSize(int(f.Fd())); err == nil {
			cols = c
		}
	}
	return start(w, sym, message, cols, paused)
}

// start is Start on a terminal cols wide (0: unknown, nothing cut),
// paused or not.
func start(w io.Writer, sym termenv.Symbols, message string, cols int, paused bool) *Spinner {
	if cols > 0 {
		// The frame, a space, and the last column left free.
		message = termenv.Clip(message, cols-3, sym.Ellipsis)
	}
	s := &Spinner{w: w, sym: sym, msg: message, paused: paused, done: make(chan struct{})}
	s.wg.Add(1)
	go s.run()
	return s
}

func (s *Spinner) run() {
	defer s.wg.Done()
	t := time.NewTicker(tick)
	defer t.Stop()
	for i := 0; ; i++ {
		s.draw(i)
		select {
		case <-s.done:
			return
		case <-t.C:
		}
	}
}

// draw draws frame i, unless paused.
func (s *Spinner) draw(i int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.paused {
		fmt.Fprintf(s.w, "\r\x1b[K%s %s", s.sym.Frames[i%len(s.sym.Frames)], s.msg)
	}
}

// SetPaused stops drawing, the line cleared (paused), or draws again from
// the next tick: while another program asks at the terminal (git's
// "Username for …"), a line redrawn every tick hid its question.
func (s *Spinner) SetPaused(paused bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if paused && !s.paused {
		io.WriteString(s.w, "\r\x1b[K")
	}
	s.paused = paused
}

// Write writes b (whole lines: a note, a warning) above the spinner: the
// spinner's line is cleared first and drawn again at the next tick.
func (s *Spinner) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	io.WriteString(s.w, "\r\x1b[K")
	return s.w.Write(b)
}

// Stop clears the line and, when final is not empty, prints it in its
// place after the OK mark (ok) or the failure mark. Later calls do nothing.
func (s *Spinner) Stop(ok bool, final string) {
	s.once.Do(func() {
		close(s.done)
		s.wg.Wait()
		io.WriteString(s.w, "\r\x1b[K")
		if final == "" {
			return
		}
		mark := s.sym.Fail
		if ok {
			mark = s.sym.OK
		}
		fmt.Fprintf(s.w, "%s %s\n", mark, final)
	})
}
