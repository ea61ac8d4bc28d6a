package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/tokens"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"
	"github.com/ctx-dev/ctx/project"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readRevs are the fixture's locked revisions.
var (
	readGitRev   = strings.Repeat("c0ffee12", 5)
	readHTTPSRev = "sha256:" + strings.Repeat("5eed", 16)
)

// readDeploy has nested sections that all match "wombat".
const readDeploy = `# Deploy

How this team ships its services, from build to production.

## Rollout

The wombat rollout goes in three steps, each checked by the release lead.
Step one: build. Step two: stage. Step three: ship the wombat to everyone.

### Canary

Send the wombat canary to one percent of the traffic first and watch the error rate.

## Rollback

Roll back with the previous image when the error rate rises above one percent.
`

// readProject is a project with a git package (handbook), an https package
// (web) and a dir source (docs), indexed. handbook holds adversarial
// documents: a section of 3,000 lines (walrus) and a line of 1 MB
// (narwhal). One for the package, built once, which its tests only read
// (checkShared).
func readProject(t testing.TB) string {
	t.Helper()
	return sharedDir(t, &readShared, readProjectIn)
}

// readShared is readProject's project, built once: the tests that use it
// only read it (checked at the end: checkShared).
var readShared = sharedFixture[string]{name: "readProject"}

// readProjectIn writes readProject's project at dir.
func readProjectIn(t testing.TB, dir string) {
	t.Helper()
	ctxDir := filepath.Join(dir, project.DirName)
	pk := filepath.Join(ctxDir, project.PackagesDir)
	var big strings.Builder
	big.WriteString("# Big\n\nA document with one very long section about the walrus.\n\n## Giant\n\n")
	for i := range 3000 {
		fmt.Fprintf(&big, "Line %d of the giant section: the walrus migration log, entry %d, nothing else.\n", i+1, i+1)
	}
	files := map[string]string{
		"handbook/deploy.md": readDeploy,
		"handbook/care.md":   "# Care\n\nHow to look after the animals of the office zoo.\n\n## Wombat feeding\n\nFeed the wombat fresh grass every morning; the wombat likes roots too.\n",
		"handbook/big.md":    big.String(),
		"handbook/blob.md":   "# Blob\n\nA narwhal dump on one line follows.\n\n" + strings.Repeat("narwhal tusk data ", 60000) + "\n",
		"web/page.md":        "# Web\n\nThe vendor's web documentation, fetched over https.\n\n## Wombat on the web\n\nThe wombat page of the vendor documentation.\n",
	}
	for rel, content := range files {
		writeFile(t, filepath.Join(pk, filepath.FromSlash(rel)), content)
	}
	writeFile(t, filepath.Join(dir, "docs", "notes.md"), "# Notes\n\nThe project's own notes, served live.\n\n## Wombat notes\n\nLive wombat notes of the project.\n")
	writeFile(t, filepath.Join(ctxDir, project.ManifestName), `{"index":{},"packages":[
  {"alias":"handbook","source":"https://example.com/handbook.git"},
  {"alias":"web","kind":"https","source":"https://docs.example.com/llms.txt"},
  {"alias":"docs","kind":"dir","source":"./docs"}
]}`)
	upd := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	hash := "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{
		"handbook": {Kind: lockfile.KindGit, Source: "https://example.com/handbook.git", Ref: "main", Rev: readGitRev, Tree: strings.Repeat("b2", 20), Hash: hash, Updated: upd},
		"web":      {Kind: project.KindHTTPS, Source: "https://docs.example.com/llms.txt", Rev: readHTTPSRev, Hash: hash, Updated: upd},
	}}
	if err := lockfiletest.WriteInstalled(ctxDir, lock); err != nil {
		t.Fatal(err)
	}
	proj, err := project.At(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := proj.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Sync(context.Background(), ctxDir, proj.Installed(m, lock), indexer.Options{}); err != nil {
		t.Fatalf("indexer.Sync: %v", err)
	}
}

