package gitengine

import (
	"strings"
	"testing"
)

// TestResolveInRules: the rules ctx resolves every ref by (they were
// workspace's before gitengine owned them): HEAD unknown falls back to main,
// then master; an unknown ref's error names refs the repository has.
func TestResolveInRules(t *testing.T) {
	t.Parallel()
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	rem := &Remote{Refs: []Ref{{Name: "refs/heads/main", Hash: a}, {Name: "refs/heads/master", Hash: b}, {Name: "refs/tags/v1", Hash: b}}}
	for _, ref := range []string{"", "HEAD"} {
		if r, err := resolveIn(rem, "u", ref, nil, nil); err != nil || r.Ref != "refs/heads/main" || r.Commit != a {
			t.Errorf("resolve %q without HEAD: %+v, %v; want main", ref, r, err)
		}
	}
	rem.Refs = rem.Refs[1:]
	if r, err := resolveIn(rem, "u", "", nil, nil); err != nil || r.Ref != "refs/heads/master" {
		t.Errorf("without HEAD or main: %+v, %v; want master", r, err)
	}
	_, err := resolveIn(rem, "u", "nope", nil, nil)
	if KindOf(err) != KindRefNotFound || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "; it has: master, v1)") {
		t.Errorf("unknown ref: %v", err)
	}
	rem.Refs = rem.Refs[1:]
	if _, err := resolveIn(rem, "u", "", nil, nil); KindOf(err) != KindRefNotFound || !strings.Contains(err.Error(), "no main or master") {
		t.Errorf("no default branch: %v", err)
	}
}
