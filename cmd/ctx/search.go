package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/workspace"
)

type searchOptions struct {
	*globalOptions
	query     string   // the arguments, joined by spaces
	words     []string // the query's arguments (queryArgs)
	packages  []string
	kinds     []string
	tags      []string
	limit     int
	json      bool
	allChunks bool // --all-passages: every matching chunk, not the best of each document
	listTags  bool
	lexical   bool // --lexical: no semantic half
	hybrid    bool // --hybrid: the semantic half, whatever embeddings.hybrid says
}

func newSearchCmd(g *globalOptions, runF func(context.Context, *searchOptions) error) *cobra.Command {
	opts := &searchOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the installed documentation",
		Long: `Search the installed documentation (BM25F over heading-sized chunks: the
document title, the heading trail and the text). Ranking is page-aware: a
word in a page's title or headings counts more than one in its text, so
the page about a subject comes before pages that only mention it, and a
page with several matching sections edges out one with a single one. In
a question ("how do I ...", "what is ..."), the question words count in
titles and headings only, beside the question's other words, so the
page is found by what is asked; a page whose title holds the query's
words scores up to 10% more. Two words of the query in a row are also
looked for as one word, at half a word's weight ("health check" finds
healthCheck). Pages
about what changed (changelogs, release notes, blog posts, "what's new",
migration and upgrade guides, deprecation notices, known by path, file
name, title and headings) rank below reference and guide pages unless
the query asks for them (changelog, release, upgrade, migrate,
deprecated, "what's new", a version number); kind:changelog,
kind:release, kind:blog, kind:whatsnew, kind:migration or
kind:deprecation searches only them.
Passages that are mostly links to other pages (tables of contents, "See
also" lists, index pages) rank at half their score: they name a topic
without answering. A page that many other pages of its package link to
ranks a little higher (at most x1.2): it is the canonical page of its
topic. An overview page that links to other pages of its package
throughout its text (3 or more, 1.5 links per 100 words) ranks at 0.7.
A query that names one installed package by its alias ("profile coredns
CPU usage") ranks the other packages' passages at 0.7 of their score,
when the alias is a name in the index (most passages that hold it are
that package's, at most 1 in 50 of the others' hold it): an alias that
is a topic word every package uses ("api", "security") is left a word.
A package that keeps a copy of its pages per release (docs/P beside
versioned_docs/version-3.13.x/P, docs/main/P beside docs/v1.13/P) gives
one copy of a page, with an "also in:" line naming its other versions; an
older release's copy comes after the current and latest copies unless the
query names its version ("metrics in 3.10").

With an embedding endpoint configured (ctx config set embeddings.url,
embeddings.model; see 'ctx config'), search fuses the passages whose
meaning is nearest the query's words with the lexical ranking, so a query
finds a page that says it in other words; --lexical turns that off for one
search, 'ctx config set embeddings.hybrid off' for every one (then
--hybrid asks for it). When the endpoint cannot answer, search ranks lexically
and says why in one line on stderr.

Each hit is the best passage of one document: it names the package, the
file inside it, the heading trail, the line range and the document's
tags, with the matched words marked **like this**, and says how many other
passages of the document match; --all-passages lists every matching
passage instead (several of one document, best first).
The index is the one ctx keeps in .context/index/; run 'ctx index' if it is
missing. Search first re-indexes the packages whose files changed since the
index was built (a dir source edited in place, say), saying so on stderr,
or, when it cannot (another ctx is working in the project, or the project is
read-only), searches the index as it is and warns that the results may be
stale. A query has at most 1,000 words and 8 KB.

Query syntax: ` + indexer.QuerySyntax + `
After the first query word, -word is query, not a flag (ctx search rolling
-windows); long flags (--json, --limit 5) still work there. A query that
starts with -word goes after --.

--tags lists the tags of the indexed documents with the number of documents
that carry each (tags come from front matter "tags" and "keywords", else a
"Tags: a, b" line); --package narrows it.

Exit status: 0 when the search ran, whether or not anything matched (and,
search or --tags, in a project with no packages yet); 2 for bad flags, a
bad query or an unknown --package; 1 when there is no index or it cannot
be read.`,
		Example: `  ctx search "graceful node shutdown"
  ctx search --package k8s-keps --limit 5 sidecar containers
  ctx search -- sidecar containers package:k8s-keps -windows
  ctx search 'path:sig-node/ tag:kep "pod lifecycle"'
  ctx search --kind dir release checklist
  ctx search --json --all-passages error handling
  ctx search --tags`,
		Args: func(cmd *cobra.Command, args []string) error {
			args, err := queryArgs(cmd, args)
			if err != nil {
				return err
			}
			opts.words = args
			if len(args) == 0 && !opts.listTags {
				return errors.New("search needs a query, as in: ctx search \"error handling\"")
			}
			if len(args) > 0 && opts.listTags {
				return errors.New("--tags takes no query: ctx search --tags [--package ALIAS]")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.query = strings.Join(opts.words, " ")
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSearch(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.SetInterspersed(false) // after the first query word, -word is query (queryArgs)
	f.StringSliceVarP(&opts.packages, "package", "p", nil, "only search package `ALIAS` (repeat or comma-separate for several)")
	f.StringSliceVar(&opts.kinds, "kind", nil, "only packages of source kind `KIND`: "+strings.Join(project.Kinds, ", ")+" (repeat or comma-separate: any of them)")
	f.StringSliceVarP(&opts.tags, "tag", "t", nil, "only documents tagged `TAG` (repeat or comma-separate: any of them)")
	f.IntVarP(&opts.limit, "limit", "n", indexer.DefaultSearchLimit, "at most `N` hits")
	f.BoolVar(&opts.json, "json", false, "print hits as a JSON array (package, path, heading, lines, score, tags, snippet)")
	f.BoolVar(&opts.allChunks, "all-passages", false, "every matching passage, several of one document (default: the best of each document)")
	// --best-per-doc was the opt-in before it was the default.
	var bestPerDoc bool
	f.BoolVar(&bestPerDoc, "best-per-doc", false, "the best passage of each document (the default)")
	_ = f.MarkHidden("best-per-doc")
	f.BoolVar(&opts.listTags, "tags", false, "list the documents' tags with their counts instead of searching")
	f.BoolVar(&opts.lexical, "lexical", false, "rank by words alone, without the semantic half of an endpoint you set")
	f.BoolVar(&opts.hybrid, "hybrid", false, "fuse the semantic ranking of your embedding endpoint with the lexical one (see 'ctx config')")
	return cmd
}

func runSearch(ctx context.Context, opts *searchOptions) error {
	o, text := opts, opts.query
	if o.limit <= 0 {
		return usageErrorf("--limit must be at least 1, got %d", o.limit)
	}
	if o.listTags {
		return runListTags(ctx, o)
	}
	if strings.TrimSpace(text) == "" {
		return usageErrorf("search needs a query, as in: ctx search \"error handling\"")
	}
	if err := indexer.CheckQuery(text); err != nil {
		return usageErrorf("search: %w", err)
	}
	for i, k := range o.kinds {
		var err error
		if o.kinds[i], err = project.ParseKind(k); err != nil {
			if dk := strings.ToLower(strings.TrimSpace(k)); slices.Contains(indexer.DocKinds, dk) {
				// The query's kind: takes both kinds; the flag, source kinds.
				return usageErrorf("--kind %w; %s is a document kind: put kind:%s in the query", err, safetext.Quote(k), dk)
			}
			return usageErrorf("--kind %w", err)
		}
	}
	if o.lexical && o.hybrid {
		return usageErrorf("--lexical and --hybrid: give one")
	}
	sem, note, closeSem := searchSemantic(o.Env, o.lexical, o.hybrid)
	defer closeSem()
	q := indexer.Query{
		Text:            text,
		Packages:        o.packages,
		Kinds:           o.kinds,
		Tags:            o.tags,
		Limit:           o.limit,
		BestPerDocument: !o.allChunks,
	}
	proj, hits, hnote, err := searchFresh(ctx, o.globalOptions, q, sem)
	if errors.Is(err, indexer.ErrNoIndex) && hasNoPackages(proj) {
		// Nothing to search, and nothing failed: the answer of an empty
		// index (no matches, and how to add a package), exit 0.
		hits, err = nil, nil
	}
	if errors.Is(err, indexer.ErrNoIndex) {
		return fmt.Errorf("no search index in %s: run `ctx index` (or `ctx install`) first", proj.Dir())
	}
	if errors.Is(err, indexer.ErrUnknownPackage) { // package:nosuch, --package nosuch
		return usageErrorf("search: %s", strings.TrimPrefix(err.Error(), "indexer: "))
	}
	if errors.Is(err, indexer.ErrUnknownTag) { // tag:nosuch, --tag nosuch
		return usageErrorf("search: %s; `ctx search --tags` lists the tags", strings.TrimPrefix(err.Error(), "indexer: "))
	}
	if err != nil {
		return err
	}
	o.printNote(o.IO.ErrOut, cmp.Or(note, hnote))
	if !hasNoPackages(proj) && indexer.OnlyCommonWords(q) { // as the MCP search's note
		o.printNote(o.IO.ErrOut, indexer.CommonWordsNote(len(hits) > 0))
	}
	if indexer.OnlyExclusions(q) { // searched as written, as the MCP tools say
		o.printNote(o.IO.ErrOut, indexer.OnlyExclusionsNote)
	}
	out := o.IO.Out
	if o.json {
		if hits == nil {
			hits = []indexer.Hit{}
		}
		return writeJSON(out, hits)
	}
	if len(hits) == 0 && hasNoPackages(proj) {
		fmt.Fprintf(o.IO.ErrOut, "no matches for %s: %s\n", safetext.Quote(text), noPackagesYet)
		return nil
	}
	if len(hits) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "no matches for %s", safetext.Quote(text))
		if f := q.Filters(); len(f) > 0 {
			fmt.Fprintf(o.IO.ErrOut, " with the %s %s: try without %s, or other words", wording.List(f, "and"), wording.Plural(len(f), "filter", "filters"), wording.Plural(len(f), "it", "them"))
		}
		fmt.Fprintln(o.IO.ErrOut)
		return nil
	}
	// One write for all the hits, not one a line (39 system calls for
	// ten hits); as before, a failed write to stdout is not reported.
	bw := bufio.NewWriterSize(out, 64<<10)
	defer bw.Flush()
	out = bw
	for i, h := range hits {
		if i > 0 {
			fmt.Fprintln(out)
		}
		more := ""
		if h.More > 0 {
			more = ", " + wording.Count(h.More, "more passage", "more passages") + " in this document"
		}
		fmt.Fprintf(out, "%s/%s:%d-%d  (score %.2f%s)\n", safetext.Escape(h.Package), safetext.Escape(h.Path), h.Lines[0], h.Lines[1], h.Score, more)
		if h.Heading != "" {
			fmt.Fprintf(out, "  %s\n", safetext.Escape(h.Heading))
		}
		if len(h.Tags) > 0 {
			fmt.Fprintf(out, "  tags: %s\n", safetext.Escape(strings.Join(h.Tags, ", ")))
		}
		if len(h.Versions) > 0 { // one line a page kept per release (indexer.Hit.Versions)
			fmt.Fprintf(out, "  also in: %s\n", safetext.Escape(strings.Join(h.Versions, ", ")))
		}
		if h.Snippet != "" {
			fmt.Fprintf(out, "  %s\n", safetext.Escape(h.Snippet))
		}
	}
	return nil
}

// runListTags prints the indexed documents' tags with their counts.
func runListTags(ctx context.Context, o *searchOptions) error {
	proj, r, err := openFreshIndex(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer r.Close()
	tags, err := r.Tags(ctx, o.packages)
	if errors.Is(err, indexer.ErrNoIndex) && hasNoPackages(proj) {
		// Nothing indexed, and nothing failed: the answer of an empty
		// index, as search gives it (exit 0); an alias is still unknown.
		if perr := checkPackages(o.globalOptions, o.packages...); perr != nil {
			return perr
		}
		tags, err = nil, nil
	}
	if errors.Is(err, indexer.ErrNoIndex) {
		return fmt.Errorf("no search index in %s: run `ctx index` (or `ctx install`) first", proj.Dir())
	}
	if errors.Is(err, indexer.ErrUnknownPackage) { // --package nosuch
		return usageErrorf("search --tags: %s", strings.TrimPrefix(err.Error(), "indexer: "))
	}
	if err != nil {
		return err
	}
	if o.json {
		if tags == nil {
			tags = []indexer.TagCount{}
		}
		return writeJSON(o.IO.Out, tags)
	}
	if len(tags) == 0 && hasNoPackages(proj) {
		fmt.Fprintln(o.IO.ErrOut, "no tagged documents: "+noPackagesYet)
		return nil
	}
	if len(tags) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "no tagged documents")
		return nil
	}
	for _, t := range tags {
		fmt.Fprintf(o.IO.Out, "%5d  %s\n", t.Count, safetext.Escape(t.Tag))
	}
	return nil
}

