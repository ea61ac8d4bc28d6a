// Package surveyprompt is the terminal Prompter of the setup wizard, on
// github.com/AlecAivazis/survey/v2. It is the only package of ctx that
// imports survey.
package surveyprompt

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/AlecAivazis/survey/v2"
	"github.com/AlecAivazis/survey/v2/terminal"
	"golang.org/x/term"
	"golang.org/x/text/width"

	"github.com/ctx-dev/ctx/wizard"
)

// Prompter draws prompts on a terminal.
type Prompter struct {
	in  terminal.FileReader
	out terminal.FileWriter
	err io.Writer
}

var _ wizard.Prompter = (*Prompter)(nil)

// New returns a Prompter reading keys from in and drawing on out (stderr,
// normally: prompts are not results). errOut receives survey's own errors.
func New(in terminal.FileReader, out terminal.FileWriter, errOut io.Writer) *Prompter {
	return &Prompter{in: eofCancels{in}, out: out, err: errOut}
}

// eofCancels reads keys from a terminal with Ctrl-D (end of input) turned
// into Ctrl-C: survey takes Ctrl-D for Enter, so at "Install …? (Y/n)" it
// answered the default, yes; a user who ends the input means to stop.
type eofCancels struct{ terminal.FileReader }

func (r eofCancels) Read(p []byte) (int, error) {
	n, err := r.FileReader.Read(p)
	for i, b := range p[:n] {
		if b == terminal.KeyEndTransmission {
			p[i] = terminal.KeyInterrupt
		}
	}
	return n, err
}

func (p *Prompter) stdio() survey.AskOpt { return survey.WithStdio(p.in, p.out, p.err) }

func mapErr(err error) error {
	if errors.Is(err, terminal.InterruptErr) {
		return wizard.ErrInterrupted
	}
	return err
}

// label is how a choice appears in the list.
func label(c wizard.Choice) string {
	s := c.Name
	if len(c.Tags) > 0 {
		s += " [" + strings.Join(c.Tags, ", ") + "]"
	}
	if c.Installed {
		s += " (installed)"
	}
	return s
}

// MultiSelect shows the enabled choices with their description and tags,
// pre-checked as selected says. Disabled choices are listed above the prompt
// with why they cannot be chosen, and are not in the list (survey has no
// disabled options, and a validator would reset the user's checks on retry).
func (p *Prompter) MultiSelect(message string, choices []wizard.Choice, selected []int) ([]int, error) {
	var opts []string
	var index []int // option -> choice index
	var defaults []int
	pre := map[int]bool{}
	for _, i := range selected {
		pre[i] = true
	}
	for i, c := range choices {
		if c.Disabled != "" {
			fmt.Fprintf(p.out, "  ✗ %s — cannot be installed: %s\n", c.Name, c.Disabled)
			continue
		}
		if pre[i] {
			defaults = append(defaults, len(opts))
		}
		opts = append(opts, label(c))
		index = append(index, i)
	}
	if len(opts) == 0 {
		return nil, errors.New("none of the registry's contexts can be read with your credentials: check your git credentials and try again")
	}
	cols, rows := p.size()
	pageSize := pageFor(rows, cols, message)
	// Each option on one line (the last column left free), so that
	// survey's page is what the screen shows.
	room := cols - 1 - optionIndent
	if cols > 0 {
		for k := range opts {
			opts[k] = clip(opts[k], room)
		}
	}
	prompt := &survey.MultiSelect{
		Message: message,
		Options: opts,
		Default: defaults,
		Help:    "space toggles, enter accepts; unchecking an installed context removes it",
		Description: func(label string, i int) string {
			d := choices[index[i]].Description
			if cols <= 0 {
				return d
			}
			// What is left of the line after the option and " - ".
			return clip(d, room-textWidth(label)-3)
		},
		PageSize: pageSize,
	}
	var answer []int
	if err := survey.AskOne(prompt, &answer, p.stdio()); err != nil {
		return nil, mapErr(err)
	}
	out := make([]int, len(answer))
	for k, a := range answer {
		out[k] = index[a]
	}
	sort.Ints(out)
	return out, nil
}

// Layout of survey's multi-select: the question line with its key help,
// then one option a line, "> [x]  " before each.
const (
	maxPageSize  = 15
	optionIndent = 7
	helpLine     = "  [Use arrows to move, space to select, <right> to all, <left> to none, type to filter, ? for more help]"
)

// size is the terminal's width and height; 0, 0 when unknown.
func (p *Prompter) size() (cols, rows int) {
	cols, rows, err := term.GetSize(int(p.out.Fd()))
	if err != nil {
		return 0, 0
	}
	return cols, rows
}

// pageFor is how many options fit a terminal of rows × cols under the
// question (and its help, wrapped at cols) with the cursor's line below
// them: the question and the cursor must stay on screen, and survey's page
// of 15 pushed them off a terminal of 20 rows.
func pageFor(rows, cols int, message string) int {
	if rows <= 0 || cols <= 0 {
		return maxPageSize
	}
	header := (textWidth("? "+message+helpLine) + cols - 1) / cols
	return min(maxPageSize, max(1, rows-header-1))
}

// clip cuts s to n columns, "…" last when cut ("" when n < 2: no room).
func clip(s string, n int) string {
	if textWidth(s) <= n {
		return s
	}
	if n < 2 {
		return ""
	}
	w := 0
	for i, r := range s {
		rw := runeWidth(r)
		if w+rw > n-1 {
			return s[:i] + "…"
		}
		w += rw
	}
	return s
}

// textWidth is the columns s takes on a terminal (East Asian wide and
// full-width characters take two).
func textWidth(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

// A combining mark (é written as e and U+0301) or a format character
// (a zero-width joiner) takes none, so a cut never leaves a mark without
// its character.
func runeWidth(r rune) int {
	if unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) {
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// Confirm asks a yes/no question.
func (p *Prompter) Confirm(message string, def bool) (bool, error) {
	var ok bool
	if err := survey.AskOne(&survey.Confirm{Message: message, Default: def}, &ok, p.stdio()); err != nil {
		return false, mapErr(err)
	}
	return ok, nil
}

// Spinner draws a spinner on out until stop is called.
func (p *Prompter) Spinner(message string) func(final string) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		frames := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			fmt.Fprintf(p.out, "\r\x1b[K%s %s", frames[i%len(frames)], message)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	var once sync.Once
	return func(final string) {
		once.Do(func() {
			close(done)
			wg.Wait()
			fmt.Fprint(p.out, "\r\x1b[K")
			if final != "" {
				fmt.Fprintf(p.out, "✓ %s\n", final)
			}
		})
	}
}
