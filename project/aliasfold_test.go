package project

import (
	"fmt"
	"testing"
)

// TestAliasesOneFolder (red17 finding 9): an alias is a folder name
// under .context/packages (naming.ValidAlias). "docs" and "DOCS" are one
// folder on macOS and Windows (naming.AliasFrom lower-cases for this very
// reason), and so are "docs." and "docs" on Windows; "con" and "nul.md"
// are devices there. The manifest accepts all of them, so two packages of
// a committed manifest share (and replace) one folder on a teammate's
// machine.
func TestAliasesOneFolder(t *testing.T) {
	for _, pair := range [][2]string{{"docs", "DOCS"}, {"docs", "docs."}} {
		data := fmt.Sprintf(`{"packages":[{"alias":%q,"kind":"https","source":"https://a.example/a.md"},{"alias":%q,"kind":"https","source":"https://b.example/b.md"}]}`, pair[0], pair[1])
		if _, err := ParseManifest("context.config.json", []byte(data)); err == nil {
			t.Errorf("aliases %q and %q, one folder on macOS or Windows, are both accepted", pair[0], pair[1])
		}
	}
	for _, alias := range []string{"con", "nul.md", "aux"} {
		data := fmt.Sprintf(`{"packages":[{"alias":%q,"kind":"https","source":"https://a.example/a.md"}]}`, alias)
		if _, err := ParseManifest("context.config.json", []byte(data)); err == nil {
			t.Errorf("alias %q, a device name on Windows, is accepted", alias)
		}
	}
}
