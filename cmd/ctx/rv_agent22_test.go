package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestQuietWarningsWaitForGitsQuestion (review of agent22, polish22b):
// with -q the workspace's warnings and notices go to stderr through the
// progress's Log, which draws nothing; they too wait while git may ask at
// the terminal, as Log's notes do without -q, and a note -q drops is not
// written at all. Before, a -q warning was written at once, after git's
// question on the line the user types on.
func TestQuietWarningsWaitForGitsQuestion(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	g := &globalOptions{IO: &IOStreams{ErrOut: &buf}, quiet: true}
	p := newProgress(g)
	o, err := workspaceOptions(g, p)
	if err != nil {
		t.Fatal(err)
	}
	resume := o.EngineOptions.Prompting()
	buf.Write([]byte("Username for 'https://example.com': ")) // git's question
	fmt.Fprintf(o.Log, "warning: b: a warning\n")
	fmt.Fprintf(o.Log, "note: dropped by -q\n")
	fmt.Fprintf(o.Notice, "b: an allowance recorded\n")
	if got := buf.String(); strings.Contains(got, "warning") || strings.Contains(got, "allowance") {
		t.Errorf("written while git asks: %q", got)
	}
	buf.Write([]byte("alice\n"))
	resume()
	if got, want := buf.String(), "alice\nwarning: b: a warning\nb: an allowance recorded\n"; !strings.HasSuffix(got, want) {
		t.Errorf("after the resume: %q, want it to end %q", got, want)
	}
	p.Pause()
	fmt.Fprintf(o.Log, "warning: last\n")
	p.Done()
	if got := buf.String(); !strings.HasSuffix(got, "warning: last\n") {
		t.Errorf("a held warning lost at Done: %q", got)
	}
	if got := buf.String(); strings.Contains(got, "dropped") {
		t.Errorf("-q wrote a note it drops: %q", got)
	}
}
