package main

import (
	"context"
	"fmt"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
	"github.com/spf13/cobra"
)

type indexOptions struct {
	*globalOptions
	rebuild   bool
	json      bool
	budget    int
	budgetSet bool // --budget was given
}

func newIndexCmd(g *globalOptions, runF func(context.Context, *indexOptions) error) *cobra.Command {
	opts := &indexOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "index [--rebuild] [--budget N] [--json]",
		Example: `  ctx index
  ctx index --rebuild
  ctx index --budget 4000
  ctx index --json`,
		Short: "Bring INDEX.md and the search index up to date",
		Long: fmt.Sprintf(`Index re-indexes the files of the installed packages that changed since
the last run, drops packages that are gone, and writes .context/INDEX.md
within its token budget: --budget, else the manifest's index.budgetTokens,
else %d. --rebuild drops the search index and builds it again.

A dir source is read in place: its documents, but not its hidden files and
folders nor what its .gitignore files (and, inside the project, the
project's above it) ignore, and no symbolic link is followed; one past its
bounds (100,000 files and folders or 1 GiB of documents, unless its spec's
limits.maxFiles and limits.maxTotalBytes say otherwise) stops the index
with an error. A dir source of the committed manifest that leads outside
the project is refused: neither indexed nor served. One whose file or folder
is gone is warned about (as install and search do) and has nothing
indexed until it is back.

With an embedding endpoint configured (see 'ctx config'), index then
embeds the chunks that have no vector yet (document text is sent to that
endpoint), with a progress line, and returns when the vectors are
current; it fails (1) when the endpoint does, the search index done.

--json prints {rebuilt, added, updated, removed, unchanged, chunks,
indexTokens, degraded, refused, vectors}: the documents added, updated,
removed and unchanged, the chunks in the index and INDEX.md's size in
tokens after it; degraded what INDEX.md left out to fit its budget ("" when
nothing); refused an array of {alias, error}, the dir sources not indexed,
[] when none; vectors null without an embedding endpoint (or when it
failed: the error and exit 1 follow), else {model, dims, chunks, vectors,
embedded, bytes}. Warnings and errors stay on stderr.

Exit status: 0 when done; 3 when a dir source was refused (the others are
indexed); 2 for bad flags or arguments; 1 for other errors.`, indexer.DefaultBudgetTokens),
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.budgetSet = cmd.Flags().Changed("budget")
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runIndex(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.rebuild, "rebuild", false, "drop the search index and build it again")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the result as JSON (documents added, updated, removed, unchanged; chunks; refused; vectors)")
	cmd.Flags().IntVar(&opts.budget, "budget", 0, "INDEX.md budget in `N` tokens (default: the manifest's, else the built-in default)")
	return cmd
}

func runIndex(ctx context.Context, opts *indexOptions) error {
	if opts.budgetSet && opts.budget <= 0 {
		return usageErrorf("index: --budget must be a positive number of tokens, got %d", opts.budget)
	}
	w, err := openWorkspace(opts.globalOptions, nil)
	if err != nil {
		return err
	}
	defer w.Close()
	budget := opts.budget
	if budget == 0 {
		budget = w.Manifest().Index.BudgetTokens
	}
	errOut := opts.IO.ErrOut
	var rep *indexer.SyncReport
	reindex := func() (err error) {
		rep, err = w.Reindex(ctx, indexer.Options{
			BudgetTokens: budget,
			Rebuild:      opts.rebuild,
			Warn:         func(msg string) { fmt.Fprintf(errOut, "warning: %s\n", opts.deepText(msg)) },
		})
		return err
	}
	if opts.rebuild {
		err = withBuildGC(reindex) // a full build: the collector set for it (gcbuild.go)
	} else {
		err = reindex()
	}
	if err != nil {
		return err
	}
	refused := w.Refused()
	if !opts.json {
		printSyncReport(opts.IO.Out, rep)
	}
	for _, e := range refused {
		fmt.Fprintf(errOut, "%s: not indexed: %s\n", safetext.Escape(e.Alias), opts.deepText(e.Error()))
	}
	// The vectors are embedded without the project's lock (the index
	// has its own for them): an endpoint's minutes hold no other command.
	dir, hint := w.Dir(), w.Manifest().Embeddings
	w.Close()
	vec, err := embedIndex(ctx, opts.globalOptions, dir, hint, errOut, opts.stderrDraws())
	if opts.json {
		// The search index is done when the endpoint fails: its result
		// is printed, and the error (exit 1) follows on stderr.
		if jerr := writeJSON(opts.IO.Out, indexJSONOf(rep, refused, vec)); jerr != nil && err == nil {
			err = jerr
		}
	} else if vec != nil {
		printEmbedReport(opts.IO.Out, vec)
	}
	if err != nil {
		return err
	}
	if len(refused) > 0 {
		return partial()
	}
	return nil
}

// indexJSON is ctx index --json's answer (its help says the fields).
type indexJSON struct {
	Rebuilt     bool          `json:"rebuilt"`
	Added       int           `json:"added"`
	Updated     int           `json:"updated"`
	Removed     int           `json:"removed"`
	Unchanged   int           `json:"unchanged"`
	Chunks      int           `json:"chunks"`
	IndexTokens int           `json:"indexTokens"`
	Degraded    string        `json:"degraded"`
	Refused     []refusedJSON `json:"refused"`
	Vectors     *vectorsJSON  `json:"vectors"`
}

type refusedJSON struct {
	Alias string `json:"alias"`
	Error string `json:"error"`
}

type vectorsJSON struct {
	Model    string `json:"model"`
	Dims     int    `json:"dims"`
	Chunks   int    `json:"chunks"`
	Vectors  int    `json:"vectors"`
	Embedded int    `json:"embedded"`
	Bytes    int64  `json:"bytes"`
}

func indexJSONOf(r *indexer.SyncReport, refused []*project.SourceError, vec *indexer.EmbedReport) indexJSON {
	out := indexJSON{Rebuilt: r.Rebuilt, Added: r.Added, Updated: r.Updated, Removed: r.Removed, Unchanged: r.Unchanged,
		Chunks: r.Chunks, IndexTokens: r.IndexTokens, Degraded: r.Degraded, Refused: []refusedJSON{}}
	for _, e := range refused {
		out.Refused = append(out.Refused, refusedJSON{Alias: e.Alias, Error: e.Error()})
	}
	if vec != nil {
		out.Vectors = &vectorsJSON{Model: vec.Model, Dims: vec.Dims, Chunks: vec.Chunks, Vectors: vec.Vectors, Embedded: vec.Embedded, Bytes: vec.Bytes}
	}
	return out
}
