// Package termenv says what the user's terminal can show, from the
// environment: whether it moves the cursor (TERM) and whether it takes
// UTF-8 (the locale). It is the one owner of these two rules: the prompts,
// the spinners and the progress bars of cmd/ctx all ask it.
package termenv

import (
	"runtime"
	"strings"
)

// Getenv reads one variable of the environment ("" when unset).
type Getenv func(key string) string

// Dumb reports whether the terminal cannot move the cursor: TERM=dumb
// (an Emacs shell, some editors' panes), or TERM unset outside Windows,
// as git's is_terminal_dumb (`env -i`, a service's pty). On Windows TERM
// is normally unset and the console draws survey's prompts itself.
func Dumb(getenv Getenv) bool { return dumb(getenv, runtime.GOOS) }

func dumb(getenv Getenv, goos string) bool {
	switch getenv("TERM") {
	case "dumb":
		return true
	case "":
		return goos != "windows"
	}
	return false
}

// Why is what Dumb found, for a note ("TERM=dumb", "TERM is not set").
func Why(getenv Getenv) string {
	if t := getenv("TERM"); t != "" {
		return "TERM=" + t
	}
	return "TERM is not set"
}

// UTF8 reports whether the terminal takes UTF-8 (✓ ✗ … and a braille
// spinner): the locale's character set, from the first of LC_ALL,
// LC_CTYPE and LANG that is set (POSIX's order), names UTF-8. None set is
// the C locale, ASCII. On Windows the console is written in UTF-16 (Go's
// os.File does), so any character shows.
func UTF8(getenv Getenv) bool { return utf8(getenv, runtime.GOOS) }

func utf8(getenv Getenv, goos string) bool {
	if goos == "windows" {
		return true
	}
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := getenv(k); v != "" {
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
	Ellipsis string   // where a line is cut
	Frames   []string // a spinner's frames
}

var (
	unicodeSymbols = Symbols{OK: "✓", Fail: "✗", Dash: "—", Ellipsis: "…",
		Frames: []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}}
	asciiSymbols = Symbols{OK: "+", Fail: "x", Dash: "-", Ellipsis: "...",
		Frames: []string{"|", "/", "-", `\`}}
)

// SymbolsFor is the terminal's symbols: Unicode when it takes UTF-8
// (UTF8), else ASCII.
func SymbolsFor(utf8 bool) Symbols {
	if utf8 {
		return unicodeSymbols
	}
	return asciiSymbols
}
