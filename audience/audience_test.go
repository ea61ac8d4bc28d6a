package audience

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

// The specification's matrix, verbatim.
func TestMatrix(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		include, exclude []string
		project          string
		allow            bool
	}{
		{[]string{"*"}, nil, "any-project", true},
		{[]string{"project-a"}, nil, "project-a", true},
		{[]string{"project-a"}, nil, "project-b", false},
		{[]string{"*-service"}, nil, "auth-service", true},
		{[]string{"*-service"}, nil, "web-app", false},
		{[]string{"*"}, []string{"temp-*"}, "temp-project", false},
		{[]string{"*"}, []string{"temp-*"}, "prod-project", true},
		{nil, nil, "any-project", true},
	} {
		if got := Allowed(c.include, c.exclude, c.project); got != c.allow {
			t.Errorf("Allowed(%q, %q, %q) = %v, want %v", c.include, c.exclude, c.project, got, c.allow)
		}
	}
}

// More cases of the rules' order.
func TestRulesOrder(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		include, exclude []string
		project          string
		allow            bool
	}{
		{nil, []string{"*"}, "p", true},                         // rule 1: no include list, public
		{[]string{}, nil, "p", false},                           // an empty include list matches nothing
		{[]string{"p", "q"}, []string{"p"}, "p", false},         // rule 3 before rule 4
		{[]string{"shared/team-*"}, nil, "shared/team-a", true}, // '/' is literal
		{[]string{"shared/team-*"}, nil, "shared/x/team-a", false},
		{[]string{"*"}, []string{"*"}, "p", false},
		{[]string{"P"}, nil, "p", false}, // case matters
	} {
		if got := Allowed(c.include, c.exclude, c.project); got != c.allow {
			t.Errorf("Allowed(%q, %q, %q) = %v, want %v", c.include, c.exclude, c.project, got, c.allow)
		}
	}
}

// oracleBytes is glob matching by dynamic programming over bytes:
// ok[i][j] says pattern[i:] matches name[j:].
func oracleBytes(pattern, name string) bool {
	p, n := []byte(pattern), []byte(name)
	ok := make([][]bool, len(p)+1)
	for i := range ok {
		ok[i] = make([]bool, len(n)+1)
	}
	ok[len(p)][len(n)] = true
	for i := len(p) - 1; i >= 0; i-- {
		for j := len(n); j >= 0; j-- {
			if p[i] == '*' {
				ok[i][j] = ok[i+1][j] || (j < len(n) && ok[i][j+1])
			} else {
				ok[i][j] = j < len(n) && p[i] == n[j] && ok[i+1][j+1]
			}
		}
	}
	return ok[0][0]
}

// oracleRunes is the textbook recursion over characters, memoised: a star
// either matches nothing or eats one character and stays.
func oracleRunes(pattern, name []rune) bool {
	memo := map[[2]int]bool{}
	var rec func(i, j int) bool
	rec = func(i, j int) bool {
		if v, ok := memo[[2]int{i, j}]; ok {
			return v
		}
		var v bool
		switch {
		case i == len(pattern):
			v = j == len(name)
		case pattern[i] == '*':
			v = rec(i+1, j) || (j < len(name) && rec(i, j+1))
		default:
			v = j < len(name) && pattern[i] == name[j] && rec(i+1, j+1)
		}
		memo[[2]int{i, j}] = v
		return v
	}
	return rec(0, 0)
}

// oracleAllowed is the rules as the specification words them, with the
// oracle's matcher.
func oracleAllowed(include, exclude []string, project string) bool {
	any := func(ps []string) bool {
		for _, p := range ps {
			if oracleRunes([]rune(p), []rune(project)) {
				return true
			}
		}
		return false
	}
	if include == nil {
		return true
	}
	if len(include) == 1 && include[0] == "*" {
		return !any(exclude)
	}
	if any(exclude) {
		return false
	}
	return any(include)
}

// alphabet is what generated names and patterns are made of: letters that
// collide often, '/', regex metacharacters and multi-byte characters.
var alphabet = []rune("ab-/.?+()[]^$|\\{}é日🙂*")

// genName makes a name of up to 8 characters from alphabet minus '*'.
func genName(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(9) {
		c := alphabet[r.IntN(len(alphabet)-1)]
		b.WriteRune(c)
	}
	return b.String()
}

