package naming

import (
	"strconv"
	"strings"
)

// MaxAlias is the longest alias, in bytes.
const MaxAlias = 64

// fallbackAlias is what AliasFrom gives a name with nothing usable in it.
const fallbackAlias = "context"

// ValidAlias reports whether s can name a package: 1–64 of [A-Za-z0-9._-],
// starting with a letter or digit. An alias is a folder name under
// .context/packages, so nothing else is allowed: no separator, no leading
// dot (".", "..", ".git" and hidden folders are impossible), nothing that
// needs quoting in a shell or a URL.
func ValidAlias(s string) bool {
	if s == "" || len(s) > MaxAlias || !isAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// AliasFrom derives an alias from a name (a registry context's name, a
// folder or a repository's base name). It lower-cases the name (aliases
// that differ only in case are one folder on macOS and Windows), keeps
// [a-z0-9._-], folds each run of other characters into one '-', drops
// everything before the first letter or digit, cuts the result to 64 bytes
// and drops trailing '-' and '.'; when nothing is left it is "context".
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
	s := b.String()
	if len(s) > MaxAlias {
		s = s[:MaxAlias]
	}
	s = strings.TrimRight(s, "-.")
	if s == "" {
		return fallbackAlias
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

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