// openFreshIndex opens the project's search index to read it, first
// bringing it up to date with the packages' files (workspace.FreshenIndex,
// the MCP server's check): a re-index is said in one line on stderr, and an
// index that could not be re-indexed is read as it is, with a warning
// there. stdout is left to the results.
func openFreshIndex(ctx context.Context, g *globalOptions) (project.Project, *indexer.Reader, error) {
	dir, proj, r, err := openIndex(g)
	if err != nil {
		return project.Project{}, nil, err
	}
	printIndexCheck(g, g.IO.ErrOut, freshenIndex(ctx, g, dir, r))
	return proj, r, nil
}

// openIndex opens a Reader of the project's index (nothing is read yet).
func openIndex(g *globalOptions) (dir string, proj project.Project, r *indexer.Reader, err error) {
	if dir, proj, err = g.Project(); err != nil {
		return "", project.Project{}, nil, err
	}
	if r, err = indexer.OpenReader(proj.Dir()); err != nil {
		return "", project.Project{}, nil, err
	}
	return dir, proj, r, nil
}

// freshenIndex is workspace.FreshenIndex of the project in dir, r its
// index, for the search command: it logs to stderr.
func freshenIndex(ctx context.Context, g *globalOptions, dir string, r *indexer.Reader) workspace.IndexCheck {
	return workspace.FreshenIndex(ctx, dir, r, workspace.Options{Log: g.IO.ErrOut, Home: g.Env.userHome()}, indexer.Options{})
}