// readAnswer is one read_relevant answer as a client sees it.
type readAnswer struct {
	res   *mcp.CallToolResult
	out   ReadRelevantOut
	texts []string // the text of each section (header line first)
	// links[i] is the resource link after section i's text: its
	// document's, when no section before it is of the same document, and
	// nil when one is (a document is linked once).
	links []*mcp.ResourceLink
}

func readRelevant(t testing.TB, cs *mcp.ClientSession, args map[string]any) readAnswer {
	t.Helper()
	var a readAnswer
	a.res = call(t, cs, "read_relevant", args, &a.out)
	if a.res.IsError {
		t.Fatalf("read_relevant %v: %s", args, text(a.res))
	}
	for _, c := range a.res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			a.texts = append(a.texts, c.Text)
			a.links = append(a.links, nil)
		case *mcp.ResourceLink:
			if len(a.texts) == 0 || a.links[len(a.texts)-1] != nil {
				t.Fatalf("read_relevant %v: a resource link %s that follows no section's text", args, c.URI)
			}
			a.links[len(a.texts)-1] = c
		}
	}
	if len(a.texts) == len(a.out.Sections)+1 && len(a.out.Sections) > 0 {
		a.texts = a.texts[:len(a.out.Sections)] // the last one is the note and warning
		a.links = a.links[:len(a.out.Sections)]
	}
	if len(a.out.Sections) > 0 && len(a.texts) != len(a.out.Sections) {
		t.Fatalf("%d sections, %d texts: want one text per section", len(a.out.Sections), len(a.texts))
	}
	// No resource link (agent22): each text's header names its package
	// and path, which every document tool takes; a link per document
	// repeated them, 129-146 bytes each (Codex shows its JSON), up to 7%
	// of an answer.
	for i, l := range a.links {
		if l != nil {
			t.Fatalf("read_relevant %v: text %d is followed by a resource link to %s", args, i+1, l.URI)
		}
	}
	return a
}

