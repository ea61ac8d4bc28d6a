package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestREADMETableMatchesUse keeps README's command table true (cli20): for
// every command a row names (`ctx install [--frozen] ...`), the flags the
// row shows are the flags its --help usage line shows, and every such flag
// exists. A flag added to a command, or renamed, fails here until README
// says so too.
func TestREADMETableMatchesUse(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	root := newRootCmd(&globalOptions{IO: &IOStreams{}})
	flagRE := regexp.MustCompile(`--[a-z][a-z-]*`)
	usageRE := regexp.MustCompile("`(ctx [^`]*)`")
	wordRE := regexp.MustCompile(`^[a-z]+$`)
	rows := 0
	inRows := map[*cobra.Command][]string{}   // the flags README's rows show, by command
	rowUsage := map[*cobra.Command][]string{} // the rows' usages, by command
	for _, line := range strings.Split(string(data), "\n") {
		cell, ok := strings.CutPrefix(line, "| `ctx ")
		if !ok {
			continue
		}
		first, _, _ := strings.Cut("`ctx "+cell, " | ")
		for _, m := range usageRE.FindAllStringSubmatch(first, -1) {
			usage := strings.ReplaceAll(m[1], `\|`, "|")
			var path []string
			for _, w := range strings.Fields(usage)[1:] {
				if !wordRE.MatchString(w) {
					break
				}
				path = append(path, w)
			}
			c, rest, err := root.Find(path)
			if err != nil || len(rest) > 0 || c == root {
				continue // "ctx --version" and the like
			}
			rows++
			inRows[c] = append(inRows[c], flagRE.FindAllString(usage, -1)...)
			rowUsage[c] = append(rowUsage[c], usage)
			for _, f := range flagRE.FindAllString(usage, -1) {
				if !hasFlag(c, f) {
					t.Errorf("README row %q: %s has no flag %s", usage, c.CommandPath(), f)
				}
			}
		}
	}
	// Every flag a command's usage line shows, README's rows show too (a
	// usage line may leave flags to "[flags]": search's, find's).
	for c, shown := range inRows {
		for _, f := range flagRE.FindAllString(c.Use, -1) {
			if !slices.Contains(shown, f) {
				t.Errorf("%s --help's usage shows %s; README's table does not", c.CommandPath(), f)
			}
		}
	}
	// Every argument a command's usage line shows (ALIAS..., KEY=VALUE...),
	// a row of README's shows too (docs20: outdated's ALIAS... was missing).
	for c, usages := range rowUsage {
		for _, a := range positionals(c.Use) {
			if !slices.ContainsFunc(usages, func(u string) bool { return strings.Contains(u, a) }) {
				t.Errorf("%s --help's usage takes %s; README's table does not", c.CommandPath(), a)
			}
		}
	}
	if rows < 20 {
		t.Fatalf("read only %d command rows from README's table", rows)
	}
}

func hasFlag(c *cobra.Command, f string) bool {
	name := strings.TrimPrefix(f, "--")
	return c.Flags().Lookup(name) != nil || c.InheritedFlags().Lookup(name) != nil || (name == "help")
}

// positionals returns the arguments a usage line names (ALIAS..., PATH),
// not the values of its flags (--path PATH) nor the command's words.
func positionals(use string) []string {
	var out []string
	inFlag := false // the field before was a flag whose value follows
	for _, f := range strings.Fields(use) {
		bare := strings.Trim(f, "[]")
		switch {
		case strings.HasPrefix(bare, "-"):
			inFlag = !strings.HasSuffix(f, "]") && !strings.Contains(f, "=")
			continue
		case inFlag:
			inFlag = false
			continue
		}
		if bare != "" && bare[0] >= 'A' && bare[0] <= 'Z' {
			out = append(out, bare)
		}
	}
	return out
}
