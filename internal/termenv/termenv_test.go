package termenv

import "testing"

func env(kv ...string) Getenv {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestDumb(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  Getenv
		goos string
		want bool
	}{
		{env("TERM", "dumb"), "linux", true},
		{env("TERM", "dumb"), "windows", true},
		{env(), "linux", true},    // unset: git's rule
		{env(), "darwin", true},   // unset: git's rule
		{env(), "windows", false}, // unset is the Windows console
		{env("TERM", "xterm-256color"), "linux", false},
		{env("TERM", "screen"), "linux", false},
	} {
		if got := (Env{c.env, c.goos}).Dumb(); got != c.want {
			t.Errorf("dumb(TERM=%q, %s) = %v, want %v", c.env("TERM"), c.goos, got, c.want)
		}
	}
	if got := (Env{env(), "linux"}).Why(); got != "TERM is not set" {
		t.Errorf("Why(unset) = %q", got)
	}
	if got := (Env{env("TERM", "dumb"), "linux"}).Why(); got != "TERM=dumb" {
		t.Errorf("Why(dumb) = %q", got)
	}
}

func TestUTF8(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  Getenv
		goos string
		want bool
	}{
		{env("LANG", "en_US.UTF-8"), "linux", true},
		{env("LANG", "de_DE.utf8"), "linux", true},
		{env("LANG", "C.UTF-8"), "linux", true},
		{env("LANG", "C"), "linux", false},
		{env("LANG", "POSIX"), "linux", false},
		{env("LANG", "en_US.ISO-8859-1"), "linux", false},
		{env(), "linux", false},                                      // no locale: C
		{env("LANG", "en_US.UTF-8", "LC_ALL", "C"), "linux", false},  // LC_ALL first
		{env("LANG", "C", "LC_CTYPE", "en_US.UTF-8"), "linux", true}, // LC_CTYPE before LANG
		{env("LC_ALL", "", "LANG", "en_US.UTF-8"), "linux", true},    // empty is unset
		{env(), "windows", true},
		{env("LANG", "C"), "windows", true},
	} {
		if got := (Env{c.env, c.goos}).UTF8(); got != c.want {
			t.Errorf("utf8(LC_ALL=%q LC_CTYPE=%q LANG=%q, %s) = %v, want %v", c.env("LC_ALL"), c.env("LC_CTYPE"), c.env("LANG"), c.goos, got, c.want)
		}
	}
}

// TestMarks: text built deep down, with Unicode … and →, is in the
// terminal's marks; in UTF-8 it is left as it is (polish21a).
func TestMarks(t *testing.T) {
	t.Parallel()
	in := "a → b → a; … and 3 more; “quoted” ✓"
	if got := SymbolsFor(true).Marks(in); got != in {
		t.Errorf("UTF-8: %q, want it unchanged", got)
	}
	if got, want := SymbolsFor(false).Marks(in), "a -> b -> a; ... and 3 more; “quoted” ✓"; got != want {
		t.Errorf("ASCII: %q, want %q", got, want)
	}
}

// TestMarksLeaveQuotedNames (round 21's Left): a name quoted in the text
// (safetext.Quote, %q: a file, a ref, a model) is the user's own and is
// shown as it is; only ctx's own marks around it become ASCII. Before,
// "docs/a→b.md" in an error read "docs/a->b.md" under LANG=C, a file that
// does not exist.
func TestMarksLeaveQuotedNames(t *testing.T) {
	t.Parallel()
	ascii := SymbolsFor(false)
	for in, want := range map[string]string{
		`cannot read "docs/a→b.md": … and 2 more`:       `cannot read "docs/a→b.md": ... and 2 more`,
		`"a \"→\" b" → "c…"`:                            `"a \"→\" b" -> "c…"`,
		`model "` + "xx" + `"…(300 more bytes) → retry`: `model "xx"...(300 more bytes) -> retry`,
		`a "stray quote → is no name`:                   `a "stray quote -> is no name`,
		`no quotes → here…`:                             `no quotes -> here...`,
		`"\\" → x`:                                      `"\\" -> x`,
	} {
		if got := ascii.Marks(in); got != want {
			t.Errorf("Marks(%q) = %q, want %q", in, got, want)
		}
	}
}
