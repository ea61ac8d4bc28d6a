package project

import (
	"fmt"
	"strings"
	"testing"
)

// TestRed18CommittedLimitsHaveCeilings (red18 finding 3): an https
// source's limits may be raised by the manifest, with no ceiling: a
// teammate's commit (or a checkout of their branch, with ctx's git hooks)
// set "timeout": "8760h", and a server that answers nothing held `git
// pull` (the hook's install) for a year instead of 30 s (checked for 150 s);
// maxArchiveBytes, maxFiles, maxBytes and maxPages lift every bound on disk
// and network the same way. Each limit must have a ceiling that the
// manifest is refused above, with the field and the ceiling named.
func TestRed18CommittedLimitsHaveCeilings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ field, value string }{
		{"timeout", `"8760h"`},
		{"timeout", `"1w"`},
		{"maxArchiveBytes", "1000000000000000"},
		{"maxFiles", "1000000000"},
		{"maxBytes", "1000000000000000"},
		{"maxPages", "1000000000"},
	} {
		data := fmt.Sprintf(`{"packages": [{"alias": "team", "kind": "https", "source": "https://docs.example.com/docs.tar.gz", "limits": {%q: %s}}]}`, tc.field, tc.value)
		_, err := ParseManifest("context.config.json", []byte(data))
		if err == nil {
			t.Errorf("limits.%s %s: accepted; want a refusal naming the ceiling", tc.field, tc.value)
			continue
		}
		if !strings.Contains(err.Error(), "packages[0].limits."+tc.field) || !strings.Contains(err.Error(), "at most") {
			t.Errorf("limits.%s %s: %v; want the field and its ceiling (at most …)", tc.field, tc.value, err)
		}
	}
	// Raising a limit within its ceiling stays the manifest's to do.
	ok := `{"packages": [{"alias": "team", "kind": "https", "source": "https://docs.example.com/docs.tar.gz", "limits": {"timeout": "2m", "maxArchiveBytes": 500000000, "maxFiles": 50000, "maxBytes": 50000000, "maxPages": 1000}}]}`
	if _, err := ParseManifest("context.config.json", []byte(ok)); err != nil {
		t.Errorf("limits within the ceilings: %v", err)
	}
}