// shownTokens counts what a client shows of an answer with o200k: the
// texts and the resource links (not _meta, which Claude Code and Codex do
// not show: metaTokens counts it).
func shownTokens(t testing.TB, a readAnswer) int {
	t.Helper()
	codec := tokens.Codec()
	if codec == nil {
		t.Fatal("the o200k codec did not load")
	}
	count := func(s string) int {
		n, err := codec.Count(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	n := 0
	for _, x := range a.texts {
		n += count(x)
	}
	for _, l := range a.links {
		if l != nil {
			n += count(l.URI + " " + l.Name + " " + l.MIMEType)
		}
	}
	return n
}

// metaTokens counts an answer's _meta with o200k.
func metaTokens(t testing.TB, res *mcp.CallToolResult) int {
	t.Helper()
	meta := maps.Clone(res.Meta)
	delete(meta, mcp.MetaKeyServerInfo)
	b, err := marshalJSON(meta)
	if err != nil {
		t.Fatal(err)
	}
	n, err := tokens.Codec().Count(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// fileLines reads a document of the fixture through the document model.
func fileLines(t testing.TB, dir, pkg, p string) []string {
	t.Helper()
	root := filepath.Join(dir, project.DirName, project.PackagesDir, pkg)
	if pkg == "docs" {
		root = filepath.Join(dir, "docs")
	}
	data, err := readDocument(pkgFiles{dir: root, live: true}, p)
	if err != nil {
		t.Fatal(err)
	}
	return markdown.Parse(data).Lines
}

// checkNoRepeats fails when two sections of an answer share a line.
func checkNoRepeats(t testing.TB, secs []RelevantSection) {
	t.Helper()
	for i, a := range secs {
		for _, b := range secs[:i] {
			if a.Package == b.Package && a.Path == b.Path && a.Lines[0] <= b.Lines[1] && b.Lines[0] <= a.Lines[1] {
				t.Errorf("sections overlap: %s/%s lines %v and %v", a.Package, a.Path, b.Lines, a.Lines)
			}
		}
	}
}

func TestReadRelevantWholeSectionsInRankOrder(t *testing.T) {
	t.Parallel()
	dir := readProject(t)
	cs := connect(t, dir)
	a := readRelevant(t, cs, map[string]any{"query": "wombat"})
	if len(a.out.Sections) < 4 {
		t.Fatalf("want the wombat sections of handbook, web and docs, got %+v", a.out.Sections)
	}
	// Rank order: the sections follow the search hits' order.
	var s SearchOut
	if res := call(t, cs, "search", map[string]any{"query": "wombat", "limit": 50}, &s); res.IsError {
		t.Fatal(text(res))
	}
	at := 0
	for _, sec := range a.out.Sections {
		for at < len(s.Hits) && (s.Hits[at].Package != sec.Package || s.Hits[at].Path != sec.Path || s.Hits[at].Heading != sec.Heading) {
			at++
		}
		if at == len(s.Hits) {
			t.Fatalf("section %s/%s %q is not in search's order %+v", sec.Package, sec.Path, sec.Heading, s.Hits)
		}
		at++
	}
	checkNoRepeats(t, a.out.Sections)
	for i, sec := range a.out.Sections {
		// A small answer: every section whole, as in the file.
		if sec.Section != [2]int{} || a.out.Truncated {
			t.Errorf("section %d %s/%s sent in part (%v of %v) with the default budget", i, sec.Package, sec.Path, sec.Lines, sec.Section)
		}
		lines := fileLines(t, dir, sec.Package, sec.Path)
		header, body, _ := strings.Cut(a.texts[i], "\n")
		if want := strings.Join(lines[sec.Lines[0]-1:sec.Lines[1]], "\n"); body != want {
			t.Errorf("section %d text:\n%s\nwant lines %v of the file:\n%s", i, body, sec.Lines, want)
		}
		if want := fmt.Sprintf("[%d] %s/%s:%d-%d · %s", i+1, sec.Package, sec.Path, sec.Lines[0], sec.Lines[1], sec.Heading); !strings.HasPrefix(header, want) {
			t.Errorf("header %q, want it to start with %q", header, want)
		}
	}
	// The section a heading trail opens is the one get_section reads.
	for _, sec := range a.out.Sections {
		if sec.Path != "care.md" {
			continue
		}
		var d DocumentOut
		if res := call(t, cs, "get_section", map[string]any{"package": sec.Package, "path": sec.Path, "heading": sec.Heading}, &d); res.IsError {
			t.Fatal(text(res))
		}
		if [2]int{d.StartLine, d.EndLine} != sec.Lines {
			t.Errorf("care.md: read_relevant sent lines %v, get_section %q reads %d-%d", sec.Lines, sec.Heading, d.StartLine, d.EndLine)
		}
	}
	// Rollout holds Canary: whichever comes first, no line is sent twice.
	var deploy []RelevantSection
	for _, sec := range a.out.Sections {
		if sec.Path == "deploy.md" {
			deploy = append(deploy, sec)
		}
	}
	if len(deploy) == 0 {
		t.Fatalf("no deploy.md section in %+v", a.out.Sections)
	}
}

// TestReadRelevantMergesCanaryAndRollback: deploy.md's Canary (lines
// 39-42) and Rollback (43-45) both match and touch: one text, whose
// header names the document (no resource link: readRelevant checks that
// on every answer).
func TestReadRelevantMergesCanaryAndRollback(t *testing.T) {
	t.Parallel()
	cs := connect(t, readProject(t))
	a := readRelevant(t, cs, map[string]any{"query": "error rate"})
	n := 0
	for i, sec := range a.out.Sections {
		if sec.Path == "deploy.md" {
			n++
			if !strings.Contains(a.texts[i], "### Canary") || !strings.Contains(a.texts[i], "## Rollback") || !strings.Contains(a.texts[i], " handbook/deploy.md:") {
				t.Errorf("deploy.md's text holds Canary and Rollback under one header:\n%s", a.texts[i])
			}
		}
	}
	if n != 1 {
		t.Fatalf("want one text of deploy.md, got %d: %+v", n, a.out.Sections)
	}
}

func TestReadRelevantProvenance(t *testing.T) {
	t.Parallel()
	dir := readProject(t)
	cs := connect(t, dir)
	a := readRelevant(t, cs, map[string]any{"query": "wombat"})
	want := map[string]struct{ kind, commit, label string }{
		"handbook": {"git", readGitRev, "git " + readGitRev[:12]},
		"web":      {"https", readHTTPSRev, "https " + readHTTPSRev[:19]},
		"docs":     {"dir", "", "live"},
	}
	seen := map[string]bool{}
	for i, sec := range a.out.Sections {
		w, ok := want[sec.Package]
		if !ok {
			t.Fatalf("unexpected package %q", sec.Package)
		}
		seen[sec.Package] = true
		if sec.Kind != w.kind || sec.Commit != w.commit {
			t.Errorf("%s/%s: kind %q commit %q, want %q %q", sec.Package, sec.Path, sec.Kind, sec.Commit, w.kind, w.commit)
		}
		header, _, _ := strings.Cut(a.texts[i], "\n")
		if !strings.Contains(header, " · "+w.label) {
			t.Errorf("header %q does not name the revision %q", header, w.label)
		}
	}
	if len(seen) != 3 {
		t.Errorf("want sections of handbook, web and docs, got %v", seen)
	}
	// A package filter keeps to the package.
	a = readRelevant(t, cs, map[string]any{"query": "wombat", "packages": []string{"web"}})
	if len(a.out.Sections) != 1 || a.out.Sections[0].Package != "web" || a.out.Sections[0].Heading != "Web > Wombat on the web" {
		t.Errorf("packages [web]: %+v", a.out.Sections)
	}
}

func TestReadRelevantBudget(t *testing.T) {
	t.Parallel()
	dir := readProject(t)
	cs := connect(t, dir)
	for _, c := range []struct {
		query     string
		maxTokens int
	}{
		{"walrus", 300}, {"walrus", 1000}, {"walrus", 3000}, {"walrus", 0},
		{"narwhal", 300}, {"narwhal", 3000}, {"narwhal", MaxMaxTokens},
		{"wombat", 300}, {"wombat walrus narwhal", 2000},
	} {
		a := readRelevant(t, cs, map[string]any{"query": c.query, "maxTokens": c.maxTokens})
		limit := c.maxTokens
		if limit == 0 {
			limit = DefaultMaxTokens
		}
		got := shownTokens(t, a)
		if got > limit*headroomPercent/100 {
			t.Errorf("%q maxTokens %d: the answer is %d tokens, over %d", c.query, c.maxTokens, got, limit*headroomPercent/100)
		}
		if len(a.out.Sections) == 0 {
			t.Errorf("%q maxTokens %d: no section (note %q)", c.query, c.maxTokens, a.out.Note)
			continue
		}
		checkNoRepeats(t, a.out.Sections)
		top := a.out.Sections[0]
		switch c.query {
		case "walrus":
			// 3,000 lines never fit: the part that matched, marked as a part.
			if top.Section == [2]int{} || !a.out.Truncated || !strings.Contains(a.texts[0], "part of lines") {
				t.Errorf("walrus maxTokens %d: the giant section is not marked as sent in part: %+v", c.maxTokens, top)
			}
		case "narwhal":
			if !top.Cut || !strings.Contains(a.texts[0], "cut") || len(a.texts[0]) > limit*4 {
				t.Errorf("narwhal maxTokens %d: the 1 MB line is not cut: %+v, %d bytes", c.maxTokens, top, len(a.texts[0]))
			}
		}
		if c.query == "walrus" && c.maxTokens >= 1000 && got < limit*headroomPercent/100/2 {
			t.Errorf("walrus maxTokens %d: only %d tokens of a 3,000-line section sent", c.maxTokens, got)
		}
	}
	// Too small for any passage: a note, when the note fits; else an
	// error that says what maxTokens is needed. (120 held none while each
	// document came with a resource link: agent22 dropped them.)
	a := readRelevant(t, cs, map[string]any{"query": "narwhal", "maxTokens": 90})
	if len(a.out.Sections) != 0 || !strings.Contains(a.out.Note, "none fits in maxTokens 90") {
		t.Errorf("maxTokens 90: %+v", a.out)
	}
	wantError(t, call(t, cs, "read_relevant", map[string]any{"query": "wombat", "maxTokens": 1}, nil), "maxTokens 1 is too small", "give maxTokens")
}

func TestReadRelevantRefusesAndNotes(t *testing.T) {
	t.Parallel()
	dir := readProject(t)
	cs := connect(t, dir)
	for _, n := range []int{-1, MaxMaxTokens + 1} {
		wantError(t, call(t, cs, "read_relevant", map[string]any{"query": "wombat", "maxTokens": n}, nil),
			fmt.Sprintf("maxTokens %d is out of range", n), "1 to 20000")
	}
	wantError(t, call(t, cs, "read_relevant", map[string]any{"query": "  "}, nil), "empty query")
	wantError(t, call(t, cs, "read_relevant", map[string]any{"query": strings.Repeat("a ", 1001)}, nil), "more than the 1000")
	wantError(t, call(t, cs, "read_relevant", map[string]any{"query": "wombat", "packages": []string{"handbok"}}, nil), "unknown package", "handbook")
	a := readRelevant(t, cs, map[string]any{"query": "xylophonist"})
	if len(a.out.Sections) != 0 || !strings.Contains(a.out.Note, "no matches") || !strings.Contains(text(a.res), "no matches") {
		t.Errorf("no match: %+v, text %q", a.out, text(a.res))
	}
}

// TestReadRelevantServesOnlyPackages: on the hostile fixture (symlinks out
// of the package, hidden folders, files outside .context/packages), no
// answer holds what is outside.
func TestReadRelevantServesOnlyPackages(t *testing.T) {
	t.Parallel()
	p := sharedProject(t)
	cs := connect(t, p.dir)
	for _, q := range []string{"zanzibar", secret, "secret", "hidden trick", "wide", "quokka"} {
		res := call(t, cs, "read_relevant", map[string]any{"query": q, "maxTokens": 4000}, nil)
		if res.IsError {
			t.Fatalf("%q: %s", q, text(res))
		}
		b, _ := json.Marshal(res)
		if strings.Contains(string(b), secret) {
			t.Errorf("%q: the answer holds the secret", q)
		}
	}
}

func TestReadRelevantListed(t *testing.T) {
	t.Parallel()
	cs := connect(t, readProject(t))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Tools, func(tl *mcp.Tool) bool { return tl.Name == "read_relevant" })
	if i < 0 {
		t.Fatal("read_relevant is not listed")
	}
	tl := res.Tools[i]
	if len(tl.Description) > 2048 {
		t.Errorf("description is %d bytes, over 2 KB", len(tl.Description))
	}
	if a := tl.Annotations; a == nil || !a.ReadOnlyHint || a.DestructiveHint != nil {
		t.Errorf("annotations %+v: want read-only (and no destructiveHint: the spec reads it only when not read-only)", a)
	}
}

func TestAskDocsPrompt(t *testing.T) {
	t.Parallel()
	cs := connect(t, readProject(t))
	ctx := context.Background()
	if c := cs.InitializeResult().Capabilities.Prompts; c == nil || c.ListChanged {
		t.Errorf("prompts capability %+v: want prompts without list changes", c)
	}
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Prompts) != 1 || list.Prompts[0].Name != "ask-docs" {
		t.Fatalf("prompts: %+v", list.Prompts)
	}
	if args := list.Prompts[0].Arguments; len(args) != 1 || args[0].Name != "question" || !args[0].Required {
		t.Errorf("ask-docs arguments: %+v", args)
	}
	q := "How do we roll out the wombat?"
	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "ask-docs", Arguments: map[string]string{"question": q}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 1 || got.Messages[0].Role != "user" {
		t.Fatalf("messages: %+v", got.Messages)
	}
	msg, ok := got.Messages[0].Content.(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T, want text", got.Messages[0].Content)
	}
	// The steps in order: overview, then read_relevant, then get_section.
	last := -1
	for _, w := range []string{q, "get_overview", "read_relevant", "get_section"} {
		at := strings.Index(msg.Text, w)
		if at < 0 || at < last {
			t.Errorf("the prompt does not name %q after the step before it:\n%s", w, msg.Text)
		}
		last = at
	}
	// A question is not a query: a word that looks like a qualifier of no
	// kind (Kubernetes' kind:Deployment) is the question's.
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "ask-docs", Arguments: map[string]string{"question": "Where is kind:Deployment set?"}}); err != nil {
		t.Errorf("ask-docs with kind:Deployment in the question: %v", err)
	}
	for _, args := range []map[string]string{nil, {"question": "  "}} {
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "ask-docs", Arguments: args}); err == nil || !strings.Contains(err.Error(), `needs the argument "question"`) {
			t.Errorf("ask-docs %v: err %v, want one naming the missing question", args, err)
		}
	}
}

