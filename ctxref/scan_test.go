package ctxref

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func wheres(fs []Found) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Where()+" "+f.Text)
	}
	return out
}

// TestScan: the default paths, .gitignore (root, nested, negated,
// info/exclude), the folders never entered, documents only in a walk, any
// file when named, and line numbers after CRLF and front matter.
func TestScan(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".gitignore":               "docs/drafts/\n*.tmp.md\n",
		".git/info/exclude":        "docs/private.md\n",
		"README.md":                "# App\r\nSee @ctx/api/errors.md.\r\n",
		"AGENTS.md":                "---\ntitle: x\n---\nctx://packages/web/a.md\n",
		"docs/guide.md":            "one\n\n[e](@ctx/api/e.md) and @ctx/api/f.md\n",
		"docs/page.html":           "@ctx/api/html.md\n",
		"docs/spec.yaml":           "see: \"@ctx/api/yaml.md\"\n",
		"docs/drafts/d.md":         "@ctx/api/draft.md\n",
		"docs/x.tmp.md":            "@ctx/api/tmp.md\n",
		"docs/private.md":          "@ctx/api/private.md\n",
		"docs/sub/.gitignore":      "*.md\n!keep.md\n",
		"docs/sub/keep.md":         "@ctx/api/keep.md\n",
		"docs/sub/drop.md":         "@ctx/api/drop.md\n",
		"docs/node_modules/m.md":   "@ctx/api/nm.md\n",
		"docs/.hidden/h.md":        "@ctx/api/hidden.md\n",
		"docs/.context/c.md":       "@ctx/api/ctx.md\n",
		"specs/s.mdx":              "@ctx/api/spec.md\n",
		"src/code.md":              "@ctx/api/src.md\n",
		".context/packages/p/a.md": "@ctx/api/pkg.md\n",
	})
	res, err := Scan(root, nil, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"AGENTS.md:4:1 ctx://packages/web/a.md",
		"README.md:2:5 @ctx/api/errors.md",
		"docs/guide.md:3:5 @ctx/api/e.md",
		"docs/guide.md:3:24 @ctx/api/f.md",
		"docs/spec.yaml:1:7 @ctx/api/yaml.md", // every document format, as the indexer's
		"docs/sub/keep.md:1:1 @ctx/api/keep.md",
		"specs/s.mdx:1:1 @ctx/api/spec.md",
	}
	if got := wheres(res.Refs); !reflect.DeepEqual(got, want) {
		t.Errorf("default scan:\n got %q\nwant %q", got, want)
	}
	if res.Files != 6 {
		t.Errorf("files read: %d, want 6", res.Files)
	}

	// Named paths: a file is read whatever its name, even if ignored; a
	// folder is walked with the .gitignore files above it.
	res, err = Scan(root, []string{"docs/page.html", "docs/drafts/d.md", "docs/sub", filepath.Join(root, "src")}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		"docs/drafts/d.md:1:1 @ctx/api/draft.md",
		"docs/page.html:1:1 @ctx/api/html.md",
		"docs/sub/keep.md:1:1 @ctx/api/keep.md",
		"src/code.md:1:1 @ctx/api/src.md",
	}
	if got := wheres(res.Refs); !reflect.DeepEqual(got, want) {
		t.Errorf("named scan:\n got %q\nwant %q", got, want)
	}

	for _, bad := range []string{"nope", "../x", "/etc"} {
		_, err := Scan(root, []string{bad}, Limits{})
		var pe *PathError
		if !errors.As(err, &pe) || pe.Path != bad || !strings.HasPrefix(err.Error(), bad+": ") {
			t.Errorf("Scan(%q): %v, want a PathError naming it", bad, err)
		}
	}
}

