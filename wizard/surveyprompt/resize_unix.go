//go:build unix

package surveyprompt

import (
	"errors"
	"os"
	"os/signal"
	"sync"

	"github.com/AlecAivazis/survey/v2/terminal"
	"golang.org/x/sys/unix"
)

// watchResize returns in as a reader that, when the terminal is resized
// (SIGWINCH) while a prompt waits for a key, calls fit (in the prompt's
// goroutine: fit may change the prompt) and hands survey a key that does
// nothing, terminal.IgnoreKey, so that it draws the prompt again at the
// new size. survey draws a page and lines cut for the size the list
// started with: a terminal made smaller pushed the question off the top,
// and each redraw left old lines behind. stop ends the watch.
func watchResize(in terminal.FileReader, fit func()) (terminal.FileReader, func()) {
	r, w, err := os.Pipe()
	if err != nil {
		return in, func() {}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, unix.SIGWINCH)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-sig:
				w.Write([]byte{0})
			case <-done:
				return
			}
		}
	}()
	stop := func() {
		signal.Stop(sig)
		close(done)
		wg.Wait()
		w.Close()
		r.Close()
	}
	return &resizeReader{FileReader: in, wake: r, fit: fit}, stop
}

type resizeReader struct {
	terminal.FileReader
	wake *os.File // readable after a resize
	fit  func()
}

func (rr *resizeReader) Read(p []byte) (int, error) {
	fds := []unix.PollFd{
		{Fd: int32(rr.Fd()), Events: unix.POLLIN},
		{Fd: int32(rr.wake.Fd()), Events: unix.POLLIN},
	}
	for {
		fds[0].Revents, fds[1].Revents = 0, 0
		_, err := unix.Poll(fds, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || fds[0].Revents != 0 {
			// A key (or the terminal's end, or a poll that failed: the
			// read says what).
			return rr.FileReader.Read(p)
		}
		if fds[1].Revents != 0 {
			var b [64]byte
			rr.wake.Read(b[:]) // the resizes so far: one redraw
			rr.fit()
			if len(p) == 0 {
				return 0, nil
			}
			p[0] = terminal.IgnoreKey
			return 1, nil
		}
	}
}
