package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagValueErrorsOnEveryFlag: every flag of every command that takes a
// number, a switch or a duration answers a value it cannot take in ctx's
// words, naming the flag (cli18's flagValueError), never Go's
// ("strconv.ParseInt", "time: invalid duration"), and exits 2. It walks
// the command tree, so a new flag is covered without a new line here.
func TestFlagValueErrorsOnEveryFlag(t *testing.T) {
	type probe struct{ path, flag, typ string }
	var probes []probe
	walk(newRootCmd(&globalOptions{IO: &IOStreams{}}), func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			switch typ := f.Value.Type(); {
			case typ == "bool", typ == "duration", typ == "count",
				strings.HasPrefix(typ, "int"), strings.HasPrefix(typ, "uint"), strings.HasPrefix(typ, "float"):
				probes = append(probes, probe{c.CommandPath(), f.Name, typ})
			}
		})
	})
	if len(probes) < 10 {
		t.Fatalf("found only %d typed flags", len(probes))
	}
	for _, p := range probes {
		words := strings.Fields(p.path)[1:]
		args := append(words, "--"+p.flag+"=abc")
		code, stderr := runGuarded(args...)
		t.Logf("%s %s: %d %s", p.path, p.typ, code, strings.TrimSpace(stderr))
		if code != ExitUsage {
			t.Errorf("%s --%s=abc (%s): exit %d, want %d: %s", p.path, p.flag, p.typ, code, ExitUsage, stderr)
			continue
		}
		for _, goWords := range []string{"strconv", "time: ", "invalid syntax", "invalid argument"} {
			if strings.Contains(stderr, goWords) {
				t.Errorf("%s --%s=abc (%s) answers in Go's words (%q): %s", p.path, p.flag, p.typ, goWords, stderr)
			}
		}
		if !strings.Contains(stderr, "--"+p.flag) || !strings.Contains(stderr, `"abc"`) {
			t.Errorf("%s --%s=abc (%s) does not name the flag and the value: %s", p.path, p.flag, p.typ, stderr)
		}
	}
}
