package gitsrc_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/source"
	"github.com/ctx-dev/ctx/source/gitsrc"
)

// TestCheckSpec: a git spec has a ref, and none of the https settings
// nor limits.
func TestCheckSpec(t *testing.T) {
	t.Parallel()
	k := gitsrc.Kind{}
	if errs := k.CheckSpec(source.Spec{Alias: "g", Source: "https://example.com/r.git", Path: "docs", Ref: "main"}); len(errs) != 0 {
		t.Fatalf("a good spec: %v", errs)
	}
	var fields []string
	for _, e := range k.CheckSpec(source.Spec{Alias: "g", Source: "x", TTL: "1d", AllowPrivateNetwork: true, TokenEnv: "T", Limits: &source.Limits{}}) {
		fields = append(fields, e.Field)
	}
	if want := []string{"ttl", "allowPrivateNetwork", "tokenEnv", "limits"}; !slices.Equal(fields, want) {
		t.Fatalf("fields = %v, want %v", fields, want)
	}
}

// TestProvenance: source, path, ref (or the default branch) and the short
// commit.
func TestProvenance(t *testing.T) {
	t.Parallel()
	code := func(s string) string { return "`" + s + "`" }
	rev := "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		o    source.Origin
		want string
	}{
		{source.Origin{Source: "https://example.com/r.git", Path: "docs", Ref: "v1", Rev: rev}, "`https://example.com/r.git`, path `docs`, ref `v1`, commit `0123456`"},
		{source.Origin{Source: "../r", Path: ".", Rev: rev}, "`../r`, default branch, commit `0123456`"},
	} {
		if got := strings.Join(gitsrc.Kind{}.Provenance(tc.o, code), ", "); got != tc.want {
			t.Errorf("Provenance(%+v) = %q, want %q", tc.o, got, tc.want)
		}
	}
}
