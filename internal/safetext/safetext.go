// Package safetext makes text that ctx did not choose safe to show: file
// names from a repository, aliases, titles and summaries from front matter,
// registry names, descriptions and tags, refs, URLs and paths typed by a
// user, messages from a server. It owns two rules:
//
//   - Escape: such text never reaches a terminal, a log or INDEX.md with a
//     byte that a terminal or an editor would act on instead of showing.
//   - Quote and Clip: an error message quotes at most MaxQuote bytes of any
//     one input value, however long the value is.
//
// # What is escaped
//
// Escape replaces, and leaves every other character as it is (letters of
// any script, accents, CJK, emoji and their joiners, punctuation, spaces):
//
//   - the C0 controls U+0000–U+001F and DEL U+007F, as \a \b \t \n \v \f \r
//     for those that have a Go short form and \xHH for the others (ESC is
//     \x1b, NUL \x00);
//   - the C1 controls U+0080–U+009F, as \u0080 … \u009f;
//   - the Unicode bidirectional controls (U+061C, U+200E, U+200F,
//     U+202A–U+202E, U+2066–U+2069: the Bidi_Control property), which
//     reorder what follows them on screen, and the line and paragraph
//     separators U+2028 and U+2029, as \uHHHH (U+202E is \u202e);
//   - each byte that is not part of valid UTF-8, as \xHH.
//
// The hex digits are lower-case. A backslash is left as it is, so that a
// Windows path reads as usual; a name that literally contains the text \x1b
// therefore looks like one that contains ESC. Where the exact bytes matter,
// ctx's --json output has them (encoding/json escapes control characters).
//
// Quote escapes the same characters and, in addition, the backslash and the
// double quote (\\ and \"), inside double quotes: for ordinary text its
// result is what fmt's %q gives.
package safetext

import (
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxQuote is how many bytes of one input value an error message quotes at
// most (escapes included), before "…(N more bytes)".
const MaxQuote = 200

// Escape returns s with the characters listed in the package documentation
// replaced by visible Go-style escapes. Text that has none of them is
// returned unchanged.
func Escape(s string) string {
	if clean(s, 0) {
		return s
	}
	out, _ := appendEscaped(nil, s, 0, -1)
	return string(out)
}

// Clip returns Escape(s) cut to at most n bytes, never inside a character or
// an escape, followed by "…(N more bytes)" when it was cut, N being the bytes
// of s that are not shown. Use it for a value an error message shows without
// quotes (a URL, a path); n <= 0 means MaxQuote.
func Clip(s string, n int) string {
	if n <= 0 {
		n = MaxQuote
	}
	if len(s) <= n && clean(s, 0) {
		return s
	}
	out, rest := appendEscaped(nil, s, 0, n)
	return string(appendMore(out, rest))
}

// Quote returns s for an error message as fmt's %q would, in double quotes
// with the backslash, the double quote and the characters listed in the
// package documentation escaped, but with at most MaxQuote bytes between the
// quotes: a longer value is cut there and followed by "…(N more bytes)"
// after the closing quote.
func Quote(s string) string {
	out := make([]byte, 0, min(len(s), MaxQuote)+24)
	out = append(out, '"')
	out, rest := appendEscaped(out, s, quote, MaxQuote)
	out = append(out, '"')
	return string(appendMore(out, rest))
}

// MaxLine is how long Text lets one line of a message be.
const MaxLine = 2000

// Text is Escape for a message of several lines, such as an error's whole
// text at the point where it is printed: newlines and tabs are kept, and a
// line longer than MaxLine bytes is cut as Clip cuts. It is the last guard
// for messages built from errors that ctx does not word itself (a library's,
// the operating system's); values ctx quotes are bounded by Quote and Clip.
func Text(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if len(l) <= MaxLine && clean(l, keepTab) {
			continue
		}
		out, rest := appendEscaped(nil, l, keepTab, MaxLine)
		lines[i] = string(appendMore(out, rest))
	}
	return strings.Join(lines, "\n")
}

