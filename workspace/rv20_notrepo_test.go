package workspace

import (
	"strings"
	"testing"
)

// review20 of cli20: a file at the top of a repository given as --kind git
// was answered `ctx add ../hb --path . (its folder)`; its folder is the
// whole repository, which takes no --path.
func TestNotRepositoryErrorTopFile(t *testing.T) {
	e := &NotRepositoryError{Source: "../hb/README.md", File: true, Sub: "README.md"}
	msg := e.Error()
	if strings.Contains(msg, "--path .") || !strings.Contains(msg, "ctx add ../hb (the whole repository)") {
		t.Errorf("got %q; want `ctx add ../hb (the whole repository)`, no --path .", msg)
	}
	e = &NotRepositoryError{Source: "../hb/docs/d.md", File: true, Sub: "docs/d.md"}
	if msg := e.Error(); !strings.Contains(msg, "ctx add ../hb --path docs (its folder)") {
		t.Errorf("got %q; want --path docs", msg)
	}
}
