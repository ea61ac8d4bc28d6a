package indexer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer/markdown"
)

// chunkSummary is "trail lines" of each chunk, as the tests below expect.
func chunkSummary(cs []chunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = fmt.Sprintf("%s %d-%d", strings.Join(c.Trail, " > "), c.Start, c.End)
	}
	return out
}

// prose is n bytes of words, enough to make a section a chunk of its own.
func prose(word string, n int) string {
	return strings.TrimSpace(strings.Repeat(word+" ", n/(len(word)+1)+1))
}

// kepYAML is a kep.yaml: every key but kep-number has enough text to be a
// chunk; kep-number joins the key after it.
var kepYAML = `title: Graceful node shutdown for the kubelet
kep-number: 2000
authors:
  - "@bobbypage"
  - "@mrunalp"
  - "@wzshiming"
owning-sig: sig-node
# The feature gates, and where to enable them.
feature-gates:
  - name: GracefulNodeShutdown
    components:
      - kubelet
  - name: GracefulNodeShutdownBasedOnPodPriority
    components:
      - kubelet
milestone:
  alpha: "v1.20"
  beta: "v1.21"
  stable: "v1.28"
`

// numbered is n lines made by f, each ending in a line end.
func numbered(n int, f func(i int) string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(f(i) + "\n")
	}
	return b.String()
}

var (
	description = numbered(20, func(i int) string {
		return fmt.Sprintf("  Line %02d of the description says what the billing service does.", i)
	})
	// serviceYAML: a comment, two short keys (lines 2-3), a 1.4 KB block
	// (4-24), a 1.5 KB list (25-55), a short last key (56).
	serviceYAML = "# Service definition.\nname: billing\nowner: team-payments\ndescription: |\n" + description +
		"endpoints:\n" + numbered(30, func(i int) string { return fmt.Sprintf("  - GET /v1/invoices/%02d returns one invoice", i) }) +
		"tags: [billing, payments]\n"
	// openAPIJSON: short keys (lines 1-3), paths of 40 operations (4-45),
	// short components (46-50).
	openAPIJSON = "{\n  \"openapi\": \"3.1.0\",\n  \"info\": {\"title\": \"Pets\", \"version\": \"1\"},\n  \"paths\": {\n" +
		numbered(40, func(i int) string {
			return fmt.Sprintf(`    "/pets/%02d": {"get": {"operationId": "getPet%02d", "summary": "one pet"}},`, i, i)
		}) + "    \"/health\": {}\n  },\n  \"components\": {\n    \"schemas\": {\"Pet\": {\"type\": \"object\"}}\n  }\n}\n"
	// cargoTOML: [package] (1-3), 40 dependencies (5-45), a short table
	// (47-48).
	cargoTOML = "[package]\nname = \"demo\"\nversion = \"1.0.0\"\n\n[dependencies]\n" +
		numbered(40, func(i int) string { return fmt.Sprintf(`dep%02d = { version = "1.0.0", features = ["full"] }`, i) }) +
		"\n[profile.release]\nlto = true\n"
)

// openAPIBig has short keys (lines 1-5), 1.6 KB of paths (from line 6)
// and short components.
var openAPIBig = "openapi: 3.1.0\ninfo:\n  title: Petstore API\n  description: The pets of a store.\n  version: 1.0.0\npaths:\n" +
	numbered(30, func(i int) string {
		return fmt.Sprintf("  /pets/%02d:\n    get:\n      operationId: getPet%02d", i, i)
	}) + "components:\n  schemas:\n    Pet:\n      type: object\n"

var openAPI = `openapi: 3.1.0
info:
  title: Petstore API
  description: Lists, creates and deletes the pets of a store.
  version: 1.0.0
paths:
  /pets:
    get:
      operationId: listPets
      summary: List every pet of the store, a page at a time
    post:
      operationId: createPet
      summary: Create a pet
components:
  schemas:
    Pet:
      type: object
      required: [id, name]
`

