//go:build !windows

// Package ptytest drives the wizard's survey prompts through a real
// pseudo-terminal. It is a module of its own so that the product's module
// neither downloads nor builds a terminal emulator for `go test ./...`;
// .ci/run runs it.
package ptytest

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/AlecAivazis/survey/v2/terminal"
	expect "github.com/Netflix/go-expect"
	pseudotty "github.com/creack/pty"
	"github.com/hinshun/vt10x"
	"golang.org/x/sys/unix"

	"github.com/ctx-dev/ctx/wizard"
	"github.com/ctx-dev/ctx/wizard/surveyprompt"
)

// TestMultiSelectAndConfirmOnPTY drives the adapter through a real
// pseudo-terminal, as a user would: check two contexts, accept, confirm.
func TestMultiSelectAndConfirmOnPTY(t *testing.T) {
	t.Parallel()
	pty, tty, err := pseudotty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	term := vt10x.New(vt10x.WithWriter(tty))
	// The timeout only bounds a broken test; no assertion depends on time.
	c, err := expect.NewConsole(expect.WithStdin(pty), expect.WithStdout(term), expect.WithCloser(pty, tty), expect.WithDefaultTimeout(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	choices := []wizard.Choice{
		{Name: "platform", Description: "How we run services", Tags: []string{"ops"}},
		{Name: "api", Description: "API guidelines", Installed: true},
		{Name: "secret", Description: "Security runbooks", Disabled: "authentication required"},
		{Name: "style", Description: "Writing style"},
	}
	var scriptErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		step := func(err error) {
			if err != nil && scriptErr == nil {
				scriptErr = err
				c.Tty().Close() // unblock the prompt under test
			}
		}
		_, err := c.ExpectString("✗ secret — cannot be installed: authentication required")
		step(err)
		_, err = c.ExpectString("Which contexts?")
		step(err)
		down := string(terminal.KeyArrowDown)
		// secret is listed as unavailable, not offered; api is pre-checked.
		// Check platform, uncheck api, check style, accept.
		_, err = c.Send(" " + down + " " + down + " \r")
		step(err)
		_, err = c.ExpectString("Install style?")
		step(err)
		_, err = c.SendLine("y")
		step(err)
		_, err = c.ExpectEOF()
		step(err)
	}()

	p := surveyprompt.New(c.Tty(), c.Tty(), c.Tty(), surveyprompt.Options{UTF8: true})
	got, err := p.MultiSelect("Which contexts?", choices, []int{1})
	if err != nil {
		t.Fatalf("MultiSelect: %v", err)
	}
	ok, err := p.Confirm("Install style?", false)
	if err != nil {
		t.Fatalf("Confirm: %v", err)
	}
	c.Tty().Close()
	<-done
	if scriptErr != nil {
		t.Fatalf("terminal script: %v\nscreen:\n%s", scriptErr, expect.StripTrailingEmptyLines(term.String()))
	}
	if !reflect.DeepEqual(got, []int{0, 3}) {
		t.Errorf("selected %v, want [0 3] (platform and style; api unchecked)", got)
	}
	if !ok {
		t.Error("confirmation not read as yes")
	}
	screen := term.String()
	for _, want := range []string{"Install style? Yes", "Which contexts? platform [ops], style"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
}

// console opens a pseudo-terminal of cols×rows with a vt10x screen on it.
func console(t *testing.T, cols, rows int) (*expect.Console, vt10x.Terminal) {
	t.Helper()
	pty, tty, err := pseudotty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	term := vt10x.New(vt10x.WithWriter(tty), vt10x.WithSize(cols, rows))
	// The timeout only bounds a broken test; no assertion depends on time.
	c, err := expect.NewConsole(expect.WithStdin(pty), expect.WithStdout(term), expect.WithCloser(pty, tty), expect.WithDefaultTimeout(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	// The prompts' terminal is the console's own (its Tty).
	if err := pseudotty.Setsize(c.Tty(), &pseudotty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		t.Fatal(err)
	}
	return c, term
}

// sendRaw sends keys once the prompt reads the terminal raw: survey draws
// a prompt before it leaves the line discipline's cooked mode, where
// Ctrl-D and Ctrl-C are the kernel's, not keys. It waits for that state,
// not for a time.
func sendRaw(c *expect.Console, keys string) error {
	fd := int(c.Tty().Fd())
	for deadline := time.Now().Add(30 * time.Second); ; {
		st, err := unix.IoctlGetTermios(fd, getTermios)
		if err != nil {
			return err
		}
		if st.Lflag&unix.ICANON == 0 {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("the prompt never set the terminal raw")
		}
		runtime.Gosched()
	}
	_, err := c.Send(keys)
	return err
}

// TestCancelKeys: Ctrl-D (end of input) and Esc at a prompt cancel, as
// Ctrl-C does. survey reads Ctrl-D as Enter: at "Install …? (Y/n)" it
// installed. It reads Esc as a switch to a "vim mode" it shows nowhere
// (j and k then move the cursor instead of filtering), and the prompt
// stayed (wiz20).
func TestCancelKeys(t *testing.T) {
	t.Parallel()
	for _, key := range []struct{ name, send string }{{"ctrl-d", "\x04"}, {"esc", "\x1b"}} {
		for _, prompt := range []string{"confirm", "multiselect"} {
			t.Run(key.name+"/"+prompt, func(t *testing.T) {
				t.Parallel()
				cancels(t, prompt, key.send)
			})
		}
	}
}

func cancels(t *testing.T, prompt, key string) {
	c, term := console(t, 100, 30)
	done := make(chan error, 1)
	go func() {
		_, err := c.ExpectString("Go on?")
		if err == nil {
			err = sendRaw(c, key)
		}
		if err == nil {
			_, err = c.ExpectEOF()
		}
		if err != nil {
			// A prompt that did not end (the key was taken for
			// something else) fails once expect's bound is up: Enter
			// ends it (closing the tty does not end a blocked read).
			c.Send("\r")
		}
		done <- err
	}()
	p := surveyprompt.New(c.Tty(), c.Tty(), c.Tty(), surveyprompt.Options{UTF8: true})
	var err error
	var got any
	if prompt == "confirm" {
		got, err = p.Confirm("Go on?", true)
	} else {
		got, err = p.MultiSelect("Go on?", []wizard.Choice{{Name: "a", Installed: true}, {Name: "b"}}, []int{0})
	}
	c.Tty().Close()
	<-done
	if !errors.Is(err, wizard.ErrInterrupted) {
		t.Fatalf("key %q: got %v, %v; want wizard.ErrInterrupted\nscreen:\n%s", key, got, err, expect.StripTrailingEmptyLines(term.String()))
	}
}

// TestSmallTerminalKeepsQuestionOnScreen: on a terminal of 60×20, fifty
// contexts with long descriptions show the question and the cursor; a
// page of 15 options of three wrapped lines each pushed both off the top.
func TestSmallTerminalKeepsQuestionOnScreen(t *testing.T) {
	t.Parallel()
	// 60×20 fails when options wrap; 60×12 when the page is survey's
	// 15 options whatever the height (review19d: one-line options alone
	// fit 15 under a question of three lines in 20 rows).
	for _, rows := range []int{20, 12} {
		t.Run(fmt.Sprint(rows), func(t *testing.T) {
			t.Parallel()
			smallTerminal(t, 60, rows)
		})
	}
}

func smallTerminal(t *testing.T, cols, rows int) {
	c, term := console(t, cols, rows)
	choices := longChoices()
	done := make(chan error, 1)
	go func() {
		// Cancel as soon as the list is being drawn; the whole first
		// frame is on the screen once the prompt has returned.
		_, err := c.ExpectString("ctx01-with")
		if err == nil {
			err = sendRaw(c, "\x03")
		}
		if err != nil {
			c.Tty().Close() // unblock the prompt under test
		}
		done <- err
	}()
	p := surveyprompt.New(c.Tty(), c.Tty(), c.Tty(), surveyprompt.Options{UTF8: true})
	_, err := p.MultiSelect("Which contexts?", choices, nil)
	cancelled(t, c, done, err)
	questionAndCursor(t, term.String())
}

// cancelled fails t unless the terminal script sent to done succeeded
// and the prompt returned err, a cancel; then it closes the terminal and
// reads what is left of the screen.
func cancelled(t *testing.T, c *expect.Console, done <-chan error, err error) {
	t.Helper()
	if serr := <-done; serr != nil {
		t.Fatalf("terminal script: %v", serr)
	}
	if !errors.Is(err, wizard.ErrInterrupted) {
		t.Fatalf("MultiSelect: %v", err)
	}
	c.Tty().Close()
	if _, err := c.ExpectEOF(); err != nil {
		t.Fatal(err)
	}
}

// longChoices are fifty contexts with long descriptions.
func longChoices() []wizard.Choice {
	var choices []wizard.Choice
	for i := range 50 {
		choices = append(choices, wizard.Choice{Name: fmt.Sprintf("ctx%02d-with-a-rather-long-name", i), Tags: []string{"ops"},
			Description: strings.Repeat("a long description of what is inside ", 4) + fmt.Sprint(i)})
	}
	return choices
}

// questionAndCursor fails t unless the screen shows the question of
// longChoices' list and its cursor on the first option.
func questionAndCursor(t *testing.T, screen string) {
	t.Helper()
	var question, cursor bool
	for _, line := range strings.Split(screen, "\n") {
		question = question || strings.HasPrefix(line, "? Which contexts?")
		cursor = cursor || strings.HasPrefix(line, "> [ ]  ctx00-with")
	}
	if !question || !cursor {
		t.Errorf("question on screen: %v, cursor on screen: %v\nscreen:\n%s", question, cursor, expect.StripTrailingEmptyLines(screen))
	}
}

// TestASCIITerminal: in a locale without UTF-8 (LANG=C: Options.UTF8
// false) the screen has no ✓, ✗, — or …: the unavailable mark, the cut of
// a long line and the spinner are ASCII (wiz20).
func TestASCIITerminal(t *testing.T) {
	t.Parallel()
	c, term := console(t, 60, 20)
	choices := []wizard.Choice{
		{Name: "secret", Description: "Runbooks", Disabled: "authentication required"},
		{Name: "platform", Description: strings.Repeat("how we run services ", 6)},
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.ExpectString("Which contexts?")
		if err == nil {
			_, err = c.ExpectString("platform")
		}
		if err == nil {
			err = sendRaw(c, "\x03")
		}
		if err != nil {
			c.Send("\r")
		}
		done <- err
	}()
	p := surveyprompt.New(c.Tty(), c.Tty(), c.Tty(), surveyprompt.Options{UTF8: false})
	p.Spinner("Checking access")(false, "1 of 2 contexts cannot be read")
	_, err := p.MultiSelect("Which contexts?", choices, nil)
	cancelled(t, c, done, err)
	screen := expect.StripTrailingEmptyLines(term.String())
	for _, want := range []string{"x 1 of 2 contexts cannot be read", "x secret - cannot be installed: authentication required", "service..."} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.ContainsFunc(screen, func(r rune) bool { return r > 127 }) {
		t.Errorf("screen has non-ASCII characters:\n%s", screen)
	}
}

// TestResizeDuringList: a terminal made smaller while the list is up
// (100×30 to 60×12) gets a list drawn again for the new size: the page
// fits under the question and each line is cut to the new width. survey
// kept the page and the cuts of the size it started with, so the
// question went off the top (wiz20). Not parallel: the resize is a
// SIGWINCH to this process, which every list on screen would take.
func TestResizeDuringList(t *testing.T) {
	c, term := console(t, 100, 30)
	choices := longChoices()
	done := make(chan error, 1)
	go func() {
		_, err := c.ExpectString("ctx01-with")
		if err == nil {
			err = pseudotty.Setsize(c.Tty(), &pseudotty.Winsize{Cols: 60, Rows: 12})
		}
		if err == nil {
			term.Resize(60, 12)
			err = unix.Kill(os.Getpid(), unix.SIGWINCH)
		}
		if err == nil {
			// The descriptions cut for 60 columns: the list drawn again.
			_, err = c.ExpectString("descri…")
		}
		// Cancel; the whole frame is on the screen once the prompt has
		// returned. (Also when the list was not drawn again: the test
		// then fails on the script's error.)
		if serr := sendRaw(c, "\x03"); err == nil {
			err = serr
		}
		done <- err
	}()
	p := surveyprompt.New(c.Tty(), c.Tty(), c.Tty(), surveyprompt.Options{UTF8: true})
	_, err := p.MultiSelect("Which contexts?", choices, nil)
	serr := <-done
	c.Tty().Close()
	c.ExpectEOF()
	screen := expect.StripTrailingEmptyLines(term.String())
	if serr != nil {
		t.Fatalf("terminal script: %v\nscreen:\n%s", serr, screen)
	}
	if !errors.Is(err, wizard.ErrInterrupted) {
		t.Fatalf("MultiSelect: %v", err)
	}
	questionAndCursor(t, screen)
}
