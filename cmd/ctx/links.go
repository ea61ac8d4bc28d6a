package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/workspace"
)

type linksOptions struct {
	*globalOptions
	path      string // ALIAS/PATH, "" with --broken
	backlinks bool
	broken    bool
	packages  []string // --package, with --broken
	json      bool
}

func newLinksCmd(g *globalOptions, runF func(context.Context, *linksOptions) error) *cobra.Command {
	opts := &linksOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "links ALIAS/PATH | --broken [--package ALIAS]",
		Short: "Show a document's links and backlinks, or every broken link",
		Long: `Show the links of an installed document: markdown and reference links,
[[wikilinks]] and front-matter fields that name documents (a KEP's kep.yaml
counts as its README's front matter), each with its line, type and the
document it resolves to. mdBook-style .html links resolve to the installed
.md, a folder to its README.md, and a GitHub (or GitLab, Gitea) URL into the
repository of an installed package to that package's file.

With --backlinks, show the documents that link to it instead. With --broken,
list every link that points into an installed package at nothing, as
FILE:LINE, and exit 1 when there is any (for CI); --package ALIAS (repeat
or comma-separate) checks only the links of those packages. Links that
leave every installed package are not checked. A link to a document that
audience rules kept out of this project's install is "withheld", not
broken: --broken does not list it.

The document is named by its package alias and its path inside the
package, as search hits show it.

Exit status: 0 done; 1 an error, or --broken found broken links, or could
not bring the index up to date with changed files (another ctx holds the
project, or it is read-only: their links are not checked); 2 usage.`,
		Example: `  ctx links rust-book/ch04-01-what-is-ownership.md
  ctx links --backlinks rust-book/ch04-01-what-is-ownership.md
  ctx links --broken
  ctx links --broken --package rust-book
  ctx links --json keps/sig-node/135-seccomp/README.md`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return fmt.Errorf("links takes one document: too many arguments: %s (usage: %s)", strings.Join(args[1:], " "), cmd.UseLine())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.path = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runLinks(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.backlinks, "backlinks", false, "show the links to the document instead of its own")
	f.BoolVar(&opts.broken, "broken", false, "list every broken link of the installed packages; exit 1 when any")
	f.StringSliceVar(&opts.packages, "package", nil, "with --broken: only the links of package `ALIAS` (repeat or comma-separate for several)")
	f.BoolVar(&opts.json, "json", false, "print the links as a JSON array")
	return cmd
}

// openIndexReader opens the project's index for reading (openIndex) and
// returns it with the project's .context folder.
func openIndexReader(g *globalOptions) (*indexer.Reader, string, error) {
	_, proj, r, err := openIndex(g)
	if err != nil {
		return nil, "", err
	}
	return r, proj.Dir(), nil
}

// checkPackages is workspace's CheckPackages for the project, opened
// read-only: its unknown-alias error, or nil (also when the project cannot
// be read: the caller's own error then stands).
func checkPackages(g *globalOptions, aliases ...string) error {
	w, err := openWorkspaceReadOnly(g)
	if err != nil {
		return nil
	}
	defer w.Close()
	if err := w.CheckPackages(aliases); errors.Is(err, workspace.ErrUnknownPackage) {
		return err
	}
	return nil
}

// openFreshIndexReader is openIndexReader after the check search makes
// (openFreshIndex): links and find answer from the packages' files as they
// are, a dir source edited in place included, not from the index as the
// last install left it (a broken link just written passed --broken).
// It returns the check too: a Stale one with Err is an index that could
// not be brought up to date (its warning is printed).
func openFreshIndexReader(ctx context.Context, g *globalOptions) (*indexer.Reader, string, workspace.IndexCheck, error) {
	dir, proj, r, err := openIndex(g)
	if err != nil {
		return nil, "", workspace.IndexCheck{}, err
	}
	c := freshenIndex(ctx, g, dir, r)
	printIndexCheck(g, g.IO.ErrOut, c)
	return r, proj.Dir(), c, nil
}

// indexError says what to do when there is no index yet.
func indexError(err error, dir string) error {
	if errors.Is(err, indexer.ErrNoIndex) {
		return fmt.Errorf("no index in %s: run `ctx index` (or `ctx install`) first", dir)
	}
	return err
}

