// Package suggest owns the typo-suggestion rule: cobra's, with a distance
// of two. A name is suggested for what was typed when it is within
// Distance letters of it (Levenshtein, ignoring case) or starts with it.
// The CLI's commands use the rule through cobra itself (cmd/ctx's
// usageArgs sets SuggestionsMinimumDistance to Distance); a value of a
// known set (the query syntax's kind:, a --kind flag, an indexed
// package) through For, and every error's "(did you mean …?)" clause is
// Hint's or Phrase's.
package suggest

import (
	"strings"

	"github.com/spf13/cobra"
)

// Distance is how many letters a typo may be from the name it means.
const Distance = 2

// For returns the names that typed may be a typo of, in names' order, by
// cobra's rule for a mistyped command (Command.SuggestionsFor).
func For(typed string, names []string) []string {
	c := &cobra.Command{SuggestionsMinimumDistance: Distance}
	for _, n := range names {
		c.AddCommand(&cobra.Command{Use: n, Run: func(*cobra.Command, []string) {}})
	}
	return c.SuggestionsFor(typed)
}

// Hint is the clause an error about typed adds when For finds names it
// may be a typo of: " (did you mean A or B?)"; "" when it finds none.
func Hint(typed string, names []string) string {
	return Phrase(For(typed, names))
}

// Phrase is Hint's clause for suggestions found otherwise (cobra's for a
// command): " (did you mean A or B?)", or "" for none.
func Phrase(suggestions []string) string {
	if len(suggestions) == 0 {
		return ""
	}
	return " (did you mean " + strings.Join(suggestions, " or ") + "?)"
}
