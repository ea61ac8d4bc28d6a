// Command nav-bench measures what navigating the installed documentation
// costs an agent over MCP (issue 14): calls and tokens (o200k, counted on
// what a client shows: the text contents and the JSON of
// structuredContent) to list a large package's documents page by page,
// to list it by folder (a tree, then each folder), and to read an outline;
// and, on a generated project of 1,000 packages of 5 documents, the pages
// of list_contexts, ctx://manifest and resources/list.
//
//	go -C bench run ./nav [-corpus /work/shared/corpus] [-package k8s-keps]
//
// The corpus package is copied into a temporary project (the corpus is
// only read); the server runs in process, over the SDK's in-memory
// transport.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/benchmcp"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/mcpserver"
	"github.com/ctx-dev/ctx/project"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer"
)

func main() {
	corpus := flag.String("corpus", "/work/shared/corpus", "folder with one sub-folder per package")
	pkg := flag.String("package", "k8s-keps", "the corpus package to navigate")
	flag.Parse()
	if err := run(*corpus, *pkg); err != nil {
		fmt.Fprintln(os.Stderr, "nav-bench:", err)
		os.Exit(1)
	}
}

var codec tokenizer.Codec

// seen is the o200k tokens a client shows of res.
func seen(res *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			k, _ := codec.Count(t.Text)
			n += k
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		k, _ := codec.Count(string(b))
		n += k
	}
	return n
}

// tally is the calls and tokens of a walk over pages.
type tally struct{ calls, tokens, max int }

func (t *tally) add(n int) {
	t.calls++
	t.tokens += n
	t.max = max(t.max, n)
}

func (t tally) String() string {
	return fmt.Sprintf("%d calls, %d tokens (largest answer %d)", t.calls, t.tokens, t.max)
}