// searchFresh runs q (with the semantic half sem, when not nil) on the
// project's index once it is fresh, as openFreshIndex then SearchHybrid
// would: the same hits, and the same line on stderr when it re-indexed
// or could not. A lexical search runs on a Reader of its own while the
// freshness check runs (they overlap on a second core: the check is most
// of a search's own time, bench/README.md), and that Reader is closed as
// soon as its search returns, so a re-index waits for it no longer than
// the search takes. Its hits are kept only when the check found the
// index fresh and left it as it was (no re-index, no error) and no other
// process published a version meanwhile (indexer.PublishedIndex); else
// the search runs again on the index as the check left it. With sem the
// check comes first, so the endpoint is asked once.
func searchFresh(ctx context.Context, g *globalOptions, q indexer.Query, sem *indexer.Semantic) (project.Project, []indexer.Hit, string, error) {
	dir, proj, r, err := openIndex(g)
	if err != nil {
		return project.Project{}, nil, "", err
	}
	defer r.Close()
	if sem != nil {
		printIndexCheck(g, g.IO.ErrOut, freshenIndex(ctx, g, dir, r))
		hits, note, err := r.SearchHybrid(ctx, q, sem)
		return proj, hits, note, err
	}
	type result struct {
		hits []indexer.Hit
		err  error
	}
	// The version published before the early search opens the index:
	// the same version after the check means the early search read the
	// one the check found fresh (another process, `ctx index` or a
	// server's re-index, may publish at any moment).
	published, pubErr := indexer.PublishedIndex(proj.Dir())
	earlyCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	early := make(chan result, 1)
	go func() {
		r2, err := indexer.OpenReader(proj.Dir())
		if err != nil {
			early <- result{err: err}
			return
		}
		hits, err := r2.Search(earlyCtx, q)
		r2.Close()
		if h, ok := ctx.Value(searchFreshHooksKey{}).(*searchFreshHooks); ok {
			h.afterEarly()
		}
		early <- result{hits, err}
	}()
	if h, ok := ctx.Value(searchFreshHooksKey{}).(*searchFreshHooks); ok {
		h.beforeCheck()
	}
	c := freshenIndex(ctx, g, dir, r)
	fresh := c.Err == nil && c.Report == nil
	if !fresh {
		cancel() // its hits will not be kept
	}
	res := <-early
	printIndexCheck(g, g.IO.ErrOut, c)
	if fresh && pubErr == nil {
		if now, err := indexer.PublishedIndex(proj.Dir()); err == nil && now.Same(published) {
			return proj, res.hits, "", res.err
		}
	}
	hits, err := r.Search(ctx, q)
	return proj, hits, "", err
}