func TestFormatChunks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in string
		want     []string // chunk trails and lines
		title    string
		summary  string
	}{
		{
			name: "guide.rst",
			in: "=====\nGuide\n=====\n\n" + prose("intro", 80) + "\n\nInstall\n=======\n\n" + prose("install", 80) +
				"\n\nLinux\n-----\n\n" + prose("apt", 80) + "\n\n" + "Mac\n---\n\n" + prose("brew", 80) + "\n",
			want:  []string{"Guide 1-5", "Guide > Install 7-10", "Guide > Install > Linux 12-15", "Guide > Install > Mac 17-20"},
			title: "Guide", summary: prose("intro", 80),
		},
		{
			name: "manual.adoc",
			in: "= Manual\nA. Author\n:toc:\n\n" + prose("preamble", 80) + "\n\n== Setup\n\n" + prose("setup", 80) +
				"\n\n=== Keys\n\n" + prose("keys", 80) + "\n\n==== Deep\n\n" + prose("deep", 80) + "\n\n== Use\n\n" + prose("use", 80) + "\n",
			// ==== is level 4: inside its level-3 chunk, as markdown's ####.
			want:  []string{"Manual 1-5", "Manual > Setup 7-9", "Manual > Setup > Keys 11-17", "Manual > Use 19-21"},
			title: "Manual", summary: prose("preamble", 80),
		},
		{
			name:  "keps/kep.yaml", // about 400 bytes of short keys: one chunk
			in:    kepYAML,
			want:  []string{"title 1-19"},
			title: "Graceful node shutdown for the kubelet", summary: "Keys: title, kep-number, authors, owning-sig, feature-gates, milestone",
		},
		{
			name:  "service.yaml",
			in:    serviceYAML,
			want:  []string{"name 1-3", "description 4-24", "endpoints 25-56"}, // small keys packed, big ones alone; tags joins endpoints
			title: "billing", summary: collapseSpace(description),
		},
		{
			name:  "api/openapi.yaml", // small: one chunk, titled by info.title
			in:    openAPI,
			want:  []string{"openapi 1-18"},
			title: "Petstore API", summary: "Lists, creates and deletes the pets of a store.",
		},
		{
			name:  "openapi.json",
			in:    openAPIJSON,
			want:  []string{"openapi 1-3", "paths 4-50"}, // components is small and last: it joins paths
			title: "Pets", summary: "Keys: openapi, info, paths, components",
		},
		{
			name:  "list.json",
			in:    "[\n  {\"id\": 1, \"name\": \"" + prose("one", 60) + "\"},\n  {\"id\": 2, \"name\": \"two\"}\n]\n",
			want:  []string{" 1-4"}, // no keys: text
			title: "list",
		},
		{
			name:  "Cargo.toml",
			in:    cargoTOML,
			want:  []string{"package 1-3", "dependencies 5-48"}, // profile.release is small: it joins dependencies
			title: "Cargo", summary: "Keys: package, dependencies, profile.release",
		},
		{
			name:  "notes.txt",
			in:    "Notes\n\n" + prose("first", 3000) + "\n\n" + prose("second", 3000) + "\n",
			want:  []string{" 1-3", " 5-5"}, // no headings: paragraphs packed under the cap
			title: "notes", summary: "Notes",
		},
	} {
		var warns []string
		p := parseDocument(c.name, []byte(c.in), func(s string) { warns = append(warns, s) })
		if got := chunkSummary(p.Chunks); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: chunks\n%q\nwant\n%q", c.name, got, c.want)
		}
		if p.Title != c.title || p.Summary != markdown.Clip(c.summary, 300) {
			t.Errorf("%s: title %q, summary %q; want %q, %q", c.name, p.Title, p.Summary, c.title, markdown.Clip(c.summary, 300))
		}
		if len(warns) != 0 || p.Meta != nil || p.Links != nil {
			t.Errorf("%s: warnings %q, meta %v, links %v; want none", c.name, warns, p.Meta, p.Links)
		}
		checkDocCoverage(t, markdown.ParseFile(c.name, []byte(c.in)), p.Chunks)
	}
}

