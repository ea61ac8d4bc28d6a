package indexer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/testtmp"
	"github.com/ctx-dev/ctx/internal/tokens"
)

var words = []string{
	"deploy", "service", "rollback", "kubernetes", "the", "a", "of", "configuration", "API", "gateway",
	"naïve", "café", "日本語", "文書", "🚀", "emoji✨", "x", "internationalization", "`code`", "**bold**",
	"https://example.com/a/very/long/url?with=query&and=more", "—", "e.g.", "1.2.3", "CamelCaseIdentifier",
}

func randText(r *rand.Rand, minWords, maxWords int) string {
	n := minWords + r.IntN(maxWords-minWords+1)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = words[r.IntN(len(words))]
		if r.IntN(12) == 0 {
			parts[i] += "."
		}
	}
	return strings.Join(parts, " ")
}

func randCorpus(r *rand.Rand, small bool) ([]Package, map[string][]fileRecord) {
	np := r.IntN(12)
	if small {
		np = r.IntN(3)
	}
	var pkgs []Package
	files := map[string][]fileRecord{}
	for i := 0; i < np; i++ {
		alias := fmt.Sprintf("pkg-%d-%s", i, strings.Repeat("x", r.IntN(30)))
		pkgs = append(pkgs, Package{
			Alias:  alias,
			Source: "https://git.example/" + randText(r, 1, 3) + ".git",
			Path:   strings.Repeat("sub/", r.IntN(3)),
			Ref:    "main",
			Rev:    strings.Repeat("c", 40),
		})
		nd := r.IntN(3) * r.IntN(600)
		if small {
			nd = r.IntN(40)
		}
		for j := 0; j < nd; j++ {
			dir := strings.Repeat(fmt.Sprintf("d%d/", r.IntN(5)), r.IntN(4))
			files[alias] = append(files[alias], fileRecord{
				Path:    fmt.Sprintf("%sdoc-%04d.md", dir, j),
				Title:   randText(r, 1, 12),
				Summary: randText(r, 0, 70),
				Lines:   10,
			})
		}
	}
	return pkgs, files
}

// TestIndexNeverOverBudget is the property test: for random corpora and
// budgets from 500 to 50,000 tokens, INDEX.md fits and is deterministic.
func TestIndexNeverOverBudget(t *testing.T) {
	t.Parallel()
	runs := 40
	if testing.Short() || testtmp.Race { // under -race: 109 s of indexer's 479 s (round 15)
		runs = 8
		t.Logf("%d corpora (-short or -race), not 40", runs)
	}
	r := rand.New(rand.NewPCG(1, 2))
	levelsSeen := map[bool]bool{}
	for i := 0; i < runs; i++ {
		pkgs, files := randCorpus(r, i%4 == 0) // every 4th corpus is small: most fit
		budget := 500 + r.IntN(49501)
		out, info := renderIndex(pkgs, files, budget, "")
		n := o200kCount(out)
		if n > budget {
			t.Fatalf("run %d: INDEX.md has %d tokens, budget %d (%d packages)", i, n, budget, len(pkgs))
		}
		if info.Tokens != n {
			t.Errorf("run %d: reported %d tokens, counted %d", i, info.Tokens, n)
		}
		again, _ := renderIndex(pkgs, files, budget, "")
		if again != out {
			t.Fatalf("run %d: output differs between identical runs", i)
		}
		if info.Degraded != "" {
			if !strings.Contains(out, "Shortened to fit the budget") && !strings.Contains(out, "cut to fit") {
				t.Errorf("run %d: degraded (%s) but the file does not say so", i, info.Degraded)
			}
			if !strings.Contains(out, "search") {
				t.Errorf("run %d: degraded file does not say how to reach the rest", i)
			}
		}
		levelsSeen[info.Degraded != ""] = true
	}
	if !levelsSeen[true] || !levelsSeen[false] {
		t.Errorf("the random corpora did not exercise both fitting and degraded files: %v", levelsSeen)
	}
}

