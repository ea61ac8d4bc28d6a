package project

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/jsonfile/jsonfiletest"
)

func TestManifestParse(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"ok", `{"index": {}, "packages": [{"alias": "a", "source": "x", "path": "p/q", "ref": "v1.2"}]}`, nil},
		{"syntax", "{\n  \"packages\": [\n    {\"alias\": \"a\" \"source\": \"x\"}\n  ]\n}", []string{"context.config.json:3:19: invalid JSON: invalid character"}},
		{"unknown", "{\n  \"packages\": [\n    {\"alias\": \"a\", \"source\": \"x\", \"pth\": \"p\"}\n  ]\n}", []string{`context.config.json:3:35: packages[0]: unknown field "pth"`}},
		{"duplicate", "{\n  \"packages\": [],\n  \"packages\": [{\"alias\": \"a\", \"source\": \"x\", \"source\": \"y\"}]\n}", []string{
			`context.config.json:3:3: duplicate key "packages" (first at 2:3; keep only one)`,
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
			jsonfiletest.WantInOrder(t, err, tc.want)
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

// TestManifestErrorModel: each kind of problem in a manifest, each at
// file:line:col, and all of a file's problems at once (before
// internal/jsonfile, the first decoding problem hid every other one).
func TestManifestErrorModel(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"syntax", "{\n  \"packages\": [\n    {\"alias\": \"a\",}\n  ]\n}", []string{
			`context.config.json:3:19: invalid JSON: invalid character '}'`, "fix context.config.json by hand"}},
		// audit17 #1: git refuses `git checkout FILE` on an unmerged path,
		// and each side holds packages its branch added.
		{"conflict", "{\n  \"packages\": [\n    {\n<<<<<<< HEAD\n      \"alias\": \"a\",\n=======\n      \"alias\": \"b\",\n>>>>>>> 12a1714\n      \"source\": \"x\"\n    }\n  ]\n}\n", []string{
			`context.config.json:4:1: git merge conflict markers`,
			"keep both sides' packages", "run `ctx install`"}},
		{"duplicate key", "{\n  \"registry\": \"r\",\n  \"Registry\": \"s\"\n}", []string{
			`context.config.json:3:3: duplicate key "Registry" (first at 2:3; keep only one)`}},
		{"unknown field", "{\n  \"index\": {\"budget\": 500}\n}", []string{
			`context.config.json:2:13: index: unknown field "budget"`}},
		{"validation", "{\n  \"packages\": [\n    {\"alias\": \"a\", \"source\": \"x\", \"ref\": \"a b\"}\n  ]\n}", []string{
			`context.config.json:3:35: packages[0].ref: "a b" is not a valid git ref name`}},
		{"all at once", "{\n  \"pkgs\": [],\n  \"packages\": [\n    {\"alias\": \"a\", \"source\": \"\"},\n    {\"alias\": \"a\", \"source\": \"x\", \"path\": \"p\", \"path\": \"q\"}\n  ]\n}", []string{
			`context.config.json:2:3: unknown field "pkgs"`,
			`context.config.json:4:20: packages[0].source: is required`,
			`context.config.json:5:6: packages[1].alias: alias "a" is already used by packages[0]`,
			`context.config.json:5:48: packages[1]: duplicate key "path" (first at 5:35; keep only one)`}},
		{"types at once", "{\n  \"index\": {\"budgetTokens\": 1.5},\n  \"packages\": [{\"alias\": 1, \"source\": \"x\"}, {\"alias\": \"b\", \"source\": true}]\n}", []string{
			`context.config.json:2:29: index.budgetTokens: 1.5 is not a whole number`,
			`context.config.json:3:26: packages[0].alias: expected a string, found a JSON number`,
			`context.config.json:3:70: packages[1].source: expected a string, found a JSON boolean`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseManifest("context.config.json", []byte(tc.data))
			jsonfiletest.WantInOrder(t, err, tc.want)
		})
	}
}