// genPattern derives a pattern from name (so that many match): pieces are
// kept, replaced or dropped, and stars put at random positions, including
// the first and the last, and runs of stars.
func genPattern(r *rand.Rand, name string) string {
	if r.IntN(4) == 0 {
		name = genName(r)
	}
	var b strings.Builder
	rs := []rune(name)
	for i := 0; i <= len(rs); i++ {
		if r.IntN(3) == 0 {
			b.WriteString(strings.Repeat("*", 1+r.IntN(2)))
		}
		if i == len(rs) {
			break
		}
		switch r.IntN(8) {
		case 0: // dropped
		case 1:
			b.WriteRune(alphabet[r.IntN(len(alphabet)-1)])
		default:
			b.WriteRune(rs[i])
		}
	}
	return b.String()
}

// TestMatchOracle checks Match and Allowed against the oracles on 100,000
// generated (patterns, project) pairs, and a star at every position of
// names.
func TestMatchOracle(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(12, 2026))
	const pairs = 100_000
	mismatches, matched := 0, 0
	for range pairs {
		project := genName(r)
		var include, exclude []string
		if r.IntN(5) != 0 {
			include = []string{}
			for range r.IntN(3) + 1 {
				include = append(include, genPattern(r, project))
			}
			if r.IntN(6) == 0 {
				include = []string{"*"}
			}
		}
		for range r.IntN(3) {
			exclude = append(exclude, genPattern(r, project))
		}
		for _, p := range append(append([]string{}, include...), exclude...) {
			got, want := Match(p, project), oracleRunes([]rune(p), []rune(project))
			if got != oracleBytes(p, project) || got != want {
				mismatches++
				if mismatches < 10 {
					t.Errorf("Match(%q, %q) = %v, oracle %v", p, project, got, want)
				}
			}
			if want {
				matched++
			}
		}
		if got, want := Allowed(include, exclude, project), oracleAllowed(include, exclude, project); got != want {
			mismatches++
			if mismatches < 10 {
				t.Errorf("Allowed(%q, %q, %q) = %v, oracle %v", include, exclude, project, got, want)
			}
		}
	}
	// A star at every position of a name, alone or with a wrong character.
	for _, name := range []string{"auth-service", "shared/team-é", "a.b+c(d)", "日本🙂/x", "aaaa"} {
		rs := []rune(name)
		for i := 0; i <= len(rs); i++ {
			for j := i; j <= len(rs); j++ {
				for _, p := range []string{
					string(rs[:i]) + "*" + string(rs[j:]),
					string(rs[:i]) + "*" + string(rs[j:]) + "x",
					string(rs[:i]) + "**" + string(rs[i:j]) + "*" + string(rs[j:]),
				} {
					if got, want := Match(p, name), oracleRunes([]rune(p), rs); got != want {
						mismatches++
						t.Errorf("Match(%q, %q) = %v, oracle %v", p, name, got, want)
					}
				}
			}
		}
	}
	if mismatches != 0 {
		t.Fatalf("%d mismatches", mismatches)
	}
	if matched < pairs/10 {
		t.Fatalf("only %d patterns matched: the generator does not exercise matches", matched)
	}
	t.Logf("%d pairs, %d matching patterns, 0 mismatches", pairs, matched)
}

func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{{"*", ""}, {"*-service", "auth-service"}, {"a*b*c", "abc"}, {"a*a", "a"}, {"**x", "yx"}, {"é*", "é日"}, {"[a]*", "[a]b"}, {"*\xff", "\xfe\xff"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if len(pattern) > 64 || len(name) > 64 {
			return // the oracles are quadratic
		}
		got := Match(pattern, name)
		if want := oracleBytes(pattern, name); got != want {
			t.Fatalf("Match(%q, %q) = %v, oracle %v", pattern, name, got, want)
		}
		if utf8.ValidString(pattern) && utf8.ValidString(name) {
			if want := oracleRunes([]rune(pattern), []rune(name)); got != want {
				t.Fatalf("Match(%q, %q) = %v, rune oracle %v", pattern, name, got, want)
			}
		}
	})
}

