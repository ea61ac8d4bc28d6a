package dirsrc_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/source"
	"github.com/ctx-dev/ctx/source/dirsrc"
)

// TestCheckSpec: a dir source is a local path, with no sub-path, no
// audience, only the limits of its walk, and none of the other kinds'
// settings.
func TestCheckSpec(t *testing.T) {
	t.Parallel()
	k := dirsrc.Kind{}
	if errs := k.CheckSpec(source.Spec{Alias: "d", Kind: "dir", Source: "docs", Limits: &source.Limits{MaxFiles: 10, MaxTotalBytes: 1 << 20}}); len(errs) != 0 {
		t.Fatalf("a good spec: %v", errs)
	}
	bad := source.Spec{Alias: "d", Kind: "dir", Source: "https://example.com/x", Path: "sub", Audience: "ignore", Ref: "main", TTL: "1d",
		AllowPrivateNetwork: true, TokenEnv: "T", Limits: &source.Limits{MaxPages: 3}}
	var fields []string
	for _, e := range k.CheckSpec(bad) {
		fields = append(fields, e.Field)
	}
	if want := []string{"source", "path", "audience", "limits", "ref", "ttl", "allowPrivateNetwork", "tokenEnv"}; !slices.Equal(fields, want) {
		t.Fatalf("fields = %v, want %v", fields, want)
	}
}

// TestProvenance: a dir source is shown by its place in the project, live.
func TestProvenance(t *testing.T) {
	t.Parallel()
	got := dirsrc.Kind{}.Provenance(source.Origin{Source: "/abs/docs", Place: "../docs/"}, func(s string) string { return "`" + s + "`" })
	if want := "`../docs/`, live from the project (no commit)"; strings.Join(got, ", ") != want {
		t.Fatalf("Provenance = %q, want %q", strings.Join(got, ", "), want)
	}
}