// TestScanLimits: a file over the size limit is skipped with a warning;
// the reference and file limits stop the scan and say so.
func TestScanLimits(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"docs/a.md": "@ctx/a/1.md @ctx/a/2.md @ctx/a/3.md\n",
		"docs/b.md": strings.Repeat("x", 100) + " @ctx/b/big.md\n",
		"docs/c.md": "@ctx/c/1.md\n",
	})
	res, err := Scan(root, nil, Limits{MaxFileBytes: 64})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Refs) != 4 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "docs/b.md: skipped") {
		t.Errorf("size limit: refs %q, warnings %q", wheres(res.Refs), res.Warnings)
	}
	res, _ = Scan(root, nil, Limits{MaxRefs: 2})
	if len(res.Refs) != 2 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "stopped after 2 references") {
		t.Errorf("ref limit: refs %q, warnings %q", wheres(res.Refs), res.Warnings)
	}
	res, _ = Scan(root, nil, Limits{MaxFiles: 1})
	if res.Files != 1 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "stopped after 1 files") {
		t.Errorf("file limit: files %d, warnings %q", res.Files, res.Warnings)
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"pkgs/api/errors.md":  "# Errors\n",
		"pkgs/api/guide/x.md": "# X\n",
		"AGENTS.md":           "# Agents\n",
		"outside.md":          "# no\n",
	})
	if err := os.Symlink(filepath.Join(root, "outside.md"), filepath.Join(root, "pkgs/api/link.md")); err != nil {
		t.Fatal(err)
	}
	api := Package{Alias: "api", Dir: filepath.Join(root, "pkgs/api")}
	pk := Packages{
		Installed: map[string]Package{
			"api":            api,
			"API Guidelines": api, // a registry name of the same source
			"agents":         {Alias: "agents", Dir: root, Only: "AGENTS.md"},
		},
		Pending: map[string]string{"web": "is in the manifest but not installed: run `ctx install`"},
		Offered: map[string]string{"ops": "Ops Runbooks"},
	}
	var refs []Found
	for _, l := range []string{
		"@ctx/api/errors.md", "ctx://packages/api/guide/x.md", "@ctx/api/nope.md", "@ctx/api/guide",
		"@ctx/api/../outside.md", "@ctx/api/link.md", "@ctx/agents/AGENTS.md", "@ctx/agents/README.md",
		"@ctx/web/a.md", "@ctx/ops/run.md", "@ctx/zzz/a.md",
	} {
		m := Find(l)
		if len(m) != 1 {
			t.Fatalf("Find(%q) = %v", l, m)
		}
		refs = append(refs, Found{File: "f.md", Line: 1, Match: m[0]})
	}
	refs[0].Name = "API Guidelines" // as if cited by the registry name
	var got []string
	for _, r := range Classify(refs, pk) {
		got = append(got, string(r.Class)+" "+r.Package+r.Context+" "+r.Reason)
	}
	want := []string{
		"resolved api ",
		"resolved api ",
		`missing api package "api" has no "nope.md"`,
		`missing api package "api": "guide" is not a file`,
		`missing api not a document path: path "../outside.md" has a '..' element, which leaves its folder`,
		"", // a link out of the package: checked below
		"resolved agents ",
		`missing agents package "agents" is the one file "AGENTS.md"`,
		"missing  package \"web\" is in the manifest but not installed: run `ctx install`",
		"installable Ops Runbooks ",
		`unknown  no installed package and no registry context is named "zzz"`,
	}
	for i := range want {
		if i == 5 {
			if !strings.HasPrefix(got[i], "missing api package \"api\": \"link.md\"") {
				t.Errorf("a link leaving the package: %q", got[i])
			}
			continue
		}
		if got[i] != want[i] {
			t.Errorf("%s: got %q, want %q", refs[i].Text, got[i], want[i])
		}
	}
}

// BenchmarkScanOneLine: Scan of one 10 MB line of references (about
// 870,000 of "@ctx/x/a.md"), every one kept (no reference or size limit),
// and of the same bytes as 870,000 lines; issue 25's goal is ≤ 2 s.
func BenchmarkScanOneLine(b *testing.B) {
	const ref = "@ctx/x/a.md "
	n := (10 << 20) / len(ref)
	for _, tc := range []struct{ name, sep string }{{"one-line", ""}, {"lines", "\n"}} {
		b.Run(tc.name, func(b *testing.B) {
			root := b.TempDir()
			body := strings.Repeat(ref+tc.sep, n)
			if err := os.WriteFile(filepath.Join(root, "refs.md"), []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
			cpu0 := cpuTime()
			for b.Loop() {
				res, err := Scan(root, []string{"refs.md"}, Limits{MaxRefs: 1 << 30, MaxFileBytes: 1 << 30})
				if err != nil || len(res.Refs) != n {
					b.Fatalf("%d refs, %v; want %d", len(res.Refs), err, n)
				}
			}
			// The process's CPU time (GC included): on a shared machine the
			// wall time is mostly the others' load.
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
