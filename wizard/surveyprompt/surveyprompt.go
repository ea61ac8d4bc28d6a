// Package surveyprompt is the terminal Prompter of the setup wizard, on
// github.com/AlecAivazis/survey/v2. It is the only package of ctx that
// imports survey.
package surveyprompt

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/AlecAivazis/survey/v2"
	"github.com/AlecAivazis/survey/v2/terminal"
	"golang.org/x/term"

	"github.com/ctx-dev/ctx/internal/lazyre"
	"github.com/ctx-dev/ctx/internal/spinner"
	"github.com/ctx-dev/ctx/internal/termenv"
	"github.com/ctx-dev/ctx/wizard"
)

// Prompter draws prompts on a terminal.
type Prompter struct {
	in  terminal.FileReader
	out terminal.FileWriter
	err io.Writer
	sym termenv.Symbols
}

var _ wizard.Prompter = (*Prompter)(nil)

// Options are how the terminal draws.
type Options struct {
	// UTF8: the terminal takes UTF-8 (termenv.Env.UTF8); else the marks,
	// the spinner and the cut of a long line are ASCII.
	UTF8 bool
}

// New returns a Prompter reading keys from in and drawing on out (stderr,
// normally: prompts are not results). errOut receives survey's own errors.
func New(in terminal.FileReader, out terminal.FileWriter, errOut io.Writer, o Options) *Prompter {
	return &Prompter{in: cancelKeys{in}, out: out, err: errOut, sym: termenv.SymbolsFor(o.UTF8)}
}

// cancelKeys reads keys from a terminal with Ctrl-D (end of input) and Esc
// turned into Ctrl-C, which cancels:
//   - survey takes Ctrl-D for Enter, so at "Install …? (Y/n)" it answered
//     the default, yes; a user who ends the input means to stop.
//   - survey takes Esc for a switch to "vim mode" (j and k then move
//     instead of filtering), which it shows nowhere and cannot be turned
//     off; a user who presses Esc means to leave, as in fzf or a dialog.
//
// Esc is an escape byte last in what one read returned, the rule survey's
// own reader applies (terminal.RuneReader: nothing buffered after it),
// once the rest of a sequence has had escapeWait to come: an arrow key's
// sequence (ESC [ A) normally arrives in one read, but a slow link (ssh)
// may split it, and its ESC alone would cancel the wizard. What comes in
// that time is returned with the ESC, so survey reads the sequence whole;
// when it is no sequence's rest (not "[" or "O": another Esc, or the
// terminal's answer to survey's cursor query), the ESC was Esc. An ESC
// right before another ESC in one read is Esc as well.
//
// survey asks the terminal where the cursor is (ESC [ 6 n) as a yes/no
// prompt starts reading, and of the read that holds the answer
// (ESC [ row ; col R) it keeps what came before it and drops what came
// after: a key pressed while the terminal answered was lost (flake20: an
// Esc, and the prompt stayed). Keys read after the answer are moved
// before it, where survey keeps them.
type cancelKeys struct{ terminal.FileReader }

// escapeWait is how long an escape byte waits for the rest of its
// sequence before it is Esc: vim's ttimeoutlen in defaults.vim.
const escapeWait = 100 * time.Millisecond

func (r cancelKeys) Read(p []byte) (int, error) {
	n, err := r.FileReader.Read(p)
	escapePairs(p[:n]) // before the last ESC's wait turns it into Ctrl-C
	for n > 0 && p[n-1] == terminal.KeyEscape {
		esc := n - 1
		if err != nil || n == len(p) || !readableWithin(r.Fd(), escapeWait) {
			p[esc] = terminal.KeyInterrupt
			break
		}
		var m int
		m, err = r.FileReader.Read(p[n:])
		n += m
		if m == 0 {
			p[esc] = terminal.KeyInterrupt
			break
		}
		if c := p[esc+1]; c != '[' && c != 'O' {
			p[esc] = terminal.KeyInterrupt
		}
	}
	escapePairs(p[:n]) // and in what the wait brought
	for i, b := range p[:n] {
		if b == terminal.KeyEndTransmission {
			p[i] = terminal.KeyInterrupt
		}
	}
	if at := cursorReport().FindIndex(p[:n]); at != nil && at[1] < n {
		report := slices.Clone(p[at[0]:at[1]])
		copy(p[at[0]:], p[at[1]:n])
		copy(p[n-len(report):n], report)
	}
	return n, err
}

// escapePairs turns an escape byte right before another into Ctrl-C: Esc,
// pressed while survey asks the terminal where the cursor is, comes in one
// read with the answer (ESC, ESC [ row ; col R), and no sequence begins
// ESC ESC.
func escapePairs(p []byte) {
	for i := 0; i+1 < len(p); i++ {
		if p[i] == terminal.KeyEscape && p[i+1] == terminal.KeyEscape {
			p[i] = terminal.KeyInterrupt
		}
	}
}

// cursorReport is a terminal's answer to ESC [ 6 n (survey's dsrPattern).
var cursorReport = lazyre.New(`\x1b\[\d+;\d+R`)

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
			fmt.Fprintf(p.out, "  %s %s %s cannot be installed: %s\n", p.sym.Fail, c.Name, p.sym.Dash, c.Disabled)
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
	// The page and the cut of each line fit the terminal: now, and again
	// when it is resized while the list is up (watchResize).
	full := slices.Clone(opts)
	var room int // columns an option may take; < 0 when the width is unknown
	prompt := &survey.MultiSelect{
		Message: message,
		Options: opts,
		Default: defaults,
		Help:    "space toggles, enter accepts; unchecking an installed context removes it",
		Description: func(label string, i int) string {
			d := choices[index[i]].Description
			if room < 0 {
				return d
			}
			// What is left of the line after the option and " - ".
			return termenv.Clip(d, room-termenv.TextWidth(label)-3, p.sym.Ellipsis)
		},
	}
	fit := func() {
		cols, rows := p.size()
		prompt.PageSize = pageFor(rows, cols, message)
		// Each option on one line (the last column left free), so that
		// survey's page is what the screen shows.
		room = cols - 1 - optionIndent
		if cols <= 0 {
			room = -1
		}
		for k := range full {
			if room < 0 {
				opts[k] = full[k]
			} else {
				opts[k] = termenv.Clip(full[k], room, p.sym.Ellipsis)
			}
		}
	}
	fit()
	in, stop := watchResize(p.in, fit)
	defer stop()
	var answer []int
	if err := survey.AskOne(prompt, &answer, survey.WithStdio(in, p.out, p.err)); err != nil {
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
	header := (termenv.TextWidth("? "+message+helpLine) + cols - 1) / cols
	return min(maxPageSize, max(1, rows-header-1))
}

// Confirm asks a yes/no question.
func (p *Prompter) Confirm(message string, def bool) (bool, error) {
	var ok bool
	if err := survey.AskOne(&survey.Confirm{Message: message, Default: def}, &ok, p.stdio()); err != nil {
		return false, mapErr(err)
	}
	return ok, nil
}

// Spinner draws a spinner on out until stop is called (internal/spinner).
func (p *Prompter) Spinner(message string) func(ok bool, final string) {
	return spinner.Start(p.out, p.sym, message, false).Stop
}
