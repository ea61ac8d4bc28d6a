package markdown

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var blockLineSamples = []string{
	"", " ", "#", "# a", "   # a", "    # a", "#######", "###### x ##", "#x", "\t# a", " \t# a",
	"```", "   ```go", "    ```", "~~~", "~~", "``", "`` `", "```` x", "  ~~~~ y", "\t```",
	"===", "  ---", "- item", "-", "--", "   -  ", "    ---", "= x", "==  ", "- [ ] todo",
	"1. one", "123456789) x", "1234567890. x", "1.", "1", "+ a", "* b", "*", " > q", "| t |",
	"<!-- c", "   <!--", "a # b", "text", "# ünïcödé", "\xff# x", "#\xff",
}

// docLines are this repository's markdown lines, and the samples.
func docLines(t *testing.T) []string {
	t.Helper()
	lines := slices.Clone(blockLineSamples)
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md", "../../bench/README.md")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(b), "\n")...)
	}
	return lines
}

// checkBlockLine fails when a prefiltered block test differs from its
// regexp on l.
func checkBlockLine(t *testing.T, l string) {
	t.Helper()
	tx, ok := afterIndent(l)
	for _, c := range []struct {
		name      string
		got, want []string
	}{
		{"fence", fenceLine(tx, ok, l), fenceRE().FindStringSubmatch(l)},
		{"atx", atxLine(tx, ok, l), atxRE().FindStringSubmatch(l)},
		{"setext", setextLine(tx, ok, l), setextRE().FindStringSubmatch(l)},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s(%q) = %q, the regexp %q", c.name, l, c.got, c.want)
		}
	}
	if l != "" && strings.TrimLeft(l, " ") != "" {
		tt := strings.TrimLeft(l, " ")
		pre := strings.IndexByte("-*+", tt[0]) >= 0 || '0' <= tt[0] && tt[0] <= '9'
		if !pre && listRE().MatchString(l) {
			t.Errorf("list item %q not let through by setextCandidate's test", l)
		}
	}
}

// TestBlockLinePrefilters: the scan's tests of a line's first character
// before a block regexp (fenceLine, atxLine, setextLine, setextCandidate's
// list test) change no answer of the regexps.
func TestBlockLinePrefilters(t *testing.T) {
	t.Parallel()
	for _, l := range docLines(t) {
		checkBlockLine(t, l)
	}
}

func FuzzBlockLinePrefilters(f *testing.F) {
	for _, l := range blockLineSamples {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, l string) {
		if strings.Contains(l, "\n") {
			return
		}
		checkBlockLine(t, l)
	})
}