// searchFreshHooks order searchFresh's two halves in a test (a context
// value, so only that test's search sees them): afterEarly runs once the
// early search has returned, beforeCheck before the freshness check.
type searchFreshHooks struct{ afterEarly, beforeCheck func() }

type searchFreshHooksKey struct{}

// reindexedFiles says what a re-index did to the files: "1 file changed",
// "2 files removed", "1 file changed, 1 added" (a removed file is not
// "changed").
func reindexedFiles(r *indexer.SyncReport) string {
	var parts []string
	for _, c := range []struct {
		n    int
		verb string
	}{{r.Updated, "changed"}, {r.Added, "added"}, {r.Removed, "removed"}} {
		if c.n == 0 {
			continue
		}
		if len(parts) == 0 {
			parts = append(parts, fmt.Sprintf("%d %s %s", c.n, wording.Plural(c.n, "file", "files"), c.verb))
		} else {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.verb))
		}
	}
	if len(parts) == 0 {
		return "0 files changed"
	}
	return strings.Join(parts, ", ")
}

// printIndexCheck says on w what FreshenIndex did: nothing when the index
// was fresh, one line when it re-indexed, else a warning that the results
// may be stale, why, and what to do; after it, the warning of each
// committed dir source whose documents git does not track were held back
// (IndexCheck.Held: a teammate's new document is not "no matches" alone).
// What is built deep down (the warnings, the errors) is in the terminal's
// marks (deepText).
func printIndexCheck(g *globalOptions, w io.Writer, c workspace.IndexCheck) {
	defer func() {
		for _, h := range c.Held {
			fmt.Fprintf(w, "warning: %s\n", g.deepText(h))
		}
	}()
	what := safetext.Escape(strings.Join(c.Stale, ", "))
	var busy *workspace.BusyError
	var unreadable *jsonfile.ErrorList
	var damaged *indexer.DamagedFileError
	switch {
	case c.Err == nil && c.Report != nil:
		fmt.Fprintf(w, "re-indexed %s (%s)\n", what, reindexedFiles(c.Report))
	case c.Err == nil:
		// fresh
	case len(c.Stale) == 0 && (errors.As(c.Err, &unreadable) && unreadable.Hint != "" || errors.As(c.Err, &damaged)):
		// The manifest or the lock does not parse (`ctx index` would fail
		// on it too), or a file of the index is damaged: its error says
		// what to do.
		fmt.Fprintf(w, "warning: results may be stale: ctx could not check the index against the packages' files: %s\n", g.deepText(c.Err.Error()))
	case len(c.Stale) == 0:
		fmt.Fprintf(w, "warning: results may be stale: ctx could not check the index against the packages' files (%s); run `ctx index`\n", g.deepText(c.Err.Error()))
	case errors.As(c.Err, &busy):
		fmt.Fprintf(w, "warning: results may be stale: %s changed since the index was built, and another ctx (%s) is working in this project; run `ctx index` when it is done\n", what, g.deepText(busy.Holder))
	default:
		fmt.Fprintf(w, "warning: %s\n", g.symbols().Marks(indexer.Behind(what, c.Err)))
	}
}
