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

func TestList(t *testing.T) {
	for _, c := range []struct {
		items []string
		want  string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a and b"}, {[]string{"a", "b", "c"}, "a, b and c"}} {
		if got := List(c.items, "and"); got != c.want {
			t.Errorf("List(%q) = %q, want %q", c.items, got, c.want)
		}
	}
}
