package wording

import "testing"

func TestCountAndPlural(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 files"}, {1, "1 file"}, {2, "2 files"}, {-1, "-1 files"}} {
		if got := Count(c.n, "file", "files"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if Plural(1, "entry", "entries") != "entry" || Plural(5, "entry", "entries") != "entries" {
		t.Error("Plural")
	}
}
