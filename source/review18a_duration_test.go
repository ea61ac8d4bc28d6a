package source

import (
	"testing"
	"time"
)

// TestReview18aParseDurationOverflow (review18a): "213504d" is 584 years,
// more than a time.Duration holds; ParseDuration multiplied without a
// check and the product wrapped to about 25 minutes, which a ttl or a
// timeout then was, silently. A count of days or weeks too large for a
// duration is an error, as time.ParseDuration's "99999999h" is.
func TestReview18aParseDurationOverflow(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"213504d", "106752d", "30501w", "9223372036854775807d"} {
		if d, err := ParseDuration(s); err == nil {
			t.Errorf("ParseDuration(%q) = %v; want an error (it does not fit a duration)", s, d)
		}
	}
	for s, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "106751d": 106751 * 24 * time.Hour} {
		if d, err := ParseDuration(s); err != nil || d != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", s, d, err, want)
		}
	}
}
