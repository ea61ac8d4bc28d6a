package naming

import (
	"strings"
	"testing"
)

func TestValidAlias(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"api": true, "A1": true, "a.b_c-d": true, "9": true, strings.Repeat("x", 64): true,
		"": false, ".": false, "..": false, ".git": false, "_a": false, "-a": false, "a/b": false, `a\b`: false,
		"a b": false, "a%2f": false, "ä": false, "a\x00": false, strings.Repeat("x", 65): false,
		// Windows: a trailing dot is dropped, and device names open devices.
		"docs.": false, "a..": false, "con": false, "CON": false, "Aux": false, "nul.md": false, "com1": false, "lpt9.txt": false, "prn.a.b": false,
		"com10": true, "console": true, "con-2": true, "nul-2.md": true, "acon": true, "lpt": true,
	} {
		if got := ValidAlias(s); got != want {
			t.Errorf("ValidAlias(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestAliasFrom(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Long Name ", 10) // 100 bytes
	for in, want := range map[string]string{
		"Platform Guide": "platform-guide", "API  v2!": "api-v2", "docs.go": "docs.go", "---": "context",
		"Ünïcode": "n-code", "": "context", "_internal": "internal", "__init__ docs": "init__-docs",
		".hidden": "hidden", "My Docs": "my-docs", "a--b": "a--b", "v1.": "v1",
		"CON": "con-2", "nul.md": "nul-2.md", "Aux!": "aux-2", "com1.": "com1-2", "console": "console",
		long:                           strings.TrimRight(strings.ToLower(strings.ReplaceAll(long, " ", "-"))[:64], "-"),
		strings.Repeat("x", 63) + ".y": strings.Repeat("x", 63),
	} {
		if got := AliasFrom(in); got != want {
			t.Errorf("AliasFrom(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAliasKey(t *testing.T) {
	t.Parallel()
	if AliasKey("DOCS") != AliasKey("docs") || AliasKey("Api-2") != AliasKey("api-2") || AliasKey("a") == AliasKey("b") {
		t.Error("AliasKey must fold case, and only case")
	}
}

func TestNumberedAlias(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		alias string
		n     int
		want  string
	}{
		{"api", 2, "api-2"},
		{strings.Repeat("x", 64), 2, strings.Repeat("x", 62) + "-2"},
		{strings.Repeat("x", 61) + "-ab", 10, strings.Repeat("x", 61) + "-10"},
		{strings.Repeat("x", 60) + "----", 2, strings.Repeat("x", 60) + "-2"},
	} {
		if got := NumberedAlias(tc.alias, tc.n); got != tc.want || !ValidAlias(got) {
			t.Errorf("NumberedAlias(%q, %d) = %q (valid %v), want %q", tc.alias, tc.n, got, ValidAlias(got), tc.want)
		}
	}
}

// FuzzAliasFrom: whatever the name, the derived alias is valid, and so are
// its numbered alternatives.
func FuzzAliasFrom(f *testing.F) {
	for _, s := range []string{"", "Platform Guide", "_x", "---", "Ünïcode", strings.Repeat("ab ", 40), strings.Repeat("é", 70), ".git", "a\x00b"} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		a := AliasFrom(s)
		if !ValidAlias(a) {
			t.Fatalf("AliasFrom(%q) = %q, not a valid alias", s, a)
		}
		if AliasFrom(a) != a {
			t.Fatalf("AliasFrom(%q) = %q, but AliasFrom(%q) = %q", s, a, a, AliasFrom(a))
		}
		if n < 2 {
			n = 2 - n%1000
		}
		if b := NumberedAlias(a, n); !ValidAlias(b) || b == a {
			t.Fatalf("NumberedAlias(%q, %d) = %q", a, n, b)
		}
	})
}

func TestShortRev(t *testing.T) {
	for _, c := range []struct {
		rev  string
		n    int
		want string
	}{
		{"0123456789abcdef0123456789abcdef01234567", 7, "0123456"},
		{"0123456789abcdef0123456789abcdef01234567", 12, "0123456789ab"},
		{"sha256:00112233445566778899aabbccddeeff", 7, "sha256:001122334455"},
		{"sha256:0011", 12, "sha256:0011"},
		{"abc", 7, "abc"},
		{"", 7, ""},
	} {
		if got := ShortRev(c.rev, c.n); got != c.want {
			t.Errorf("ShortRev(%q, %d) = %q, want %q", c.rev, c.n, got, c.want)
		}
	}
}

// TestUniqueAlias: a free alias is kept; a taken one, also in another
// case (one folder on macOS and Windows), gets the next free number; the
// result is marked taken.
func TestUniqueAlias(t *testing.T) {
	taken := map[string]bool{AliasKey("docs"): true, AliasKey("Docs-2"): true}
	if got := UniqueAlias("guide", taken); got != "guide" {
		t.Errorf("UniqueAlias(guide) = %q", got)
	}
	if got := UniqueAlias("DOCS", taken); got != "DOCS-3" {
		t.Errorf("UniqueAlias(DOCS) = %q, want DOCS-3", got)
	}
	if got := UniqueAlias("docs", taken); got != "docs-4" {
		t.Errorf("UniqueAlias(docs) again = %q, want docs-4", got)
	}
	if !taken[AliasKey("guide")] {
		t.Error("guide not marked taken")
	}
}
