package safetext

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"
)

// unsafe matches what must never be in Escape's, Quote's, Clip's output: C0
// controls, DEL, C1 controls, bidi controls, line/paragraph separators.
var unsafe = regexp.MustCompile("[\x00-\x1f\x7f\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")

func TestEscape(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain.md", "plain.md"},
		{"", ""},
		{"日本語 ドキュメント.md", "日本語 ドキュメント.md"},
		{"café 👩‍💻 ✓", "café 👩‍💻 ✓"},
		{`C:\docs\a "b".md`, `C:\docs\a "b".md`},
		{"e\x1b[31mred\a.md", `e\x1b[31mred\a.md`},
		{"a\nb\tc\r", `a\nb\tc\r`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{"c1\u0085\u009b", `c1\u0085\u009b`},
		{"abc\u202etxt.exe", `abc\u202etxt.exe`},
		{"\u2066x\u2069\u200f\u061c", `\u2066x\u2069\u200f\u061c`},
		{"line\u2028sep", `line\u2028sep`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestQuote(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"main", "", `a "b" \c`, "日本語", "x\x1by", "\xff", "tab\there"} {
		if got, want := Quote(s), fmt.Sprintf("%q", s); got != want {
			t.Errorf("Quote(%q) = %s, want %s (as %%q)", s, got, want)
		}
	}
	if got, want := Quote("\u202e"), `"\u202e"`; got != want {
		t.Errorf("Quote(U+202E) = %s, want %s", got, want)
	}
	long := strings.Repeat("a", 100000)
	got := Quote(long)
	if want := `"` + strings.Repeat("a", MaxQuote) + `"…(99800 more bytes)`; got != want {
		t.Errorf("Quote(100000 a) = %.60s… (%d bytes), want %d bytes", got, len(got), len(want))
	}
	// An escape is never cut in half.
	got = Quote(strings.Repeat("\x1b", 100))
	if want := `"` + strings.Repeat(`\x1b`, MaxQuote/4) + `"…(50 more bytes)`; got != want {
		t.Errorf("Quote(100 ESC) = %s, want %s", got, want)
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	if got := Clip("short", 10); got != "short" {
		t.Errorf("Clip(short) = %q", got)
	}
	if got, want := Clip("héllo wörld", 6), "héllo…(7 more bytes)"; got != want {
		t.Errorf("Clip = %q, want %q", got, want)
	}
	if got, want := Clip("ab\x1bcd", 4), `ab…(3 more bytes)`; got != want {
		t.Errorf("Clip = %q, want %q", got, want)
	}
	if got := Clip(strings.Repeat("x", 1000), 0); len(got) > MaxQuote+30 {
		t.Errorf("Clip(1000 x, 0) is %d bytes", len(got))
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	in := "invalid registry:\n\treg.json:3: name \x1b[2J\n" + strings.Repeat("z", 5000)
	got := Text(in)
	want := "invalid registry:\n\treg.json:3: name \\x1b[2J\n" + strings.Repeat("z", MaxLine) + "…(3000 more bytes)"
	if got != want {
		t.Errorf("Text = %.80q…, want %.80q…", got, want)
	}
	if s := "two\nlines\twith tab"; Text(s) != s {
		t.Errorf("Text changed %q to %q", s, Text(s))
	}
}

func TestClipPathError(t *testing.T) {
	t.Parallel()
	_, err := os.Open(strings.Repeat("a", 100000) + "\x1b")
	got := ClipPathError(err)
	if len(got.Error()) > 400 || !errors.Is(got, fs.ErrNotExist) && !errors.Is(got, syscall.ENAMETOOLONG) {
		t.Errorf("ClipPathError = %.100s… (%d bytes)", got, len(got.Error()))
	}
	var pe *fs.PathError
	if !errors.As(got, &pe) || pe.Op != "open" {
		t.Errorf("ClipPathError lost the *fs.PathError: %#v", got)
	}
	if other := errors.New("x"); ClipPathError(other) != other {
		t.Error("ClipPathError changed another error")
	}
}

// FuzzEscape checks the rules of the package documentation on any input:
// no unsafe character survives; text without one is unchanged (and so is
// ordinary text after escaping it again); the output is valid UTF-8; Quote
// and Clip are bounded.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "docs/a.md", "e\x1b[31m\a", "\xff\xfe", "\u202eabc", "日本語\u0085", `a\x1bb`, "\"\\", "👩‍💻\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		for name, out := range map[string]string{"Escape": e, "Quote": Quote(s), "Clip": Clip(s, 50), "Text": Text(s)} {
			if name != "Text" && strings.ContainsAny(out, "\n\t") {
				t.Fatalf("%s(%q) = %q has a newline or tab", name, s, out)
			}
			if loc := unsafe.FindStringIndex(strings.NewReplacer("\n", "", "\t", "").Replace(out)); loc != nil {
				t.Fatalf("%s(%q) = %q keeps an unsafe character at %d", name, s, out, loc[0])
			}
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q is not valid UTF-8", name, s, out)
			}
		}
		if utf8.ValidString(s) && !unsafe.MatchString(s) && e != s {
			t.Fatalf("Escape changed safe text %q to %q", s, e)
		}
		if Escape(e) != e {
			t.Fatalf("Escape is not stable on its output: %q -> %q", e, Escape(e))
		}
		if q := Quote(s); len(q) > MaxQuote+2+len("…( more bytes)")+20 {
			t.Fatalf("Quote is %d bytes", len(q))
		}
		if c := Clip(s, 50); len(c) > 50+len("…( more bytes)")+20 {
			t.Fatalf("Clip(_, 50) is %d bytes", len(c))
		}
	})
}
