package ctxref

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// findQuadratic is Find as it was before issue 25 (quadratic in the
// references on a line), kept as the reference the linear one must agree
// with.
func findQuadratic(line string) []Match {
	var out []Match
	for i := 0; i < len(line); {
		j := -1
		for k := i; k < len(line); {
			a := strings.Index(line[k:], AtPrefix)
			u := strings.Index(line[k:], URIPrefix)
			m := a
			if m < 0 || (u >= 0 && u < m) {
				m = u
			}
			if m < 0 {
				break
			}
			m += k
			if m == 0 || !isWord(line[m-1]) {
				j = m
				break
			}
			k = m + 1
		}
		if j < 0 {
			break
		}
		end := j
		for end < len(line) && !isStop(line[end]) {
			end++
		}
		text := strings.TrimRight(line[j:end], ".,;:!?*")
		r, err := Parse(text)
		if err != nil || !validName(nameOf(text)) {
			i = j + 1
			continue
		}
		out = append(out, Match{Ref: r, Col: j + 1, Text: text})
		i = j + len(text)
	}
	return out
}

// pieces are what the random lines are made of: prefixes, near misses,
// stops, punctuation, escapes.
var pieces = []string{
	"@ctx/", "ctx://packages/", "x", "a.md", "/", "#", "?", "%", "%2", "%2F", "%zz", ".", "!", ":", "*", ",",
	" ", "(", ")", "[", "]", "`", "'", "\"", "|", "a", "_", "-", "@", "ctx:", "user", "é", "\t", "<", ">",
}

func randomLine(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// Find agrees with the quadratic one on random lines of references, near
// misses and punctuation, and on hand-picked traps.
func TestFindAgrees(t *testing.T) {
	traps := []string{
		"@ctx/x/#@ctx/y/a.md", "ctx://packages/x/%zzctx://packages/y/a.md", "@ctx/x/?#a", "ctx://packages/x/?a",
		"@ctx/x/a.md?q#f", "ctx://packages/a%20b/c%2Fd.md?x#y", "@ctx/x/!!!", "@ctx/a.ctx://packages/x/y",
		"see @ctx/x/a.md, and ctx://packages/y/b.md.", "@ctx/x/%", "ctx://packages/x/a%2", "ctx://packages/x/a%",
		"(@ctx/x/a.md)", "@ctx/@ctx/@ctx/x/a", "x@ctx/x/a @ctx/y/b", "@ctx/x/.md", "@ctx/x/!#",
	}
	for _, l := range traps {
		if got, want := Find(l), findQuadratic(l); !reflect.DeepEqual(got, want) {
			t.Errorf("Find(%q) = %+v, want %+v", l, got, want)
		}
	}
	r := rand.New(rand.NewPCG(25, 6))
	for i := range 20000 {
		l := randomLine(r, 1+i%40)
		if got, want := Find(l), findQuadratic(l); !reflect.DeepEqual(got, want) {
			t.Fatalf("Find(%q) = %+v, want %+v", l, got, want)
		}
	}
}

func FuzzFindAgrees(f *testing.F) {
	f.Add("@ctx/x/#@ctx/y/a.md ctx://packages/x/%zzctx://packages/y/a.md")
	f.Fuzz(func(t *testing.T, l string) {
		if got, want := Find(l), findQuadratic(l); !reflect.DeepEqual(got, want) {
			t.Fatalf("Find(%q) = %+v, want %+v", l, got, want)
		}
	})
}

// 40,000 references on one line (issue 25: 18 s before) are all found,
// each where it is. How fast is BenchmarkScanOneLine's.
func TestManyOnOneLine(t *testing.T) {
	const n = 40_000
	line := strings.Repeat("@ctx/x/a.md ", n/2) + strings.Repeat("ctx://packages/y/b.md ", n/2)
	got := Find(line)
	if len(got) != n {
		t.Fatalf("%d references, want %d", len(got), n)
	}
	if m := got[n/2]; m.Col != 12*n/2+1 || m.Name != "y" || m.Path != "b.md" || m.Form != FormURI {
		t.Errorf("reference %d: %+v", n/2, m)
	}
}

// The reference limit counts references, not lines: it trips inside a
// line, with the references before it kept.
func TestScanLimitInsideLine(t *testing.T) {
	root := t.TempDir()
	line := strings.Repeat("@ctx/x/a.md ", 5000)
	if err := os.WriteFile(filepath.Join(root, "refs.md"), []byte("# Refs\n\n"+line+"\n@ctx/y/b.md\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Scan(root, []string{"refs.md"}, Limits{MaxRefs: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Refs) != 1000 || res.Refs[999].Line != 3 || res.Refs[999].Col != 999*12+1 {
		t.Errorf("%d references (last %+v), want 1000, the last at 3:%d", len(res.Refs), res.Refs[len(res.Refs)-1], 999*12+1)
	}
	want := "stopped after 1000 references (the limit) at refs.md:3"
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], want) {
		t.Errorf("warnings %q, want one saying %q", res.Warnings, want)
	}
}

// nameOf is the raw name of a reference that has a prefix.
func nameOf(text string) string {
	rest, ok := strings.CutPrefix(text, AtPrefix)
	if !ok {
		rest = strings.TrimPrefix(text, URIPrefix)
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}

// validName: what All takes as a name, [A-Za-z0-9._-]+ (an alias's
// characters; a registry name with other characters cannot be cited).
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isWord(c) && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// Find is All's references collected.
func Find(line string) []Match {
	return slices.Collect(All(line))
}
