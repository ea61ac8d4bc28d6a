package jsonfile

import (
	"reflect"
	"testing"
)

const doc = `{
  "version": 1,
  "packages": {
    "docs": {
      "commit": "abc",
      "list": [1, {"x": 2}]
    },
    "a.b": {}
  }
}
`

func TestFind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path string
		want Pos
	}{
		{"version", Pos{2, 3}},
		{"packages", Pos{3, 3}},
		{"packages[docs].commit", Pos{5, 7}},
		{"packages[docs].list[1].x", Pos{6, 20}},
		{"packages[docs].missing", Pos{4, 5}},
		{"packages[a.b]", Pos{8, 5}},
		{"nothing", Pos{1, 1}},
	} {
		if got := Positions([]byte(doc), [][]string{SplitPath(tc.path)})[0]; got != tc.want {
			t.Errorf("Positions(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestSplitPath(t *testing.T) {
	t.Parallel()
	got := SplitPath("packages[my.docs].commit")
	want := []string{"packages", "my.docs", "commit"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SplitPath = %q, want %q", got, want)
	}
	got = SplitPath("packages[2].alias")
	want = []string{"packages", "2", "alias"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SplitPath = %q, want %q", got, want)
	}
}
