package jsonpos

import (
	"encoding/json"
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
		if got := Find([]byte(doc), SplitPath(tc.path)); got != tc.want {
			t.Errorf("Find(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestSplitPath(t *testing.T) {
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

func TestDecodeError(t *testing.T) {
	data := []byte("{\n  \"version\": 1,\n  \"packages\": {,\n}\n")
	var v any
	err := json.Unmarshal(data, &v)
	pos, msg, ok := DecodeError(data, err)
	if !ok || pos != (Pos{3, 16}) {
		t.Fatalf("DecodeError = %v %q %v, want 3:16", pos, msg, ok)
	}
	var s struct{ Version string }
	err = json.Unmarshal([]byte("{\n \"Version\": 12}"), &s)
	pos, msg, ok = DecodeError([]byte("{\n \"Version\": 12}"), err)
	if !ok || pos != (Pos{2, 2}) {
		t.Fatalf("DecodeError type = %v %q %v, want 2:2", pos, msg, ok)
	}
}

func TestDuplicates(t *testing.T) {
	got := Duplicates([]byte("{\"a\": 1, \"b\": {\"x\": [{\"k\": 1, \"k\": 2}]}, \"a\": 3}"))
	want := []Problem{
		{Pos: Pos{1, 31}, Field: "b.x[0]", Msg: `duplicate key "k" (keep only one)`},
		{Pos: Pos{1, 42}, Field: "", Msg: `duplicate key "a" (keep only one)`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Duplicates = %+v, want %+v", got, want)
	}
}
