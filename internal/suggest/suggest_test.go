package suggest

import (
	"slices"
	"strings"
	"testing"
)

func TestFor(t *testing.T) {
	names := []string{"git", "dir", "https", "changelog", "release", "migration"}
	for _, tc := range []struct {
		typed string
		want  []string
	}{
		{"chnagelog", []string{"changelog"}},  // two letters swapped
		{"Changelogs", []string{"changelog"}}, // case, one letter more
		{"relase", []string{"release"}},
		{"migra", []string{"migration"}}, // a prefix
		{"gti", []string{"git"}},
		{"gir", []string{"git", "dir"}},
		{"blogpost", nil},
		{"wiki", nil},
	} {
		if got := For(tc.typed, names); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("For(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}

// A name with a space (a tag "getting started") is suggested whole, and a
// typed value with a space is compared whole: cobra's Name() keeps a
// command's first word, which For must not inherit.
func TestForNamesWithSpaces(t *testing.T) {
	names := []string{"getting started", "api reference", "gettingstarted"}
	for _, tc := range []struct {
		typed string
		want  []string
	}{
		{"getting", []string{"gettingstarted", "getting started"}}, // closest first
		{"geting started", []string{"getting started", "gettingstarted"}},
		{"api refrence", []string{"api reference"}},
		{"api", []string{"api reference"}},
	} {
		if got := For(tc.typed, names); !slices.Equal(got, tc.want) {
			t.Errorf("For(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}

// For answers at most Max names, the closest first; a typed value shorter
// than MinPrefix gets no prefix-only suggestions ("" would match them all).
func TestForCapsClosestFirst(t *testing.T) {
	var names []string
	for i := range 3000 {
		names = append(names, "tag"+strings.Repeat("x", i%7)+string(rune('a'+i%26)))
	}
	names = append(names, "t1", "tb")
	got := For("t", names)
	if !slices.Equal(got, []string{"t1", "tb"}) {
		t.Errorf("For(%q) = %q, want the two within distance, not every prefix match", "t", got)
	}
	if got := For("", names); !slices.Equal(got, []string{"t1", "tb"}) {
		t.Errorf("For(\"\") = %q, want only the names within distance", got)
	}
	got = For("tag9", append([]string{"tagxxxxxxa", "taga"}, names...))
	if len(got) != Max {
		t.Fatalf("For(tag9) gave %d names, want %d: %q", len(got), Max, got)
	}
	if got[0] != "taga" {
		t.Errorf("For(tag9)[0] = %q, want the closest (taga) first: %q", got[0], got)
	}
	if slices.Contains(got, "tagxxxxxxa") {
		t.Errorf("For(tag9) = %q holds a far prefix match before closer names", got)
	}
	many := make([]string, 20)
	for i := range many {
		many[i] = "n" + string(rune('a'+i))
	}
	if p := Phrase(many); strings.Count(p, " or ") != Max-1 {
		t.Errorf("Phrase of 20 = %q, want at most %d names", p, Max)
	}
}

// A prefix's distance counts letters, not bytes (日本 → 日本語 is one
// letter away), and a suggested name with a space is quoted in the phrase.
func TestForLettersAndPhraseQuotes(t *testing.T) {
	if got := For("日本", []string{"日本語"}); !slices.Equal(got, []string{"日本語"}) {
		t.Errorf("For(日本) = %q, want 日本語", got)
	}
	if got := For("ca", []string{"café"}); !slices.Equal(got, []string{"café"}) {
		t.Errorf("For(ca) = %q, want café", got)
	}
	if got, want := Phrase([]string{"getting started", "api"}), ` (did you mean "getting started" or api?)`; got != want {
		t.Errorf("Phrase = %q, want %q", got, want)
	}
}

// TestForAll (left17, 2): several unknown values in one error (tag:a
// tag:b) each keep their closest suggestion, however many the one typed
// first has: the first of each in the order typed, then the second of
// each, and so on, at most Max. Before, the first value's five filled the
// list and the second's only suggestion was cut.
func TestForAll(t *testing.T) {
	t.Parallel()
	names := []string{"python", "python2", "python3", "pythons", "pythonic", "docker"}
	got := ForAll([]string{"pytho", "dokcer"}, names)
	if want := []string{"python", "docker", "python2", "python3", "pythons"}; !slices.Equal(got, want) {
		t.Errorf("ForAll(pytho, dokcer) = %q, want %q", got, want)
	}
	if got, want := ForAll([]string{"dokcer", "dockr"}, names), []string{"docker"}; !slices.Equal(got, want) {
		t.Errorf("ForAll(dokcer, dockr) = %q, want %q (once)", got, want)
	}
	if got := ForAll(nil, names); len(got) != 0 {
		t.Errorf("ForAll() = %q, want none", got)
	}
}
