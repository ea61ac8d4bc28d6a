// Package termenv says what the user's terminal can show, from the
// environment: whether it moves the cursor (TERM) and whether it takes
// UTF-8 (the locale). It is the one owner of these two rules: the prompts,
// the spinners and the progress bars of cmd/ctx all ask it. It also owns
// how many columns a text takes and its cut to fit (TextWidth, Clip): the
// prompts' list and the spinner's line.
package termenv

import (
	"runtime"
	"strings"
	"unicode"

	"golang.org/x/text/width"
)

// Getenv reads one variable of the environment ("" when unset).
type Getenv func(key string) string

// Env is the environment a terminal is described from.
type Env struct {
	Getenv Getenv
	GOOS   string // runtime.GOOS
}

// Of is the environment getenv reads, on this system.
func Of(getenv Getenv) Env { return Env{Getenv: getenv, GOOS: runtime.GOOS} }

// Dumb reports whether the terminal cannot move the cursor: TERM=dumb
// (an Emacs shell, some editors' panes), or TERM unset outside Windows,
// as git's is_terminal_dumb (`env -i`, a service's pty). On Windows TERM
// is normally unset and the console draws survey's prompts itself.
func (e Env) Dumb() bool {
	switch e.Getenv("TERM") {
	case "dumb":
		return true
	case "":
		return e.GOOS != "windows"
	}
	return false
}

// Why is what Dumb found, for a note ("TERM=dumb", "TERM is not set").
func (e Env) Why() string {
	if t := e.Getenv("TERM"); t != "" {
		return "TERM=" + t
	}
	return "TERM is not set"
}

// UTF8 reports whether the terminal takes UTF-8 (✓ ✗ … and a braille
// spinner): the locale's character set, from the first of LC_ALL,
// LC_CTYPE and LANG that is set (POSIX's order), names UTF-8. None set is
// the C locale, ASCII. On Windows the console is written in UTF-16 (Go's
// os.File does), so any character shows.
func (e Env) UTF8() bool {
	if e.GOOS == "windows" {
		return true
	}
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := e.Getenv(k); v != "" {
			// "en_US.UTF-8", "C.UTF-8", "de_DE.utf8", "en_US.UTF-8@euro"
			v = strings.ToLower(v)
			return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
		}
	}
	return false
}

// Symbols are the marks a line on the terminal draws with.
type Symbols struct {
	OK, Fail string   // before a line that says what went well, or not
	Dash     string   // between a name and why
	Ellipsis string   // where a line is cut, or something goes on ("fetching api…")
	Arrow    string   // from one state to the next ("OLD → NEW")
	Frames   []string // a spinner's frames
}

var (
	unicodeSymbols = Symbols{OK: "✓", Fail: "✗", Dash: "—", Ellipsis: "…", Arrow: "→",
		Frames: []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}}
	asciiSymbols = Symbols{OK: "+", Fail: "x", Dash: "-", Ellipsis: "...", Arrow: "->",
		Frames: []string{"|", "/", "-", `\`}}
)

// Marks is text, built where the terminal is not known (an error from
// deep down, a registry's problem), in s's marks: the Unicode ellipsis and
// arrow such text is written with (the form --json and MCP keep) become
// s's Ellipsis and Arrow. Text for a person goes through it on its way to
// the terminal; the rest of the text is left as it is, and so is a quoted
// name in it (a double-quoted run closed by an unescaped quote, as
// safetext.Quote and %q write a file, ref or model): it is the user's own,
// and "a→b.md" written "a->b.md" names a file that does not exist (round
// 21's Left).
func (s Symbols) Marks(text string) string {
	if s.Ellipsis == unicodeSymbols.Ellipsis && s.Arrow == unicodeSymbols.Arrow ||
		!strings.Contains(text, unicodeSymbols.Ellipsis) && !strings.Contains(text, unicodeSymbols.Arrow) {
		return text
	}
	r := strings.NewReplacer(unicodeSymbols.Ellipsis, s.Ellipsis, unicodeSymbols.Arrow, s.Arrow)
	var b strings.Builder
	for text != "" {
		open := strings.IndexByte(text, '"')
		if open < 0 {
			break
		}
		end := quoteEnd(text[open+1:])
		if end < 0 {
			break // a quote never closed quotes nothing
		}
		end += open + 2 // past the closing quote
		b.WriteString(r.Replace(text[:open]))
		b.WriteString(text[open:end])
		text = text[end:]
	}
	b.WriteString(r.Replace(text))
	return b.String()
}

// quoteEnd is the index in t (what follows an opening quote) of the quote
// that closes it, one not escaped by a backslash; -1 when there is none.
func quoteEnd(t string) int {
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// SymbolsFor is the terminal's symbols: Unicode when it takes UTF-8
// (Env.UTF8), else ASCII.
func SymbolsFor(utf8 bool) Symbols {
	if utf8 {
		return unicodeSymbols
	}
	return asciiSymbols
}

// Clip cuts s to n columns, ellipsis last when cut ("" when there is no
// room for a character and the ellipsis).
func Clip(s string, n int, ellipsis string) string {
	if TextWidth(s) <= n {
		return s
	}
	room := n - TextWidth(ellipsis)
	if room < 1 {
		return ""
	}
	w := 0
	for i, r := range s {
		rw := runeWidth(r)
		if w+rw > room {
			return s[:i] + ellipsis
		}
		w += rw
	}
	return s
}

// TextWidth is the columns s takes on a terminal (East Asian wide and
// full-width characters take two).
func TextWidth(s string) int {
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
