package naming

import (
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// MaxAlias is the longest alias, in bytes.
const MaxAlias = 64

// AliasRule says what ValidAlias accepts, for messages that refuse an
// alias.
const AliasRule = "1-64 letters, digits, '.', '_' or '-', starting with a letter or digit, not ending with '.', and not a Windows device name such as con, aux or nul.md"

// fallbackAlias is what AliasFrom gives a name with nothing usable in it.
const fallbackAlias = "context"

// ValidAlias reports whether s can name a package: 1–64 of [A-Za-z0-9._-],
// starting with a letter or digit and not ending with a dot. An alias is a
// folder name under .context/packages, so nothing else is allowed: no
// separator, no leading dot (".", "..", ".git" and hidden folders are
// impossible), nothing that needs quoting in a shell or a URL, no trailing
// dot (Windows drops it: "docs." is the folder "docs"), and no Windows
// device name (CON, PRN, AUX, NUL, COM1–9, LPT1–9, with or without an
// extension: "nul.md" too), which Windows opens as a device, not a folder.
func ValidAlias(s string) bool {
	if s == "" || len(s) > MaxAlias || !isAlnum(s[0]) || s[len(s)-1] == '.' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return !isDeviceName(s)
}

// AliasKey is what two aliases are compared by: two aliases with the same
// key are one folder on macOS and Windows, whose default file systems
// ignore case ("DOCS" and "docs"), so a project may not have both. For a
// valid alias it is the alias lower-cased.
func AliasKey(alias string) string {
	return FileKey(alias)
}

// FileKey is what two names of files in one folder, or two paths from
// one root, are compared by on a file system that ignores case: the same
// key is the same file on macOS (APFS and HFS+ ignore case and Unicode
// normalisation: "Read.md", "read.md", and "é" composed or not) and
// Windows (case), so one written after the other overwrites it. Lower
// case of the NFC form; the rule is applied on every system, as a
// package's files must be the same on each (own21: an llms.txt's pages
// differing only in case). Git warns of such paths at a checkout on
// such a file system.
func FileKey(p string) string {
	return strings.ToLower(norm.NFC.String(p))
}

// isDeviceName reports whether s, up to its first dot, is a name Windows
// reserves for a device, in any case.
func isDeviceName(s string) bool {
	base, _, _ := strings.Cut(s, ".")
	switch strings.ToLower(base) {
	case "con", "prn", "aux", "nul",
		"com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8", "com9",
		"lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9":
		return true
	}
	return false
}

// AliasFrom derives an alias from a name (a registry context's name, a
// folder or a repository's base name). It lower-cases the name (aliases
// that differ only in case are one folder on macOS and Windows), keeps
// [a-z0-9._-], folds each run of other characters into one '-', drops
// everything before the first letter or digit, cuts the result to 64 bytes
// and drops trailing '-' and '.'; when nothing is left it is "context". A
// Windows device name gets "-2" after its base ("con-2", "nul-2.md").
// ValidAlias(AliasFrom(s)) holds for every s.
func AliasFrom(name string) string {
	var b strings.Builder
	dash := false // the last byte written is '-'
	for _, r := range strings.ToLower(name) {
		switch {
		case r < 0x80 && (isAlnum(byte(r)) || r == '.' || r == '_' || r == '-'):
			if b.Len() == 0 && !isAlnum(byte(r)) {
				continue // an alias starts with a letter or digit
			}
			b.WriteRune(r)
			dash = r == '-'
		case b.Len() > 0 && !dash:
			b.WriteByte('-')
			dash = true
		}
		if b.Len() > MaxAlias {
			break
		}
	}
	s := strings.TrimRight(cut(b.String(), MaxAlias), "-.")
	if s == "" {
		return fallbackAlias
	}
	if isDeviceName(s) { // "con" → "con-2", "nul.md" → "nul-2.md"
		base, ext, _ := strings.Cut(s, ".")
		s = base + "-2"
		if ext != "" {
			s = strings.TrimRight(cut(s+"."+ext, MaxAlias), "-.")
		}
	}
	return s
}

// NumberedAlias is the n-th alternative to alias when alias is taken:
// alias-n, with alias shortened so that the result is still at most 64
// bytes. For a valid alias and n ≥ 2 it is valid and differs from alias.
func NumberedAlias(alias string, n int) string {
	suffix := "-" + strconv.Itoa(n)
	if len(alias)+len(suffix) > MaxAlias {
		alias = strings.TrimRight(alias[:MaxAlias-len(suffix)], "-.")
	}
	return alias + suffix
}

// UniqueAlias returns alias, or when it is taken the first free
// NumberedAlias of it, and marks the result taken. taken holds AliasKey of
// each alias. It is the one rule for an alias that must not collide: setup's
// contexts, refs' fetches and init's project docs.
func UniqueAlias(alias string, taken map[string]bool) string {
	out := alias
	for n := 2; taken[AliasKey(out)]; n++ {
		out = NumberedAlias(alias, n)
	}
	taken[AliasKey(out)] = true
	return out
}

// cut is s cut to at most n bytes.
func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