// ClipPathError returns err with the path of an *fs.PathError at the top of
// it (as os.Open returns) replaced by Clip(path, 0), keeping its Op and Err
// so that errors.Is and errors.As still see what the system said. Other
// errors are returned as they are. Use it where an error that quotes a path
// the user gave is returned as is.
func ClipPathError(err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) || err != error(pe) {
		return err
	}
	if c := Clip(pe.Path, 0); c != pe.Path {
		return &fs.PathError{Op: pe.Op, Path: c, Err: pe.Err}
	}
	return err
}

// QuoteList is Quote of each element, joined by ", ".
func QuoteList(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = Quote(x)
	}
	return strings.Join(q, ", ")
}

func appendMore(out []byte, rest int) []byte {
	if rest == 0 {
		return out
	}
	out = append(out, "…("...)
	out = strconv.AppendInt(out, int64(rest), 10)
	if rest == 1 {
		return append(out, " more byte)"...)
	}
	return append(out, " more bytes)"...)
}

// mode changes what appendEscaped and clean escape.
type mode int

const (
	quote   mode = 1 << iota // also the backslash and the double quote
	keepTab                  // not the tab
)

// needsEscape reports whether the valid rune r is escaped.
func needsEscape(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r == 0x2028, r == 0x2029:
		return true
	case r < 0x061c:
		return false
	}
	return unicode.Is(unicode.Bidi_Control, r)
}

// clean reports whether s needs no escape at all.
func clean(s string, m mode) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '\t' && m&keepTab != 0 {
				i++
				continue
			}
			if c < 0x20 || c == 0x7f || m&quote != 0 && (c == '"' || c == '\\') {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || needsEscape(r) {
			return false
		}
		i += size
	}
	return true
}

// appendEscaped appends the escaped form of s to dst, stopping before the
// character whose escaped form would take the appended bytes over limit
// (limit < 0: no limit). It returns the bytes of s that were not appended.
func appendEscaped(dst []byte, s string, m mode, limit int) ([]byte, int) {
	start := len(dst)
	var buf [utf8.UTFMax * 2]byte
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var piece []byte
		switch {
		case r == utf8.RuneError && size == 1:
			piece = hexByte(buf[:0], 'x', s[i])
		case r == '\t' && m&keepTab != 0:
			piece = append(buf[:0], '\t')
		case m&quote != 0 && (r == '"' || r == '\\'):
			piece = append(buf[:0], '\\', byte(r))
		case r < 0x80 && needsEscape(r):
			piece = shortEscape(buf[:0], byte(r))
		case needsEscape(r):
			piece = append(buf[:0], '\\', 'u')
			piece = appendHex(piece, uint32(r), 4)
		default:
			piece = []byte(s[i : i+size])
		}
		if limit >= 0 && len(dst)-start+len(piece) > limit {
			return dst, len(s) - i
		}
		dst = append(dst, piece...)
		i += size
	}
	return dst, 0
}

func shortEscape(dst []byte, c byte) []byte {
	switch c {
	case '\a':
		return append(dst, `\a`...)
	case '\b':
		return append(dst, `\b`...)
	case '\t':
		return append(dst, `\t`...)
	case '\n':
		return append(dst, `\n`...)
	case '\v':
		return append(dst, `\v`...)
	case '\f':
		return append(dst, `\f`...)
	case '\r':
		return append(dst, `\r`...)
	}
	return hexByte(dst, 'x', c)
}

func hexByte(dst []byte, kind byte, c byte) []byte {
	dst = append(dst, '\\', kind)
	return appendHex(dst, uint32(c), 2)
}

func appendHex(dst []byte, v uint32, digits int) []byte {
	const hex = "0123456789abcdef"
	for shift := (digits - 1) * 4; shift >= 0; shift -= 4 {
		dst = append(dst, hex[v>>uint(shift)&0xf])
	}
	return dst
}

// ShellJoin quotes args for a POSIX shell where needed, for a command a
// message asks the user to paste: a word of plain characters as it is,
// any other in single quotes.
func ShellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,") == "" {
			q[i] = a
		} else {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