func run(corpus, pkg string) error {
	var err error
	if codec, err = tokenizer.Get(tokenizer.O200kBase); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "ctx-nav-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// A large package from the corpus.
	dir := filepath.Join(tmp, "corpus")
	if err := os.CopyFS(filepath.Join(dir, ".context", "packages", pkg), os.DirFS(filepath.Join(corpus, pkg))); err != nil {
		return err
	}
	if err := lockAndIndex(dir, []string{pkg}); err != nil {
		return err
	}
	cs, closeFn, err := connect(dir)
	if err != nil {
		return err
	}
	defer closeFn()
	call := func(name string, args map[string]any, out any) (*mcp.CallToolResult, error) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return nil, err
		}
		if res.IsError {
			return nil, fmt.Errorf("%s %v: %v", name, args, res.Content)
		}
		b, _ := json.Marshal(res.StructuredContent)
		return res, json.Unmarshal(b, out)
	}
	type listOut struct {
		Total, TotalFolders int
		NextCursor          string
		Documents           []struct{ Path string }
		Folders             []struct {
			Path      string
			Documents int
		}
	}
	pages := func(args map[string]any) (tally, listOut, error) {
		var t tally
		var first listOut
		cur := ""
		for {
			a := map[string]any{}
			for k, v := range args {
				a[k] = v
			}
			if cur != "" {
				a["cursor"] = cur
			}
			var out listOut
			res, err := call("list_contexts", a, &out)
			if err != nil {
				return t, first, err
			}
			t.add(seen(res))
			if t.calls == 1 {
				first = out
			}
			if cur = out.NextCursor; cur == "" {
				return t, first, nil
			}
		}
	}
	all, first, err := pages(map[string]any{"package": pkg})
	if err != nil {
		return err
	}
	fmt.Printf("## %s: %d documents\n\n", pkg, first.Total)
	fmt.Printf("- every document, page by page: %s\n", all)
	tr, top, err := pages(map[string]any{"package": pkg, "tree": true})
	if err != nil {
		return err
	}
	fmt.Printf("- the tree (depth 1): %s; %d folders\n", tr, top.TotalFolders)
	var each tally
	worst, worstName := tally{}, ""
	for _, f := range top.Folders {
		if f.Path == "" {
			continue
		}
		t, _, err := pages(map[string]any{"package": pkg, "prefix": f.Path + "/"})
		if err != nil {
			return err
		}
		each.calls += t.calls
		each.tokens += t.tokens
		each.max = max(each.max, t.max)
		if t.calls > worst.calls || t.calls == worst.calls && t.tokens > worst.tokens {
			worst, worstName = t, fmt.Sprintf("%s/ (%d documents)", f.Path, f.Documents)
		}
	}
	fmt.Printf("- each folder by prefix: %s in all; the largest, %s: %s\n", each, worstName, worst)
	// The outline of the longest document.
	docs, err := readerDocs(dir, pkg)
	if err != nil {
		return err
	}
	slices.SortFunc(docs, func(a, b indexer.Document) int { return b.Lines - a.Lines })
	var ol struct{ Total, Tokens, TotalLines int }
	res, err := call("get_outline", map[string]any{"package": pkg, "path": docs[0].Path}, &ol)
	if err != nil {
		return err
	}
	fmt.Printf("- get_outline of the longest document (%s, %d lines, about %d tokens, %d headings): %d tokens\n\n",
		docs[0].Path, ol.TotalLines, ol.Tokens, ol.Total, seen(res))

	// 1,000 packages.
	many := filepath.Join(tmp, "many")
	var aliases []string
	for i := range 1000 {
		a := fmt.Sprintf("pkg-%04d", i)
		aliases = append(aliases, a)
		for d := range 5 {
			p := filepath.Join(many, ".context", "packages", a, "docs", fmt.Sprintf("page-%d.md", d))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, fmt.Appendf(nil, "# Page %d of package %d\n\nSome text.\n", d, i), 0o644); err != nil {
				return err
			}
		}
	}
	if err := lockAndIndex(many, aliases); err != nil {
		return err
	}
	cs2, close2, err := connect(many)
	if err != nil {
		return err
	}
	defer close2()
	cs = cs2
	lc, _, err := pages(map[string]any{})
	if err != nil {
		return err
	}
	fmt.Printf("## 1,000 packages of 5 documents\n\n- list_contexts: %s\n", lc)
	var mf tally
	for uri := "ctx://manifest"; uri != ""; {
		r, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return err
		}
		n, _ := codec.Count(r.Contents[0].Text)
		mf.add(n)
		var m struct{ Next string }
		if err := json.Unmarshal([]byte(r.Contents[0].Text), &m); err != nil {
			return err
		}
		uri = m.Next
	}
	fmt.Printf("- ctx://manifest: %d pages, %d tokens (largest page %d)\n", mf.calls, mf.tokens, mf.max)
	var rl tally
	n := 0
	for cur := ""; ; {
		r, err := cs.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: cur})
		if err != nil {
			return err
		}
		b, _ := json.Marshal(r)
		k, _ := codec.Count(string(b))
		rl.add(k)
		n += len(r.Resources)
		if cur = r.NextCursor; cur == "" {
			break
		}
	}
	fmt.Printf("- resources/list: %d resources in %d pages, %d tokens (largest page %d)\n", n, rl.calls, rl.tokens, rl.max)
	return nil
}

// lockAndIndex writes a lock for the packages under dir/.context/packages
// and builds the index.
func lockAndIndex(dir string, aliases []string) error {
	ctxDir := filepath.Join(dir, ".context")
	l := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{}}
	for _, a := range aliases {
		l.Packages[a] = lockfile.Entry{Source: "https://example.com/" + a + ".git", Ref: "main",
			Rev: strings.Repeat("a1", 20), Tree: strings.Repeat("b2", 20), Hash: "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
			Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	}
	if err := lockfiletest.WriteInstalled(ctxDir, l); err != nil {
		return err
	}
	proj, err := project.At(dir)
	if err != nil {
		return err
	}
	_, err = indexer.Sync(context.Background(), ctxDir, proj.Installed(nil, l), indexer.Options{})
	return err
}

func readerDocs(dir, alias string) ([]indexer.Document, error) {
	r, err := indexer.OpenReader(filepath.Join(dir, ".context"))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Documents(alias)
}

// connect serves dir in process and returns a client session.
func connect(dir string) (*mcp.ClientSession, func(), error) {
	s, err := mcpserver.New(mcpserver.Options{ProjectDir: dir})
	if err != nil {
		return nil, nil, err
	}
	cs, closeSession, err := benchmcp.InMemory(context.Background(), s, "nav-bench")
	if err != nil {
		return nil, nil, err
	}
	return cs, func() { closeSession(); s.Close() }, nil
}