// TestUnmatchedWordsSaid (agent20): read_relevant and search say which of
// the query's words no document has, so that an agent tells a typo or an
// absent term from a weak match; a query whose words are all there says
// nothing of the kind.
func TestUnmatchedWordsSaid(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	res := call(t, cs, "read_relevant", map[string]any{"query": "how do I roll back the pagge"}, nil)
	view := clientView(t, res)
	if res.IsError || !strings.Contains(view, `no document has the word "pagge" (a typo?): the sections above match the other words.`) || !strings.Contains(view, "[1] hub/rb.md") {
		t.Errorf("read_relevant with a typo: %s", view)
	}
	res = call(t, cs, "read_relevant", map[string]any{"query": "zanzibar qwxzv"}, nil)
	if view := clientView(t, res); res.IsError || !strings.Contains(view, `no document has the words "zanzibar" or "qwxzv" (a typo?).`) {
		t.Errorf("read_relevant with no word found: %s", view)
	}
	res = call(t, cs, "read_relevant", map[string]any{"query": "how do I roll back"}, nil)
	if view := clientView(t, res); res.IsError || strings.Contains(view, "no document has") {
		t.Errorf("read_relevant, every word found: %s", view)
	}
	var out SearchOut
	if res := call(t, cs, "search", map[string]any{"query": "roll back pagge"}, &out); res.IsError || !slices.Equal(out.Unmatched, []string{"pagge"}) || len(out.Hits) == 0 {
		t.Errorf("search with a typo: %s", clientView(t, res))
	}
	if res := call(t, cs, "search", map[string]any{"query": "roll back"}, &out); res.IsError || strings.Contains(clientView(t, res), "unmatched") {
		t.Errorf("search, every word found: %s", clientView(t, res))
	}
}

