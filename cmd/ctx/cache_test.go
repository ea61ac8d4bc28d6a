package main

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestCacheOptions(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want cacheOptions
	}{
		{[]string{"info"}, cacheOptions{op: "info"}},
		{[]string{"info", "--json"}, cacheOptions{op: "info", json: true}},
		{[]string{"gc"}, cacheOptions{op: "gc", keep: defaultKeep}},
		{[]string{"gc", "--dry-run", "--keep", "3d"}, cacheOptions{op: "gc", dryRun: true, keep: "3d"}},
		{[]string{"gc", "--keep", "0"}, cacheOptions{op: "gc", keep: "0"}},
	} {
		g := &globalOptions{IO: &IOStreams{}}
		var got *cacheOptions
		err := parseOnly(t, newCacheCmd(g, func(_ context.Context, o *cacheOptions) error { got = o; return nil }), tt.args)
		if err != nil || got == nil {
			t.Fatalf("cache %q: err %v, run called: %v", tt.args, err, got != nil)
		}
		if got.globalOptions != g {
			t.Errorf("cache %q: the global options were not passed on", tt.args)
		}
		got.globalOptions = nil
		if *got != tt.want {
			t.Errorf("cache %q: options %+v, want %+v", tt.args, *got, tt.want)
		}
	}
	if defaultKeep != "14d" {
		t.Errorf("defaultKeep = %q; the README says 14 days", defaultKeep)
	}
}

// TestCacheMaxFromEnv: CTX_CACHE_MAX takes sizes as people write them,
// and anything else is a usage error naming the variable.
func TestCacheMaxFromEnv(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]int64{"2GB": 2_000_000_000, "500MB": 500_000_000, "1.5GiB": 3 << 29, "1048576": 1 << 20, "": 0} {
		o, err := environment{"CTX_CACHE_MAX=" + v}.engineOptions()
		if err != nil || o.CacheMax != want {
			t.Errorf("CTX_CACHE_MAX=%q: CacheMax %d, %v; want %d", v, o.CacheMax, err, want)
		}
	}
	for _, v := range []string{"lots", "0", "-5MB", "99999999999EB"} {
		_, err := environment{"CTX_CACHE_MAX=" + v}.engineOptions()
		var ee *exitError
		if err == nil || !errors.As(err, &ee) || ee.code != ExitUsage || !strings.Contains(err.Error(), "CTX_CACHE_MAX") {
			t.Errorf("CTX_CACHE_MAX=%q: %v; want a usage error naming the variable", v, err)
		}
	}
}