func TestRead(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, doc        string
		include, exclude []string
		errLine          int // 0: no error
		errHas           string
	}{
		{"none", "# Title\n", nil, nil, 0, ""},
		{"no keys", "---\ntitle: x\n---\n", nil, nil, 0, ""},
		{"yaml lists", "---\nctx_include: [project-a, \"shared/team-*\"]\nctx_exclude: temp-*\n---\n", []string{"project-a", "shared/team-*"}, []string{"temp-*"}, 0, ""},
		{"synonyms", "---\ncodex_sync_include: [b]\nctx_include: a\ncodex_sync_exclude: [x]\n---\n", []string{"a", "b"}, []string{"x"}, 0, ""},
		{"empty list", "---\nctx_include: []\n---\n", []string{}, nil, 0, ""},
		{"toml", "+++\nctx_include = [\"a\"]\n+++\n", []string{"a"}, nil, 0, ""},
		{"json", "{\n  \"ctx_exclude\": [\"a\"]\n}\n", nil, []string{"a"}, 0, ""},
		{"number", "---\ntitle: x\nctx_include: 42\n---\n", nil, nil, 3, "a number (42)"},
		{"map", "---\nctx_exclude:\n  a: b\n---\n", nil, nil, 2, "a map"},
		{"number in list", "---\ncodex_sync_include: [a, 7]\n---\n", nil, nil, 2, "a number (7) in the list"},
		{"null", "---\nctx_include:\n---\n", nil, nil, 2, "an empty value"},
		{"bad yaml with key", "---\ncodex_sync_include: [*]\n---\n", nil, nil, 2, "front matter cannot be read"},
		{"bad yaml without key", "---\ntitle: [\n---\n", nil, nil, 0, ""},
		{"unclosed with key", "---\nctx_include: [a]\nbody\n", nil, nil, 1, "front matter cannot be read"},
	} {
		r, err := Read("doc.md", []byte(c.doc))
		if c.errLine != 0 {
			e, ok := err.(*Error)
			if !ok || e.Line != c.errLine || !strings.Contains(e.Msg, c.errHas) {
				t.Errorf("%s: Read = %v, want an error at line %d with %q", c.name, err, c.errLine, c.errHas)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !equal(r.Include, c.include) || !equal(r.Exclude, c.exclude) {
			t.Errorf("%s: Read = %q, %q; want %q, %q", c.name, r.Include, r.Exclude, c.include, c.exclude)
		}
	}
}

// TestReadOnlyMarkdown: rules are read from markdown front matter only; a
// YAML or JSON document that would be front matter in a .md file, a text
// file, have none.
func TestReadOnlyMarkdown(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"rules.yaml": "---\nctx_include: [nobody]\n---\n",
		"rules.yml":  "---\nctx_include: 42\n---\n",
		"rules.json": "{\n  \"ctx_exclude\": [\"*\"]\n}\n",
		"rules.toml": "+++\nctx_include = [\"nobody\"]\n+++\n",
		"rules.txt":  "---\nctx_include: [nobody]\n---\n",
		"rules.rst":  "---\nctx_include: [nobody]\n---\n",
		"rules.adoc": "---\nctx_include: [nobody]\n---\n",
	} {
		if r, err := Read(name, []byte(doc)); err != nil || r.Any() {
			t.Errorf("Read(%s) = %+v, %v; want no rules", name, r, err)
		}
	}
	if r, err := Read("rules.MD", []byte("---\nctx_include: [nobody]\n---\n")); err != nil || !r.Any() {
		t.Errorf("Read(rules.MD) = %+v, %v; want the rule", r, err)
	}
}

func equal(a, b []string) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzRead: Read never panics; an error names a line of the document; and
// rules, when read, decide the same way as Allowed.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"---\nctx_include: [a, \"b*\"]\nctx_exclude: c\n---\n# x\n", "+++\nctx_include = 1\n+++\n", "{\n\"codex_sync_include\": {}\n}\n", "---\nctx_include: [*]\n---\n", "\xef\xbb\xbf---\nctx_exclude:\n---\n"} {
		f.Add([]byte(s), "a")
	}
	f.Fuzz(func(t *testing.T, doc []byte, project string) {
		r, err := Read("doc.md", doc)
		if err != nil {
			e, ok := err.(*Error)
			if !ok || e.Line < 1 || e.Line > len(markdown.Lines(doc))+1 {
				t.Fatalf("Read error %v: want an *Error at a line of the document", err)
			}
			return
		}
		if r.Allows(project) != Allowed(r.Include, r.Exclude, project) {
			t.Fatal("Allows and Allowed disagree")
		}
	})
}
