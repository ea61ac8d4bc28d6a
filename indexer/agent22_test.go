package indexer

import "testing"

// TestOnlyCommonWords: the rule ctx search asks without an index is
// Unmatched's common (TestUnmatchedCommonWords checks that on an index).
func TestOnlyCommonWords(t *testing.T) {
	for q, want := range map[string]bool{
		"the of and": true, "how do I": true, "How do I?": true,
		"how do I roll back": false, `"how do I"`: false, "": false, "rollout": false,
		"package:x the": true,
	} {
		if got := OnlyCommonWords(q); got != want {
			t.Errorf("OnlyCommonWords(%q) = %v, want %v", q, got, want)
		}
	}
}

func BenchmarkOnlyCommonWords(b *testing.B) {
	for b.Loop() {
		OnlyCommonWords("how do I configure the registry mirror")
	}
}
