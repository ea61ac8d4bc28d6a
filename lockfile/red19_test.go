package lockfile

import (
	"strings"
	"testing"
)

// TestRed19AliasesDifferingInCase (red19 finding 3): the manifest refuses
// two aliases that differ only in case ("pub" and "PUB" are one folder on
// macOS and Windows), the lock took them: a lock with both made `ctx
// install` say "PUB removed", which there removes pub's folder. The lock
// follows the manifest's rule (naming.AliasKey).
func TestRed19AliasesDifferingInCase(t *testing.T) {
	entry := `{"source": "https://example.com/r.git", "commit": "` + c1 + `", "tree": "` + t1 + `", "hash": "` + h1 + `", "updated": "2026-01-01T00:00:00Z"}`
	for _, v := range []string{"1", "2"} {
		e := entry
		if v == "2" {
			e = strings.Replace(strings.Replace(entry, `"commit"`, `"kind": "git", "rev"`, 1), `{`, `{`, 1)
		}
		data := `{"version": ` + v + `, "packages": {"pub": ` + e + `, "PUB": ` + e + `}}`
		_, err := Parse("context.lock", []byte(data), nil)
		if err == nil {
			t.Errorf("version %s: a lock with aliases pub and PUB was accepted", v)
			continue
		}
		if !strings.Contains(err.Error(), `"PUB"`) || !strings.Contains(err.Error(), "case") {
			t.Errorf("version %s: the error does not name the alias and the rule: %v", v, err)
		}
	}
}