// TestMalformedDataIndexedAsText: a data file that does not parse is text
// (size-bounded chunks, no keys), with a warning at its line.
func TestMalformedDataIndexedAsText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, warn string }{
		{"bad.yaml", "title: x\nitems: [a, b\n" + strings.Repeat("  word word word word word\n", 400), "bad.yaml:1: invalid YAML"}, // yaml.v3 names the line before the flow sequence
		{"bad.json", "{\n  \"a\": 1,\n  \"b\" 2,\n" + strings.Repeat("  \"word word word word word\",\n", 400) + "}\n", "bad.json:3: invalid JSON"},
		{"bad.toml", "a = 1\n[t\n" + strings.Repeat("x = \"word word word word\"\n", 400), "bad.toml:2: invalid TOML"},
	} {
		var warns []string
		p := parseDocument(c.name, []byte(c.in), func(s string) { warns = append(warns, s) })
		if len(warns) != 1 || !strings.HasPrefix(warns[0], c.warn) || !strings.HasSuffix(warns[0], "; indexed as text") {
			t.Errorf("%s: warnings %q, want one starting %q", c.name, warns, c.warn)
		}
		if len(p.Chunks) < 2 {
			t.Errorf("%s: %d chunks, want the text split under the cap", c.name, len(p.Chunks))
		}
		for _, ch := range p.Chunks {
			if len(ch.Trail) != 0 || len(ch.Text) > markdown.MaxChunkBytes {
				t.Errorf("%s: chunk %d-%d trail %q, %d bytes: want no trail, at most %d", c.name, ch.Start, ch.End, ch.Trail, len(ch.Text), markdown.MaxChunkBytes)
			}
		}
		checkDocCoverage(t, markdown.ParseFile(c.name, []byte(c.in)), p.Chunks)
	}
}

// TestHugeOneLineJSON: a 1 MB JSON document on one line is cut into
// chunks of at most markdown.MaxChunkBytes, every one on line 1, holding all of it.
func TestHugeOneLineJSON(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := 0; b.Len() < 1<<20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item %d","tags":["alpha","beta"]}`, i, i)
	}
	b.WriteString("]}")
	in := b.String()
	p := parseDocument("dump.json", []byte(in), nil)
	if want := len(in)/markdown.MaxChunkBytes + 1; len(p.Chunks) < want || len(p.Chunks) > want+5 {
		t.Errorf("%d chunks, want about %d", len(p.Chunks), want)
	}
	var all strings.Builder
	for i, c := range p.Chunks {
		if len(c.Text) > markdown.MaxChunkBytes || c.Start != 1 || c.End != 1 || strings.Join(c.Trail, ">") != "items" {
			t.Fatalf("chunk %d: %d bytes, lines %d-%d, trail %q; want ≤ %d bytes on line 1 under items", i, len(c.Text), c.Start, c.End, c.Trail, markdown.MaxChunkBytes)
		}
		all.WriteString(c.Text)
	}
	if all.String() != in {
		t.Error("the chunks do not hold the document exactly")
	}
}

