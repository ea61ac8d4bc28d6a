package suggest

import (
	"slices"
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
