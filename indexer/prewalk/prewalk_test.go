package prewalk

import (
	"strings"
	"testing"
)

// TestSearchStart: the command lines of `ctx search` the early walk is
// started for, and the folder it starts from (-C's forms before the
// command, as cobra's flag parsing reads them); no walk for another
// command, another flag before the command, or a -C after it.
func TestSearchStart(t *testing.T) {
	for line, want := range map[string]string{
		"search pod":                  "",
		"search --json pod":           "",
		"-C /p search pod":            "/p",
		"-C rel/p search pod":         "rel/p",
		"--chdir /p search pod":       "/p",
		"--chdir=/p search pod":       "/p",
		"-C/p search pod":             "/p",
		"-C=/p search pod":            "/p",
		"-C /a -C /b search pod":      "/b",
		"search":                      "",
		"-C /p --chdir=/q search x y": "/q",
	} {
		got, ok := searchStart(strings.Fields(line))
		if !ok || got != want {
			t.Errorf("%q: %q, %v; want %q", line, got, ok, want)
		}
	}
	for _, line := range []string{"", "version", "searchx pod", "list search", "--json search pod", "-C", "-C /p", "search -C /p pod", "search pod --chdir=/p", "-v search pod"} {
		if got, ok := searchStart(strings.Fields(line)); ok {
			t.Errorf("%q: an early walk from %q; want none", line, got)
		}
	}
}
