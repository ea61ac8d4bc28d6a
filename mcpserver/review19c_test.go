package mcpserver

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestReview19cOverviewOffsetReadsOnePackage: the outline says "read a
// package's part with offset=its line"; what that call reads is that
// package's part, not the packages after it too (round 19: offset=85, the
// second of four packages, read three packages, 14,863 B).
func TestReview19cOverviewOffsetReadsOnePackage(t *testing.T) {
	t.Parallel()
	aliases := []string{"alpha", "beta", "gamma"}
	cs := connect(t, overviewProject(t, 40, aliases...))
	var ov DocumentOut
	res := call(t, cs, "get_overview", nil, &ov)
	if res.IsError || !ov.Outline {
		t.Fatalf("want an outline: %s", clientView(t, res))
	}
	for _, a := range aliases {
		m := regexp.MustCompile(`## ` + a + `\b[^\n]*offset=(\d+)(?:, limit=(\d+))?`).FindStringSubmatch(ov.Text)
		if m == nil {
			t.Fatalf("package %s has no offset in the outline:\n%s", a, ov.Text)
		}
		args := map[string]any{}
		for i, k := range []string{"offset", "limit"} {
			if m[i+1] != "" {
				n, _ := strconv.Atoi(m[i+1])
				args[k] = n
			}
		}
		var part DocumentOut
		res := call(t, cs, "get_overview", args, &part)
		if res.IsError || !strings.HasPrefix(part.Text, "## "+a+"\n") {
			t.Fatalf("get_overview %v: %.200q", args, part.Text)
		}
		if !strings.Contains(part.Text, a+" topic 39") {
			t.Errorf("get_overview %v does not read all of %s's part", args, a)
		}
		for _, o := range aliases {
			if o != a && strings.Contains(part.Text, "## "+o+"\n") {
				t.Errorf("get_overview %v, %s's part as the outline says, reads %s's part too (%d lines)", args, a, o, part.EndLine-part.StartLine+1)
			}
		}
	}
}

// TestReview19cOverviewManyPackages: with more packages than the outline
// holds, it counts the packages it leaves out, all of them: INDEX.md
// itself lists only some of 300 (its own budget), and the outline said
// "… and 143 more packages" of the 265 it did not name.
func TestReview19cOverviewManyPackages(t *testing.T) {
	t.Parallel()
	var aliases []string
	for i := range 300 {
		aliases = append(aliases, fmt.Sprintf("pkg%03d", i))
	}
	cs := connect(t, overviewProject(t, 1, aliases...))
	var ov DocumentOut
	res := call(t, cs, "get_overview", nil, &ov)
	if res.IsError || !ov.Outline {
		t.Fatalf("want an outline: %.500s", clientView(t, res))
	}
	named := len(regexp.MustCompile(`(?m)^## pkg\d+ \(offset=`).FindAllString(ov.Text, -1))
	m := regexp.MustCompile(`… and (\d+) more packages`).FindStringSubmatch(ov.Text)
	if named == 0 || m == nil {
		t.Fatalf("the outline names %d packages and does not count the rest:\n%s", named, ov.Text)
	}
	if more, _ := strconv.Atoi(m[1]); named+more != len(aliases) {
		t.Errorf("the outline names %d packages and says %d more; %d are installed", named, more, len(aliases))
	}
}