func TestIndexDegradesInSteps(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	pkgs := []Package{{Alias: "big", Source: "s", Rev: strings.Repeat("a", 40)}, {Alias: "small", Source: "t"}}
	files := map[string][]fileRecord{}
	for j := 0; j < 400; j++ {
		files["big"] = append(files["big"], fileRecord{Path: fmt.Sprintf("area%d/doc%03d.md", j%7, j), Title: randText(r, 2, 6), Summary: "First sentence here. " + randText(r, 20, 40)})
	}
	for j := 0; j < 5; j++ {
		files["small"] = append(files["small"], fileRecord{Path: fmt.Sprintf("s%d.md", j), Title: fmt.Sprintf("Small %d", j), Summary: "Short summary. More words."})
	}
	full, info := renderIndex(pkgs, files, 1_000_000, "")
	if info.Degraded != "" || !strings.Contains(full, "First sentence here. ") {
		t.Fatalf("unlimited budget degraded: %s", info.Degraded)
	}
	fullTokens := o200kCount(full)
	steps := []struct {
		budget int
		want   string // what the big package is shortened to
	}{
		{fullTokens * 7 / 10, "big: summaries cut to their first sentence"},
		{fullTokens / 5, "big: titles only"},
		{800, "big: titles of "}, // as many as fit, then folder counts (audit16 finding 10)
	}
	for _, s := range steps {
		out, info := renderIndex(pkgs, files, s.budget, "")
		if !strings.Contains(info.Degraded, s.want) {
			t.Errorf("budget %d: degraded %q, want %q", s.budget, info.Degraded, s.want)
		}
		if !strings.Contains(out, "- Small 0 (`s0.md`): Short summary. More words.") {
			t.Errorf("budget %d: the small package lost its summaries while the big one degraded:\n%s", s.budget, out)
		}
		if n := o200kCount(out); n > s.budget {
			t.Errorf("budget %d: %d tokens", s.budget, n)
		}
	}
	out, _ := renderIndex(pkgs, files, 800, "")
	if !regexp.MustCompile("(?m)^- `area1/` — 5[0-6] more documents$").MatchString(out) {
		t.Errorf("folder counts missing:\n%s", out)
	}
}

func TestIndexEmpty(t *testing.T) {
	t.Parallel()
	out, info := renderIndex(nil, nil, 500, "")
	// Not `ctx add`: a dir source whose folder is gone also leaves INDEX.md
	// empty, and adding it again is not the fix.
	if !strings.Contains(out, "No packages are installed") || strings.Contains(out, "ctx add") || !strings.Contains(out, "missing") || info.Degraded != "" {
		t.Errorf("empty INDEX.md = %q", out)
	}
}

func TestFolderGroups(t *testing.T) {
	t.Parallel()
	var docs []fileRecord
	for i := 0; i < 100; i++ {
		docs = append(docs, fileRecord{Path: fmt.Sprintf("keps/sig-%d/%d-kep/README.md", i%10, i)})
	}
	docs = append(docs, fileRecord{Path: "README.md"})
	g := newFolderIndex(docs).groups(nil, nil)
	// depth 2 gives 10 sig folders (+ top level); depth 3 would give 100.
	if len(g) != 11 || g[0].label != "./" || g[1].label != "keps/sig-0/" || g[1].n != 10 {
		t.Errorf("groups = %+v", g)
	}
}

// TestFolderIndexSubset: the groups of the documents a "some titles"
// section does not show, from the whole set's folder index, are
// the groups of those documents copied out (without sample titles).
func TestFolderIndexSubset(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for run := 0; run < 200; run++ {
		var docs []fileRecord
		for i := 0; i < 1+r.IntN(300); i++ {
			p := "x.md"
			for d := r.IntN(8); d > 0; d-- {
				p = fmt.Sprintf("f%d/%s", r.IntN(1+r.IntN(12)), p)
			}
			docs = append(docs, fileRecord{Path: fmt.Sprintf("%s%d", p, i), Title: fmt.Sprint(i)})
		}
		shown := make([]bool, len(docs))
		var rest []fileRecord
		for i := range docs {
			if shown[i] = r.IntN(3) == 0; !shown[i] {
				rest = append(rest, docs[i])
			}
		}
		want := newFolderIndex(rest).groups(nil, nil)
		for i := range want {
			want[i].samples = nil
		}
		got := newFolderIndex(docs).groups(shown, nil)
		if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
			t.Fatalf("run %d: groups of the unshown\n got %+v\nwant %+v", run, got, want)
		}
	}
}

func TestCountTokensOffline(t *testing.T) {
	t.Parallel()
	// o200k: "hello world" is two tokens; the vocabulary is embedded.
	if n := new(tokens.Counter).Count("hello world"); n != 2 {
		t.Errorf("countTokens(hello world) = %d, want 2", n)
	}
}

