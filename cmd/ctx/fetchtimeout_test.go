package main

import (
	"strings"
	"testing"
	"time"
)

// CTX_FETCH_TIMEOUT (left19): a positive duration up to netrate's ceiling
// (24h); unset is 0 (netrate.DefaultTotal); anything else is a usage error
// naming the variable and what to give.
func TestFetchTimeoutEnv(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]time.Duration{"": 0, "2h": 2 * time.Hour, "24h": 24 * time.Hour, "90s": 90 * time.Second} {
		got, err := environment{"CTX_FETCH_TIMEOUT=" + v}.fetchTimeout()
		if err != nil || got != want {
			t.Errorf("CTX_FETCH_TIMEOUT=%q: %v, %v; want %v", v, got, err, want)
		}
	}
	for _, v := range []string{"0", "-1m", "25h", "soon", "10"} {
		_, err := environment{"CTX_FETCH_TIMEOUT=" + v}.fetchTimeout()
		if err == nil || !strings.Contains(err.Error(), "CTX_FETCH_TIMEOUT=") || !strings.Contains(err.Error(), "up to 24h") {
			t.Errorf("CTX_FETCH_TIMEOUT=%q: %v; want a usage error naming it and the ceiling", v, err)
		}
	}
}