func runLinks(ctx context.Context, o *linksOptions) error {
	switch {
	case o.broken && (o.path != "" || o.backlinks):
		return usageErrorf("--broken lists the broken links of every package: give no document and no --backlinks")
	case len(o.packages) > 0 && !o.broken:
		return usageErrorf("--package goes with --broken (see 'ctx links --help')")
	case !o.broken && o.path == "":
		return usageErrorf("links needs a document, as in: ctx links rust-book/ch04-01-what-is-ownership.md (or --broken)")
	case !o.broken && isFilePath(o.path):
		return filePathError(o.globalOptions, o.path)
	}
	r, dir, check, err := openFreshIndexReader(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer r.Close()
	var links []indexer.Link
	if o.broken {
		links, err = r.BrokenLinks(o.packages)
		if errors.Is(err, indexer.ErrUnknownPackage) {
			return usageErrorf("links --broken: %s", strings.TrimPrefix(err.Error(), "indexer: "))
		}
	} else {
		alias, p, ok := strings.Cut(o.path, "/")
		if !ok || p == "" {
			return usageErrorf("document %s: name it ALIAS/PATH, the package alias then the path inside it", safetext.Quote(o.path))
		}
		var out, back []indexer.Link
		out, back, err = r.Links(alias, p)
		if errors.Is(err, indexer.ErrUnknownPackage) {
			// An alias the project does not know is the same bad
			// argument as for update or remove, with their wording; one
			// it knows and the index lacks is the index's to say.
			if perr := checkPackages(o.globalOptions, alias); perr != nil {
				return perr
			}
		}
		links = out
		if o.backlinks {
			links = back
		}
	}
	if errors.Is(err, indexer.ErrUnknownPackage) || errors.Is(err, indexer.ErrUnknownDocument) { // nosuch/x.md, api/nosuch.md
		return usageErrorf("links: %s", strings.TrimPrefix(err.Error(), "indexer: "))
	}
	if err != nil {
		return indexError(err, dir)
	}
	if err := printLinks(o.IO.Out, links, o.json, o.backlinks); err != nil {
		return err
	}
	if len(links) == 0 && !o.json {
		// Said, as search's "no matches" and find's "no documents
		// match": an empty stdout alone read as a failure to look.
		doc := safetext.Escape(o.path)
		switch {
		case o.broken:
			fmt.Fprintln(o.IO.ErrOut, "no broken links")
		case o.backlinks:
			fmt.Fprintf(o.IO.ErrOut, "no document links to %s\n", doc)
		default:
			fmt.Fprintf(o.IO.ErrOut, "%s has no links\n", doc)
		}
	}
	if o.broken && len(links) > 0 {
		fmt.Fprintf(o.IO.ErrOut, "%d %s\n", len(links), wording.Plural(len(links), "broken link", "broken links"))
		return &exitError{code: ExitError}
	}
	if o.broken && len(check.Stale) > 0 && check.Err != nil {
		// --broken is a check (a hook's, CI's): files it could not read
		// into the index are not checked, so it does not pass.
		return fmt.Errorf("links --broken: the index could not be brought up to date with the files of %s (the warning above), so their links are not checked; run it again when `ctx index` can run",
			safetext.Escape(strings.Join(check.Stale, ", ")))
	}
	return nil
}

// isFilePath says whether a document argument is a file path as a shell
// writes one (./x, ../x, /x, ~/x), never ALIAS/PATH: an alias is no such
// word (naming's alias rule).
func isFilePath(arg string) bool {
	first, _, _ := strings.Cut(filepath.ToSlash(arg), "/")
	return first == "." || first == ".." || first == "" || first == "~" || filepath.IsAbs(arg)
}

// filePathError is the usage error for a file path where links takes
// ALIAS/PATH: the document's ALIAS/PATH when a package of the project
// holds that file (a dir source's folder, or an installed package's),
// else how to name one.
func filePathError(g *globalOptions, arg string) error {
	const takes = "links takes ALIAS/PATH, a package's alias then the path inside it, as search hits show it"
	if doc := documentOf(g, arg); doc != "" {
		return usageErrorf("%s is a file path; %s: ctx links %s", safetext.Quote(arg), takes, safetext.ShellJoin([]string{doc}))
	}
	return usageErrorf("%s is a file path, in no package of this project; %s (see `ctx list`)", safetext.Quote(arg), takes)
}

// documentOf is ALIAS/PATH of the file typed as arg (read from where the
// user stands, typedPath) in the package whose folder holds it, or "".
func documentOf(g *globalOptions, arg string) string {
	typed, err := g.typedPath(arg)
	if err != nil || strings.HasPrefix(typed, "~") {
		return ""
	}
	_, proj, err := g.Project()
	if err != nil {
		return ""
	}
	abs := typed
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(proj.Root(), filepath.FromSlash(typed))
	}
	m, err := proj.ReadManifest()
	if err != nil {
		return ""
	}
	l, err := proj.ReadLock()
	if errors.Is(err, fs.ErrNotExist) {
		l, err = &lockfile.Lock{Packages: map[string]lockfile.Entry{}}, nil
	}
	if err != nil {
		return ""
	}
	for _, p := range proj.Installed(m, l) {
		rel, ok := naming.RelIn(p.Dir, abs)
		if !ok || rel == "." || (p.Only != "" && rel != p.Only) {
			continue
		}
		return p.Alias + "/" + filepath.ToSlash(rel)
	}
	return ""
}