// TestSearchDataFiles: a key of a kep.yaml and of an openapi.yaml is
// found with the key's line range and the key as the heading, as
// get_section serves it; rst, AsciiDoc, TOML and text are searched too,
// and INDEX.md lists every format with its title.
func TestSearchDataFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), ".context")
	files := map[string]string{
		"keps/sig-node/2000-graceful-node-shutdown/README.md": "# KEP-2000: Graceful node shutdown\n\n## Summary\n\nThe kubelet delays node shutdown so pods terminate gracefully.\n",
		"keps/sig-node/2000-graceful-node-shutdown/kep.yaml":  kepYAML,
		"api/openapi.yaml":     openAPIBig,
		"guide.rst":            "Guide\n=====\n\nInstalling\n----------\n\nRun the zebrafish installer.\n",
		"manual.adoc":          "= Manual\n\n== Backups\n\nThe quokka snapshot runs nightly.\n",
		"Cargo.toml":           "[package]\nname = \"demo\"\n\n[dependencies]\nnarwhal = \"1\"\n",
		"notes.txt":            "The axolotl notes.\n",
		"bad.json":             "{\"a\": 1,, \"pangolin\": 2}\n",
		".github/workflow.yml": "name: hidden\n",
	}
	writeFiles(t, dir, "docs", files)
	pkgs := []Package{{Alias: "docs", Source: "https://git.example/docs.git", Rev: strings.Repeat("3", 40)}}
	var warns []string
	rep, err := Sync(ctx, dir, pkgs, Options{Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != 8 {
		t.Errorf("added %d documents, want 8 (the hidden workflow is not one)", rep.Added)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "packages/docs/bad.json:1: invalid JSON") {
		t.Errorf("warnings = %q, want one for bad.json", warns)
	}
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	paths := strings.Count(openAPIBig, "\n")
	for _, c := range []struct {
		q, path, heading string
		lines            [2]int
		key              string // the section the query is about: within the hit's lines
	}{
		{"GracefulNodeShutdownBasedOnPodPriority feature gate", "keps/sig-node/2000-graceful-node-shutdown/kep.yaml", "title", [2]int{1, 19}, "feature-gates"}, // one chunk of short keys
		{"getPet17 operation", "api/openapi.yaml", "paths", [2]int{6, paths}, "paths"},                                                                         // a big key, and the small one after it
		{"Petstore API", "api/openapi.yaml", "openapi", [2]int{1, 5}, "info"},
		{"zebrafish", "guide.rst", "Guide > Installing", [2]int{1, 7}, "Guide > Installing"}, // the title alone is short: it joins Installing
		{"quokka snapshot", "manual.adoc", "Manual > Backups", [2]int{1, 5}, "Backups"},
		{"narwhal", "Cargo.toml", "package", [2]int{1, 5}, "dependencies"},
		{"axolotl", "notes.txt", "", [2]int{1, 1}, ""},
		{"pangolin", "bad.json", "", [2]int{1, 1}, ""},
	} {
		hits, err := r.Search(ctx, Query{Text: c.q})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Path != c.path || hits[0].Heading != c.heading || hits[0].Lines != c.lines {
			t.Errorf("search %q: %+v; want %s %q lines %v first", c.q, hits, c.path, c.heading, c.lines)
			continue
		}
		if c.key == "" {
			continue
		}
		// The key's section, as get_section serves it, is in the hit's lines.
		content, _ := os.ReadFile(filepath.Join(dir, "packages", "docs", filepath.FromSlash(c.path)))
		s, _, ok := markdown.ParseFile(c.path, content).Section(c.key)
		if !ok || s.StartLine < c.lines[0] || s.EndLine > c.lines[1] {
			t.Errorf("%s: Section(%q) = %+v, %v; want it within the hit's lines %v", c.path, c.key, s, ok, c.lines)
		}
	}
	// The kep.yaml is still its README's metadata, and a document itself.
	m, err := r.Metadata("docs", "keps/sig-node/2000-graceful-node-shutdown/README.md")
	if err != nil || m.Meta["kep-number"] != float64(2000) {
		t.Errorf("README metadata = %+v, %v; want kep.yaml's kep-number", m, err)
	}
	if m, err := r.Metadata("docs", "keps/sig-node/2000-graceful-node-shutdown/kep.yaml"); err != nil || m.Meta != nil {
		t.Errorf("kep.yaml metadata = %+v, %v; want a document without front matter", m, err)
	}
	index, err := os.ReadFile(filepath.Join(dir, "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"- Petstore API (`api/openapi.yaml`): The pets of a store.",
		"- Graceful node shutdown for the kubelet (`keps/sig-node/2000-graceful-node-shutdown/kep.yaml`): Keys: title, kep-number,",
		"- Guide (`guide.rst`)",
		"- Manual (`manual.adoc`)",
		"- Cargo (`Cargo.toml`)",
		"- notes (`notes.txt`): The axolotl notes.",
	} {
		if !strings.Contains(string(index), want) {
			t.Errorf("INDEX.md lacks %q:\n%s", want, index)
		}
	}
}

// BenchmarkParseHostile parses 2 MB documents built to be slow: a
// heading on every line (rst, AsciiDoc, markdown: before the running
// content count, the chunker measured every near-empty section from its
// start again, 3m51s for the rst one), 400,000 YAML keys and a 2 MB line.
func BenchmarkParseHostile(b *testing.B) {
	n := 2 << 20
	for _, c := range []struct{ name, s string }{
		{"headings.rst", strings.Repeat("T\n=\n\n", n/4)},
		{"headings.adoc", strings.Repeat("== T\n", n/5)},
		{"headings.md", strings.Repeat("# T\n", n/4)},
		{"keys.yaml", strings.Repeat("k: 1\n", n/5)},
		{"line.json", `["` + strings.Repeat("x", n) + `"]`},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				parseDocument(c.name, []byte(c.s), nil)
			}
		})
	}
}
