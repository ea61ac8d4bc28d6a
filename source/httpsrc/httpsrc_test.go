package httpsrc_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/source"
	"github.com/ctx-dev/ctx/source/httpsrc"
)

// TestCheckSpec: an https spec is an http(s) URL with the https settings,
// every limit but a dir source's maxTotalBytes, and no ref.
func TestCheckSpec(t *testing.T) {
	t.Parallel()
	k := httpsrc.Kind{}
	good := source.Spec{Alias: "w", Kind: "https", Source: "https://docs.example.com/llms.txt", TTL: "1d", AllowPrivateNetwork: true, TokenEnv: "T",
		Limits: &source.Limits{MaxBytes: 1, MaxArchiveBytes: 1, MaxFiles: 1, MaxPages: 1, Timeout: "30s", MaxRedirects: 1}}
	if errs := k.CheckSpec(good); len(errs) != 0 {
		t.Fatalf("a good spec: %v", errs)
	}
	var fields []string
	for _, e := range k.CheckSpec(source.Spec{Alias: "w", Kind: "https", Source: "ftp://example.com/x", Ref: "main", Limits: &source.Limits{MaxTotalBytes: 1}}) {
		fields = append(fields, e.Field)
	}
	if want := []string{"source", "limits.maxTotalBytes", "ref"}; !slices.Equal(fields, want) {
		t.Fatalf("fields = %v, want %v", fields, want)
	}
}

// TestProvenance: URL, path, short content hash and the fetch date.
func TestProvenance(t *testing.T) {
	t.Parallel()
	o := source.Origin{Source: "https://docs.example.com/a.tar.gz", Path: "docs", Rev: "sha256:" + strings.Repeat("ab", 32),
		Fetched: time.Date(2026, 1, 2, 23, 0, 0, 0, time.FixedZone("x", -3600))}
	got := strings.Join(httpsrc.Kind{}.Provenance(o, func(s string) string { return "`" + s + "`" }), ", ")
	if want := "`https://docs.example.com/a.tar.gz`, path `docs`, content `sha256:abababababab`, fetched 2026-01-03"; got != want {
		t.Fatalf("Provenance = %q, want %q", got, want)
	}
}
