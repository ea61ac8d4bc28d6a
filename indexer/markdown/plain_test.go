package markdown

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

// Plain skips expressions that cannot match; it must give exactly what
// running all of them does.
func TestPlainMatchesPlainRegexps(t *testing.T) {
	t.Parallel()
	emphRE := regexp.MustCompile(`\*\*|__`)
	plain := func(s string) string {
		s = linkRE.ReplaceAllString(s, "$1")
		s = autoRE.ReplaceAllString(s, "$1")
		s = tagsRE.ReplaceAllString(s, "")
		s = emphRE.ReplaceAllString(s, "")
		return strings.Join(strings.Fields(s), " ")
	}
	const alphabet = "[]()<>*_!/ ab:htps."
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 20000; i++ {
		b := make([]byte, rng.Intn(24))
		for j := range b {
			b[j] = alphabet[rng.Intn(len(alphabet))]
		}
		s := string(b)
		if got, want := Plain(s), plain(s); got != want {
			t.Fatalf("Plain(%q) = %q, want %q", s, got, want)
		}
	}
	for _, s := range []string{"see [the **docs**](https://x) and <https://y> <b>now</b>", "***bold***", "a__b__c"} {
		if got, want := Plain(s), plain(s); got != want {
			t.Errorf("Plain(%q) = %q, want %q", s, got, want)
		}
	}
}
