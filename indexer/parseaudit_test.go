package indexer

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"regexp"
)

// TestParseAudit is not a check but a report: over the corpora named in
// CTX_PARSE_AUDIT (folders, separated by ":"), it runs the indexer's own
// parser (parseDocument) on every document and counts, per format (md,
// mdx, rst, adoc), what the index would read wrong: pages without a title,
// headings (trail texts) that keep markup, chunk text that is markup and
// not prose, empty chunks. CTX_PARSE_AUDIT_SAMPLES=N prints up to N
// samples of each defect (0, the default: totals only, for blind sets).
// It skips when CTX_PARSE_AUDIT is unset.
func TestParseAudit(t *testing.T) {
	roots := os.Getenv("CTX_PARSE_AUDIT")
	if roots == "" {
		t.Skip("CTX_PARSE_AUDIT not set")
	}
	samples, _ := strconv.Atoi(os.Getenv("CTX_PARSE_AUDIT_SAMPLES"))
	a := audit{counts: map[string]map[string]int{}, samples: map[string][]string{}, max: samples, outlines: map[string][][2]any{}}
	for _, root := range strings.Split(roots, ":") {
		docs, err := markdown.Walk(os.DirFS(root), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range docs {
			f := auditFormat(name)
			if f == "" {
				continue
			}
			b, err := os.ReadFile(filepath.Join(root, name))
			if err != nil {
				t.Fatal(err)
			}
			a.doc(f, filepath.Base(root)+"/"+name, b)
			if f == "rst" {
				var o [][2]any
				for _, h := range markdown.ParseFile(name, b).Outline() {
					o = append(o, [2]any{h.Level, h.Text})
				}
				a.outlines[filepath.Join(root, name)] = o
			}
		}
	}
	a.report(t)
	if out := os.Getenv("CTX_PARSE_AUDIT_OUTLINES"); out != "" {
		b, err := json.Marshal(a.outlines)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func auditFormat(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown":
		return "md"
	case ".mdx":
		return "mdx"
	case ".rst":
		return "rst"
	case ".adoc":
		return "adoc"
	}
	return ""
}

type audit struct {
	counts  map[string]map[string]int // format → defect → count
	samples map[string][]string       // format/defect → samples
	max     int
	// outlines: each rst page's headings (level, text), for a comparison
	// with docutils (CTX_PARSE_AUDIT_OUTLINES names the JSON file).
	outlines map[string][][2]any
}

func (a *audit) add(format, defect, sample string) {
	if a.counts[format] == nil {
		a.counts[format] = map[string]int{}
	}
	a.counts[format][defect]++
	k := format + " " + defect
	if len(a.samples[k]) < a.max {
		a.samples[k] = append(a.samples[k], sample)
	}
}

var (
	// markup a heading's or title's text should not keep once read.
	auditHeadRE = map[string]*regexp.Regexp{
		"role":      regexp.MustCompile("(?:^|[^\\w`]):[\\w:.+-]+:`"),
		"anchor":    regexp.MustCompile(`\{#[^}]*\}|\{/\*`),
		"jsx":       regexp.MustCompile(`</?[A-Z][\w.]*[\s/>]`),
		"backtick":  regexp.MustCompile("`"),
		"subst":     regexp.MustCompile(`\|[\w -]+\|`),
		"adoc-attr": regexp.MustCompile(`\{[\w-]+\}`),
		"emphasis":  regexp.MustCompile(`\*\*|__`),
	}
	// a chunk's indexed line that is markup, by format.
	auditLineRE = map[string]map[string]*regexp.Regexp{
		"rst": {
			"directive":   regexp.MustCompile(`^\s*\.\. [\w:-]+::`),
			"label":       regexp.MustCompile(`^\s*\.\. _[^:]*:`),
			"subst-def":   regexp.MustCompile(`^\s*\.\. \|[^|]+\|`),
			"comment":     regexp.MustCompile(`^\s*\.\.(?:\s*$| [^_|\[\w]| \w[^:]*$)`),
			"dir-option":  regexp.MustCompile(`^\s+:[\w-]+:(?:\s|$)`),
			"role":        regexp.MustCompile("(?:^|[^\\w`]):[\\w:.+-]+:`"),
			"subst-use":   regexp.MustCompile(`(?:^|\s)\|[\w -]+\|(?:\s|$|[.,;_])`),
			"adornment":   regexp.MustCompile(`^([=\-~^"'*+#<>_.:]{4,})\s*$`),
			"field-top":   regexp.MustCompile(`^:[\w-]+:(?:\s|$)`),
			"footnote":    regexp.MustCompile(`^\s*\.\. \[[^\]]+\]`),
			"hyperlink-t": regexp.MustCompile("`[^`<]*<[^>`]+>`_"),
		},
		"mdx": {
			"import":    regexp.MustCompile(`^\s*import\s`),
			"export":    regexp.MustCompile(`^\s*export\s`),
			"jsx-line":  regexp.MustCompile(`^\s*</?[A-Z][\w.]*(?:\s|/?>|$)`),
			"jsx-prop":  regexp.MustCompile(`^\s*[\w-]+=(?:\{|")`),
			"jsx-expr":  regexp.MustCompile(`^\s*\{/\*|^\s*\{[\w.]+\}\s*$`),
			"html-line": regexp.MustCompile(`^\s*</?[a-z][\w-]*(?:\s[^<>]*)?/?>\s*$`),
		},
		"md": {
			"html-line": regexp.MustCompile(`^\s*</?[a-z][\w-]*(?:\s[^<>]*)?/?>\s*$`),
			"jsx-line":  regexp.MustCompile(`^\s*</?[A-Z][\w.]*(?:\s|/?>|$)`),
			"hugo-sc":   regexp.MustCompile(`\{\{[<%]`),
			"liquid":    regexp.MustCompile(`\{%`),
		},
		"adoc": {
			"include":    regexp.MustCompile(`^include::`),
			"ifdef":      regexp.MustCompile(`^(?:ifn?def|endif|ifeval)::`),
			"attr-entry": regexp.MustCompile(`^:!?[\w-]+!?:`),
			"block-attr": regexp.MustCompile(`^\[[^\]]*\]\s*$`),
			"attr-ref":   regexp.MustCompile(`\{[\w-]+\}`),
			"delimiter":  regexp.MustCompile(`^(?:-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,})\s*$`),
			"anchor":     regexp.MustCompile(`^\[\[[^\]]*\]\]\s*$|^\[#[\w-]+\]`),
			"macro":      regexp.MustCompile(`\b(?:link|xref|image|linkgit|footnote|kbd|btn|menu):[^\s\[]*\[`),
		},
	}
	auditWordRE = regexp.MustCompile(`[\p{L}\p{N}]`)
)

func (a *audit) doc(f, name string, b []byte) {
	p := parseDocument(name, b, nil)
	a.add(f, "pages", "")
	base := path.Base(name)
	if p.Title == strings.TrimSuffix(base, path.Ext(base)) {
		a.add(f, "title=filename", name)
	}
	if f != "md" && f != "mdx" && len(markdown.ParseFile(name, b).Body.Headings) == 0 {
		a.add(f, "no-heading", name)
	}
	for k, re := range auditHeadRE {
		if re.MatchString(p.Title) {
			a.add(f, "title-"+k, name+": "+p.Title)
		}
	}
	seen := map[string]bool{}
	for _, c := range p.Chunks {
		a.add(f, "chunks", "")
		if !auditWordRE.MatchString(c.body()) {
			a.add(f, "chunk-empty", fmt.Sprintf("%s:%d-%d %q", name, c.Start, c.End, c.Text))
		}
		for _, h := range c.Trail {
			if seen[h] {
				continue
			}
			seen[h] = true
			for k, re := range auditHeadRE {
				if re.MatchString(h) {
					a.add(f, "head-"+k, name+": "+h)
				}
			}
		}
		for i, l := range strings.Split(c.body(), "\n") {
			for k, re := range auditLineRE[f] {
				if re.MatchString(l) {
					a.add(f, "line-"+k, fmt.Sprintf("%s:%d: %s", name, c.Start+i, markdown.Clip(l, 120)))
				}
			}
		}
	}
}

func (a *audit) report(t *testing.T) {
	var fs []string
	for f := range a.counts {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	for _, f := range fs {
		var ds []string
		for d := range a.counts[f] {
			ds = append(ds, d)
		}
		sort.Strings(ds)
		var parts []string
		for _, d := range ds {
			parts = append(parts, fmt.Sprintf("%s=%d", d, a.counts[f][d]))
		}
		fmt.Printf("%s: %s\n", f, strings.Join(parts, " "))
		for _, d := range ds {
			for _, s := range a.samples[f+" "+d] {
				if s != "" {
					fmt.Printf("  %s %s | %s\n", f, d, s)
				}
			}
		}
	}
}
