package project

import (
	"bytes"
	"strings"
	"testing"
)

func TestManifestParse(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"ok", `{"index": {}, "packages": [{"alias": "a", "source": "x", "path": "p/q", "ref": "v1.2"}]}`, nil},
		{"syntax", "{\n  \"packages\": [\n    {\"alias\": \"a\" \"source\": \"x\"}\n  ]\n}", []string{"context.config.json:3:19: invalid character"}},
		{"unknown", "{\n  \"packages\": [\n    {\"alias\": \"a\", \"source\": \"x\", \"pth\": \"p\"}\n  ]\n}", []string{`context.config.json:3:35: unknown field "pth"`}},
		{"duplicate", "{\n  \"packages\": [],\n  \"packages\": [{\"alias\": \"a\", \"source\": \"x\", \"source\": \"y\"}]\n}", []string{
			`context.config.json:3:3: duplicate key "packages"`,
			`context.config.json:3:46: packages[0]: duplicate key "source"`,
		}},
		{"fields", `{
  "index": {"budgetTokens": 10},
  "packages": [
    {"alias": "-bad", "source": "x"},
    {"alias": "ok", "source": "", "path": "/abs"},
    {"alias": "ok", "source": "y", "ref": "a..b"}
  ]
}`, []string{
			"context.config.json:2:13: index.budgetTokens: 10 is less than the minimum 500",
			`context.config.json:4:6: packages[0].alias: "-bad" is not a valid alias`,
			"context.config.json:5:21: packages[1].source: is required",
			`context.config.json:5:35: packages[1].path: "/abs" must be a clean relative path`,
			`context.config.json:6:6: packages[2].alias: alias "ok" is already used by packages[1]`,
			`context.config.json:6:36: packages[2].ref: "a..b" is not a valid git ref name`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseManifest("context.config.json", []byte(tc.data))
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			msg, last := err.Error(), -1
			for _, w := range tc.want {
				i := strings.Index(msg, w)
				if i <= last {
					t.Fatalf("error lacks %q (or out of order):\n%s", w, msg)
				}
				last = i
			}
		})
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"registry": "https://x/r.json", "index": {"budgetTokens": 4000}, "packages": [{"alias": "a", "source": "../r", "path": "docs", "ref": "v1"}]}`))
	f.Add([]byte(`{"packages": [{"alias": "a", "source": "x"}, {"alias": "a", "source": "y"}]}`))
	f.Add([]byte("{\n\"packages\": [1]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest("m.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "m.json") {
				t.Fatalf("error without file name: %v", err)
			}
			return
		}
		b, err := MarshalManifest(m)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := ParseManifest("m.json", b)
		if err != nil {
			t.Fatalf("canonical bytes do not parse: %v\n%s", err, b)
		}
		b2, _ := MarshalManifest(m2)
		if !bytes.Equal(b, b2) {
			t.Fatalf("not stable:\n%s\n%s", b, b2)
		}
	})
}
