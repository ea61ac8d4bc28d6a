package main

import (
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/project"
)

// TestReview19eWithheldNoteCommandParses: review19e. cli19 made -v under
// a command a usage error (detail is --verbose), but the note links
// --broken, the wizard's references and the MCP server give for a withheld
// document still told the user to run `ctx install -v`: pasted, it exits 2.
// The command the note names must parse.
func TestReview19eWithheldNoteCommandParses(t *testing.T) {
	note := project.Package{Alias: "handbook", Audience: "web"}.WithheldNote("guide.md")
	i := strings.Index(note, "(ctx ")
	j := strings.LastIndex(note, " names them)")
	if i < 0 || j < i {
		t.Fatalf("the note names no command to run: %q", note)
	}
	line := note[i+len("(ctx ") : j]
	if code, stderr := runGuarded(strings.Fields(line)...); stderr != "ctx: ran\n" {
		t.Errorf("the withheld note's command `ctx %s` does not parse (exit %d): %s", line, code, stderr)
	}
}