func TestFolderSamples(t *testing.T) {
	t.Parallel()
	var docs []fileRecord
	for i := 0; i < 8; i++ {
		docs = append(docs, fileRecord{Path: fmt.Sprintf("cmds/%02d.md", i), Title: fmt.Sprintf("cmd%d", i)})
	}
	docs = append(docs, fileRecord{Path: "guide/only.md", Title: "The only guide"})
	s := &pkgSection{docs: docs}
	got := strings.Join(s.entries(levelSamples), "")
	want := "- `cmds/` — 8 documents, e.g. cmd2; cmd4; cmd6\n- `guide/` — 1 document: The only guide\n"
	if got != want {
		t.Errorf("samples level:\n%s\nwant\n%s", got, want)
	}
	if got := strings.Join(s.entries(levelFolders), ""); got != "- `cmds/` — 8 documents\n- `guide/` — 1 document\n" {
		t.Errorf("folders level:\n%s", got)
	}
}

// TestCountTokensBySegment: counting line by line (with the memo) gives
// exactly what the tokenizer gives for the whole text, on rendered INDEX.md
// files and on random text full of the characters that could join lines.
func TestCountTokensBySegment(t *testing.T) {
	t.Parallel()
	var tc tokens.Counter
	countTokens := tc.Count
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"\n", "\n\n", " \n", "\n ", "/", "//", "\r\n", ".", "...\n", "- ", "# ", "`x`", "\t", "\u00a0", "\u2028", "\u0085", "é", "日本", "12345", "'s", "<|endoftext|>", "word", " word", "URL: https://a/b", "—", "!!\n/", "\n/x"}
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for j := r.IntN(40); j >= 0; j-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := countTokens(s), o200kCount(s); got != want {
			t.Fatalf("countTokens(%q) = %d, the tokenizer says %d", s, got, want)
		}
	}
	pkgs := []Package{{Alias: "big", Source: "https://example.com/x.git", Rev: strings.Repeat("a", 40)}}
	files := map[string][]fileRecord{}
	for j := 0; j < 300; j++ {
		files["big"] = append(files["big"], fileRecord{Path: fmt.Sprintf("area%d/doc%03d.md", j%7, j), Title: randText(r, 2, 6), Summary: randText(r, 5, 40)})
	}
	for _, budget := range []int{500, 3000, 8000, 1_000_000} {
		out, info := renderIndex(pkgs, files, budget, "")
		if n := o200kCount(out); n != countTokens(out) || n != info.Tokens {
			t.Errorf("budget %d: tokenizer %d, countTokens %d, reported %d", budget, n, countTokens(out), info.Tokens)
		}
	}
}

