// Package suggest owns the typo-suggestion rule: cobra's, with a distance
// of two. A name is suggested for what was typed when it is within
// Distance letters of it (Levenshtein, ignoring case) or starts with it
// (when MinPrefix letters or more were typed); at most Max, the closest
// first.
// The CLI's commands use the rule through cobra itself (cmd/ctx's
// usageArgs sets SuggestionsMinimumDistance to Distance); a value of a
// known set (the query syntax's kind:, a --kind flag, an indexed
// package) through For (several typed together: ForAll), and every error's "(did you mean …?)" clause is
// Hint's or Phrase's.
package suggest

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// Distance is how many letters a typo may be from the name it means.
const Distance = 2

// Max is how many names For answers and Phrase names at most: a typo
// against thousands of tags is a short error, not a list of them all.
const Max = 5

// MinPrefix is the shortest typed value whose prefix matches are
// suggested: "" or "t" starts most names, so shorter ones get only the
// names within Distance.
const MinPrefix = 3

// For returns the names that typed may be a typo of by cobra's rule for a
// mistyped command (Command.SuggestionsFor): the closest first (by edit
// distance; a name typed starts has the distance of the letters it adds),
// then in names' order, at most Max, and without prefix-only matches when
// typed is shorter than MinPrefix. A name may hold spaces or any
// character: cobra would keep a command's first word (Command.Name), so
// spaces are renamed, in names and typed alike, to a control byte none of
// them holds, which changes neither a distance nor a prefix.
func For(typed string, names []string) []string {
	sep := byte(1)
	for ; sep < ' '; sep++ {
		if !strings.Contains(typed, string(sep)) && !slices.ContainsFunc(names, func(n string) bool { return strings.IndexByte(n, sep) >= 0 }) {
			break
		}
	}
	if sep == ' ' {
		return nil // every control byte is in use: no suggestion rather than a wrong one
	}
	enc := strings.NewReplacer(" ", string(sep))
	et := enc.Replace(typed)
	c := &cobra.Command{}
	for _, n := range names {
		c.AddCommand(&cobra.Command{Use: enc.Replace(n), Run: func(*cobra.Command, []string) {}})
	}
	// A negative distance leaves cobra's prefix rule alone; a name typed
	// starts is as far from it as the letters it adds.
	dist := map[string]int{}
	prefix := map[string]bool{}
	c.SuggestionsMinimumDistance = -1
	for _, n := range c.SuggestionsFor(et) {
		prefix[n] = true
		dist[n] = utf8.RuneCountInString(strings.ToLower(n)) - utf8.RuneCountInString(strings.ToLower(et))
	}
	for d := Distance; d >= 0; d-- {
		c.SuggestionsMinimumDistance = d
		for _, n := range c.SuggestionsFor(et) {
			if !prefix[n] {
				dist[n] = d
			}
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		d, ok := dist[enc.Replace(n)]
		if !ok || (d > Distance && utf8.RuneCountInString(typed) < MinPrefix) || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	slices.SortStableFunc(out, func(a, b string) int { return dist[enc.Replace(a)] - dist[enc.Replace(b)] })
	if len(out) > Max {
		out = out[:Max]
	}
	return out
}

// Hint is the clause an error about typed adds when For finds names it
// may be a typo of: " (did you mean A or B?)"; "" when it finds none.
func Hint(typed string, names []string) string {
	return Phrase(For(typed, names))
}

// Phrase is Hint's clause for suggestions found otherwise (cobra's for a
// command): " (did you mean A or B?)" naming the first Max, or "" for none.
func Phrase(suggestions []string) string {
	if len(suggestions) == 0 {
		return ""
	}
	if len(suggestions) > Max {
		suggestions = suggestions[:Max]
	}
	// A name with a space is quoted, so "a or b" reads as one name.
	shown := make([]string, len(suggestions))
	for i, n := range suggestions {
		shown[i] = n
		if strings.ContainsAny(n, " \t") {
			shown[i] = strconv.Quote(n)
		}
	}
	return " (did you mean " + strings.Join(shown, " or ") + "?)"
}

// ForAll is For of several typed values that one error names together
// (unknown tags of one filter): the closest suggestion of each, in the
// order typed, then the second of each, and so on, without repeats, at
// most Max. Each typo keeps its best match however many the one before it
// has; git and cobra name only the first unknown command or option, so
// there is no other rule to follow.
func ForAll(typed []string, names []string) []string {
	each := make([][]string, len(typed))
	for i, t := range typed {
		each[i] = For(t, names)
	}
	var out []string
	for rank := 0; rank < Max && len(out) < Max; rank++ {
		for _, s := range each {
			if rank < len(s) && len(out) < Max && !slices.Contains(out, s[rank]) {
				out = append(out, s[rank])
			}
		}
	}
	return out
}