// printLinks prints one link a line: FILE:LINE, type, target, and where it
// resolves (a backlink: the citing FILE:LINE and type).
func printLinks(w io.Writer, links []indexer.Link, asJSON, back bool) error {
	if asJSON {
		if links == nil {
			links = []indexer.Link{}
		}
		return writeJSON(w, links)
	}
	for _, l := range links {
		from := safetext.Escape(l.From.Package + "/" + l.From.Path)
		if back {
			fmt.Fprintf(w, "%s:%d\t%s\t%s\n", from, l.Line, safetext.Escape(l.Type), safetext.Escape(l.From.Title))
			continue
		}
		s := fmt.Sprintf("%s:%d\t%s\t%s\t%s", from, l.Line, safetext.Escape(l.Type), safetext.Escape(l.Target), l.Status)
		if l.To != nil {
			s += "\t" + safetext.Escape(l.To.Package+"/"+l.To.Path)
		}
		if l.Reason != "" {
			s += "\t(" + safetext.Escape(l.Reason) + ")"
		}
		fmt.Fprintln(w, s)
	}
	return nil
}

type findOptions struct {
	*globalOptions
	conds    []string // KEY=VALUE
	where    string   // a JSON filter
	packages []string
	tags     []string
	limit    int
	json     bool
}

func newFindCmd(g *globalOptions, runF func(context.Context, *findOptions) error) *cobra.Command {
	opts := &findOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "find KEY=VALUE...",
		Short: "Find documents by their front matter",
		Long: `Find the installed documents whose front matter (a KEP's kep.yaml counts
as its README's) has every KEY=VALUE given: strings compare ignoring case,
a number or a date field compares as one ("kep-number=135",
"creation-date=2020-01-02"), and a list field matches when one of its
elements does.

--where takes the filter of the find_documents MCP tool, a JSON object with
operators: {"kep-number": {"$gt": 1000}}, {"stage": {"$in": ["alpha",
"beta"]}}, {"creation-date": {"$between": ["2020-01-01", "2020-12-31"]}},
{"see-also": {"$exists": true}}, {"authors": {"$contains": "@me"}}.

Prints PACKAGE/PATH and the title, by package then path.

Exit status: 0 done (also when nothing matches); 1 an error; 2 usage.`,
		Example: `  ctx find status=implementable
  ctx find status=implementable owning-sig=sig-node --json
  ctx find --where '{"kep-number": {"$gt": 4000}}'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.conds = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runFind(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.where, "where", "", "a JSON filter with operators (`JSON`), combined with the KEY=VALUE arguments")
	f.StringSliceVarP(&opts.packages, "package", "p", nil, "only package `ALIAS` (repeat or comma-separate for several)")
	f.StringSliceVarP(&opts.tags, "tag", "t", nil, "only documents tagged `TAG` (any of them)")
	f.IntVarP(&opts.limit, "limit", "n", indexer.MaxFindLimit, "at most `N` documents")
	f.BoolVar(&opts.json, "json", false, "print the documents with their metadata as JSON")
	return cmd
}

func runFind(ctx context.Context, o *findOptions) error {
	where := map[string]any{}
	if o.where != "" {
		if err := json.Unmarshal([]byte(o.where), &where); err != nil {
			return usageErrorf("--where: not a JSON object: %v; write it as '{\"status\": \"implementable\"}'", err)
		}
	}
	for _, c := range o.conds {
		k, v, ok := strings.Cut(c, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return usageErrorf("%s: write a condition as KEY=VALUE, as in status=implementable", safetext.Quote(c))
		}
		if _, dup := where[k]; dup {
			return usageErrorf("%s: key %s given twice", safetext.Quote(c), safetext.Quote(k))
		}
		where[k] = v
	}
	if len(where) == 0 {
		return usageErrorf("find needs a condition, as in: ctx find status=implementable (or --where JSON)")
	}
	if o.limit <= 0 {
		return usageErrorf("--limit must be at least 1, got %d", o.limit)
	}
	if err := indexer.CheckWhere(where); err != nil {
		return usageErrorf("%w", err)
	}
	r, dir, _, err := openFreshIndexReader(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := r.Find(ctx, indexer.FindQuery{Where: where, Packages: o.packages, Tags: o.tags, Limit: o.limit})
	if errors.Is(err, indexer.ErrUnknownPackage) { // --package nosuch
		return usageErrorf("find: %s", strings.TrimPrefix(err.Error(), "indexer: "))
	}
	if errors.Is(err, indexer.ErrUnknownTag) { // --tag nosuch
		return usageErrorf("find: %s; `ctx search --tags` lists the tags", strings.TrimPrefix(err.Error(), "indexer: "))
	}
	if err != nil {
		return indexError(err, dir)
	}
	if o.json {
		return writeJSON(o.IO.Out, res.Documents)
	}
	for _, d := range res.Documents {
		fmt.Fprintf(o.IO.Out, "%s\t%s\n", safetext.Escape(d.Package+"/"+d.Path), safetext.Escape(d.Title))
	}
	if res.NextCursor != "" {
		fmt.Fprintf(o.IO.ErrOut, "%d of %d documents shown; raise --limit for more\n", len(res.Documents), res.Total)
	}
	if res.Total == 0 {
		fmt.Fprintln(o.IO.ErrOut, "no documents match")
	}
	return nil
}