// TestCodeSpan: a name in INDEX.md stays one code span whatever it holds:
// backquotes get a longer fence, controls are escaped.
func TestCodeSpan(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"docs/a.md":      "`docs/a.md`",
		"a`b.md":         "``a`b.md``",
		"x``y":           "```x``y```",
		"`lead.md":       "`` `lead.md ``",
		" spaced ":       "`  spaced  `",
		"l]i)n(k.md":     "`l]i)n(k.md`",
		"e\x1b[31m\n.md": "`e\\x1b[31m\\n.md`",
	} {
		if got := codeSpan(in); got != want {
			t.Errorf("codeSpan(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestIndexKeepsMostLinked: when INDEX.md is shortened to a few titles per
// folder, the titles shown are those of the documents others link to most.
func TestIndexKeepsMostLinked(t *testing.T) {
	t.Parallel()
	var recs []fileRecord
	for i := 0; i < 20; i++ {
		r := fileRecord{Path: fmt.Sprintf("ch/doc%02d.md", i), Title: fmt.Sprintf("Chapter number %d about things", i), Summary: "A summary of this chapter that is long enough to cost tokens."}
		if i >= 10 {
			r.Links = []rawLink{{Type: LinkMarkdown, Target: "doc02.html#x", Line: 3}}
		}
		recs = append(recs, r)
	}
	pkgs := []Package{{Alias: "book", Kind: "git", Source: "https://example.com/book.git", Dir: t.TempDir()}}
	files := map[string][]fileRecord{"book": recs}
	for budget := 60; budget < 2000; budget += 10 {
		out, info := renderIndex(pkgs, files, budget, "")
		if !strings.Contains(info.Degraded, "with example titles") {
			continue
		}
		if !strings.Contains(out, "Chapter number 2 about things") {
			t.Fatalf("budget %d: the most linked-to document is not among the samples:\n%s", budget, out)
		}
		return
	}
	t.Fatal("no budget gave the samples level")
}

// INDEX.md rendered with the token counts of an earlier render (costMemo:
// its sections' and its pieces') is the file rendered without them, and
// counts only the sections whose text changed.
func TestIndexMemoSameOutput(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for run := 0; run < 12; run++ {
		pkgs, files := randCorpus(r, false)
		budget := 500 + r.IntN(20000)
		want, wantInfo := renderIndex(pkgs, files, budget, "")
		memo := &costMemo{used: map[string]int{}}
		got, info := renderIndexMemo(pkgs, files, budget, "", memo, nil, nil, nil)
		if got != want || info != wantInfo {
			t.Fatalf("run %d: a render with an empty memo differs", run)
		}
		// Next render: one title changed, another budget.
		if len(pkgs) > 0 && len(files[pkgs[0].Alias]) > 0 {
			files[pkgs[0].Alias][0].Title += " changed"
		}
		budget += r.IntN(2000) - 1000
		want, wantInfo = renderIndex(pkgs, files, budget, "")
		if len(memo.pieces) == 0 {
			t.Fatalf("run %d: the render kept no pieces' counts", run)
		}
		memo = &costMemo{old: memo.used, used: map[string]int{}, oldPieces: memo.pieces}
		got, info = renderIndexMemo(pkgs, files, budget, "", memo, nil, nil, nil)
		if got != want || info != wantInfo {
			t.Fatalf("run %d: a render with the last render's memo differs", run)
		}
		// Counted again: the changed package's sections, and levels the
		// other budget reaches that the first render did not.
		counted := 0
		for k := range memo.used {
			if _, ok := memo.old[k]; !ok {
				counted++
			}
		}
		if len(pkgs) > 1 && counted > len(memo.used)/2+numLevels {
			t.Errorf("run %d: %d of %d section counts were counted again", run, counted, len(memo.used))
		}
	}
}

// o200kCount is the codec's count of s, whole: what a tokens.Counter's
// count is checked against.
func o200kCount(s string) int {
	n, err := tokens.Codec().Count(s)
	if err != nil {
		panic(err)
	}
	return n
}

// renderIndex is renderIndexMemo with no memo and no record of changes.
func renderIndex(pkgs []Package, files map[string][]fileRecord, budget int, from string) (string, renderInfo) {
	return renderIndexMemo(pkgs, files, budget, from, nil, nil, nil, nil)
}

// A Sync keeps the pieces' counts of its INDEX.md render in tokensFile,
// and the next render is seeded with them: the same INDEX.md as a render
// without them.
func TestIndexMDKeepsPieces(t *testing.T) {
	t.Parallel()
	dir := setupCorpus(t)
	if _, err := Sync(context.Background(), dir, testPackages(), Options{}); err != nil {
		t.Fatal(err)
	}
	indexDir := filepath.Join(dir, "index")
	memo := readCostMemo(indexDir)
	if len(memo.oldPieces) == 0 || len(memo.old) == 0 {
		t.Fatalf("%s holds %d section counts and %d pieces' counts", tokensFile, len(memo.old), len(memo.oldPieces))
	}
	var tc tokens.Counter
	tc.Seed(memo.oldPieces)
	if got := tc.Pieces(); len(got) != len(memo.oldPieces) {
		t.Fatalf("a counter seeded with %d pieces gives back %d", len(memo.oldPieces), len(got))
	}
	cat, err := readCatalog(indexDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.loadAllCtx(context.Background(), indexDir); err != nil {
		t.Fatal(err)
	}
	want, _ := renderIndexMemo(cat.Packages, cat.Files, DefaultBudgetTokens, dir, nil, nil, nil, nil)
	got, _ := renderIndexMemo(cat.Packages, cat.Files, DefaultBudgetTokens, dir, &costMemo{used: map[string]int{}, oldPieces: memo.oldPieces}, nil, nil, nil)
	if got != want {
		t.Fatalf("the render seeded with the kept pieces differs:\n%s\nwant:\n%s", got, want)
	}
}

// TestIndexUsesItsBudget (audit16, finding 10): a package too big for its
// titles gets as many of them as fit (the most linked-to first, with
// their paths), the others counted per folder, so INDEX.md uses most of
// its budget: 800 documents in one folder got 164 of 8,000 tokens (3
// titles), 1,500 in 30×7 folders 1,859. Never over, always the same, and
// a package's root folder is named, never an empty code span.
func TestIndexUsesItsBudget(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	flat, tree := make([]fileRecord, 800), make([]fileRecord, 1500)
	for i := range flat {
		flat[i] = fileRecord{Path: fmt.Sprintf("page%04d.md", i), Title: randText(r, 6, 6) + fmt.Sprint(i), Summary: randText(r, 60, 100)}
	}
	flat[700].Links = []rawLink{{Type: LinkMarkdown, Target: "page0750.md", Line: 3}}
	for i := range tree {
		tree[i] = fileRecord{Path: fmt.Sprintf("area%d/sub%d/page%04d.md", i%30, i/30%7, i), Title: randText(r, 6, 6) + fmt.Sprint(i), Summary: randText(r, 60, 100)}
	}
	for _, tt := range []struct {
		name  string
		pkg   Package
		docs  []fileRecord
		wants []string
	}{
		{"flat", Package{Alias: "flat", Kind: "git", Source: "https://example.com/flat.git", Rev: strings.Repeat("a", 40)}, flat,
			[]string{"(`page0750.md`)\n", "(`page0000.md`)\n", "- `./` — ", "more documents"}},
		{"flat dir source", Package{Alias: "notes", Kind: "dir", Source: "docs", Dir: "/p/docs"}, flat,
			[]string{"(`page0750.md`)\n", "- `./` — ", "`../docs/` · live"}},
		{"tree", Package{Alias: "big", Kind: "git", Source: "https://example.com/big.git", Rev: strings.Repeat("b", 40)}, tree,
			[]string{"(`area0/sub0/page0000.md`)\n", "(`area29/sub6/page0209.md`)\n", "- `area29/` — "}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string][]fileRecord{tt.pkg.Alias: tt.docs}
			const budget = 8000
			out, info := renderIndex([]Package{tt.pkg}, files, budget, "/p/.context")
			n := o200kCount(out)
			if n > budget || n < budget*3/4 {
				t.Errorf("INDEX.md has %d tokens of %d (%s):\n%.2000s", n, budget, info.Degraded, out)
			}
			if again, _ := renderIndex([]Package{tt.pkg}, files, budget, "/p/.context"); again != out {
				t.Error("two renders differ")
			}
			if strings.Contains(out, "``") {
				t.Errorf("an empty code span:\n%.2000s", out)
			}
			for _, w := range tt.wants {
				if !strings.Contains(out, w) {
					t.Errorf("lacks %q:\n%.3000s", w, out)
				}
			}
			if !strings.Contains(out, "Shortened to fit the budget") || !strings.Contains(info.Degraded, tt.pkg.Alias+": titles of ") {
				t.Errorf("the note does not say what was shortened (%q):\n%.1000s", info.Degraded, out)
			}
		})
	}
}

// TestIndexDirPathsAreThePackages (audit16, finding 7): INDEX.md names a
// dir source's documents by their path in the package, as get_document
// and the other tools take them (they refuse "../docs/notes.md"); the
// package's header says where its folder is, relative to INDEX.md.
func TestIndexDirPathsAreThePackages(t *testing.T) {
	t.Parallel()
	pkgs := []Package{
		{Alias: "docs", Kind: "dir", Source: "docs", Dir: "/p/docs"},
		{Alias: "agents", Kind: "dir", Source: "AGENTS.md", Dir: "/p", Only: "AGENTS.md"},
	}
	files := map[string][]fileRecord{
		"docs":   {{Path: "guide/notes.md", Title: "Notes", Summary: "Narwhal facts."}},
		"agents": {{Path: "AGENTS.md", Title: "Agents"}},
	}
	out, _ := renderIndex(pkgs, files, 8000, "/p/.context")
	for _, w := range []string{"- Notes (`guide/notes.md`): Narwhal facts.\n", "- Agents (`AGENTS.md`)\n", "`../docs/` · live", "`../AGENTS.md` · live"} {
		if !strings.Contains(out, w) {
			t.Errorf("lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "(`../") {
		t.Errorf("a document named by its path from .context/:\n%s", out)
	}
}