// TestUnmatchedWordsBounded (review20-agent20): a query of many words no
// document has (an agent pasting a log line or a stack trace) names the
// first few of them and counts the rest: the whole list, in read_relevant's
// text and its _meta, or in search's JSON, cost more than the answer's
// budget, so that a query which matched ("page") was refused as "maxTokens
// is too small".
func TestUnmatchedWordsBounded(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	words := make([]string, 300)
	for i := range words {
		words[i] = fmt.Sprintf("zqx%c%c%c", 'a'+i/26/26%26, 'a'+i/26%26, 'a'+i%26)
	}
	query := strings.Join(words, " ") + " page"
	var out SearchOut
	res := call(t, cs, "search", map[string]any{"query": query, "maxTokens": 1500}, &out)
	if res.IsError || len(out.Hits) == 0 || !slices.Equal(out.Unmatched, words[:maxUnmatchedShown]) || out.UnmatchedMore != 300-maxUnmatchedShown {
		t.Errorf("search with 300 unknown words: %.600s", clientView(t, res))
	}
	res = call(t, cs, "read_relevant", map[string]any{"query": query, "maxTokens": 1500}, nil)
	view := clientView(t, res)
	want := fmt.Sprintf(`"%s" or %d more (a typo?): the sections above match the other words.`, words[maxUnmatchedShown-1], 300-maxUnmatchedShown)
	if res.IsError || !strings.Contains(view, want) || strings.Contains(view, words[maxUnmatchedShown]) {
		t.Errorf("read_relevant with 300 unknown words: want %q in\n%.1500s", want, view)
	}
}

