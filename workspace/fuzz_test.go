package workspace

import (
	"bytes"
	"strings"
	"testing"
)

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
