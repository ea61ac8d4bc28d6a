package indexer

import "testing"

// TestOnlyCommonWords: the rule ctx search asks without an index is
// Unmatched's common (TestUnmatchedCommonWords checks that on an index).
func TestOnlyCommonWords(t *testing.T) {
	for q, want := range map[string]bool{
		"the of and": true, "how do I": true, "How do I?": true,
		"how do I roll back": false, `"how do I"`: false, "": false, "rollout": false,
		"package:x the": true,
		// review23-chunk23: exclusions alone are words as written
		// (queryOf), as Search reads them; with a filter, exclusions.
		"-the": true, "-the package:x": false,
	} {
		if got := OnlyCommonWords(Query{Text: q}); got != want {
			t.Errorf("OnlyCommonWords(%q) = %v, want %v", q, got, want)
		}
	}
}

func BenchmarkOnlyCommonWords(b *testing.B) {
	for b.Loop() {
		OnlyCommonWords(Query{Text: "how do I configure the registry mirror"})
	}
}