// TestOnlyExclusionsSaid (chunk23): a query of exclusions alone (a flag
// such as -roll) has nothing to rank by; search and read_relevant search
// its words as written, the page that has them first and scored, and say
// so (indexer.OnlyExclusionsNote), in the JSON the client shows and in
// read_relevant's text. Before, every other passage came at score 0 and
// nothing was said.
func TestOnlyExclusionsSaid(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	var out SearchOut
	res := call(t, cs, "search", map[string]any{"query": "-roll"}, &out)
	if res.IsError || len(out.Hits) == 0 || out.Hits[0].Path != "rb.md" || out.Hits[0].Score <= 0 || out.Warning != indexer.OnlyExclusionsNote {
		t.Errorf("search -roll: %s", clientView(t, res))
	}
	for _, h := range out.Hits {
		if h.Score <= 0 {
			t.Errorf("search -roll: %s at score %v", h.Path, h.Score)
		}
	}
	res = call(t, cs, "read_relevant", map[string]any{"query": "-roll"}, nil)
	if view := clientView(t, res); res.IsError || !strings.Contains(view, indexer.OnlyExclusionsNote) || !strings.Contains(view, "[1] hub/rb.md") {
		t.Errorf("read_relevant -roll: %s", view)
	}
	// review23-chunk23: a flag no document has is named as unmatched, as
	// search read it (before, Unmatched read it as an exclusion: nothing).
	var out3 SearchOut
	res = call(t, cs, "search", map[string]any{"query": "-zanzibarflag"}, &out3)
	if res.IsError || len(out3.Hits) != 0 || !slices.Equal(out3.Unmatched, []string{"-zanzibarflag"}) {
		t.Errorf("search -zanzibarflag: %s", clientView(t, res))
	}
	// With a word to search for, -word leaves passages out, and no note.
	var out2 SearchOut
	res = call(t, cs, "search", map[string]any{"query": "steps -roll"}, &out2)
	if res.IsError || out2.Warning != "" || len(out2.Hits) != 1 || out2.Hits[0].Path != "rb2.md" {
		t.Errorf("search steps -roll: %s", clientView(t, res))
	}
}

// TestRelatedOnlyExclusionsSaid (review23-chunk23): related by a query of
// exclusions alone starts at the document its search found with the
// words as written, and says so, as search and read_relevant do; before,
// it said nothing of the reading.
func TestRelatedOnlyExclusionsSaid(t *testing.T) {
	t.Parallel()
	cs := connect(t, agentViewProject(t, 1))
	var out RelatedOut
	res := call(t, cs, "related", map[string]any{"query": "-roll"}, &out)
	if res.IsError || out.Start.Path != "rb.md" || !strings.Contains(out.Warning, indexer.OnlyExclusionsNote) {
		t.Errorf("related -roll: %s", clientView(t, res))
	}
	var out2 RelatedOut
	res = call(t, cs, "related", map[string]any{"query": "roll back"}, &out2)
	if res.IsError || strings.Contains(out2.Warning, indexer.OnlyExclusionsNote) {
		t.Errorf("related roll back: %s", clientView(t, res))
	}
}
