package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/source"
	"github.com/ctx-dev/ctx/webfetch"
)

type cacheOptions struct {
	*globalOptions
	op     string // "info" or "gc"
	json   bool   // info --json
	dryRun bool   // gc --dry-run
	keep   string // gc --keep, as typed
}

// cacheGCWait is how long `ctx cache gc` waits for a remote another ctx
// process is fetching or reading before it skips it.
const cacheGCWait = 10 * time.Second

// defaultKeep is gitengine.DefaultKeep as --keep takes it.
var defaultKeep = fmt.Sprintf("%dd", gitengine.DefaultKeep/(24*time.Hour))

func newCacheCmd(g *globalOptions, runF func(context.Context, *cacheOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "Show and collect the shared object cache",
		Long: `Cache shows and collects the cache ctx shares between all your projects:
one git object store per remote, and the documents of https sources. It is
in your user cache folder (ctx/git), or CTX_CACHE.

Every install, update and fetch records, per remote, the commits and
sub-paths it used and when. 'ctx cache gc' keeps the commits used within
the keep period (--keep, ` + defaultKeep + `) with all their trees and the files under
the recorded paths, and everything written within it; it drops the rest
and packs the loose objects. A project whose packages were installed or
updated within the keep period therefore installs from the cache; another
fetches again what it needs. The https documents are collected the same
way: a snapshot (what one fetch of a URL saw) used within the keep period
stays with its bodies, and so does every body written within it.

With CTX_CACHE_MAX set (2GB, 500MB, 1.5GiB), an install or update that
leaves the git stores larger than that collects them, least recently used
first, until they fit; what the keep period keeps is never dropped.

gc is safe while other ctx processes run: a remote being fetched or read
is waited for, then skipped (exit 3).

Exit status: each sub-command's; 2 for an unknown sub-command or bad flags.`,
		Example: `  ctx cache info
  ctx cache gc --dry-run
  ctx cache gc --keep 3d`,
		Args: noArgs,
	}
	info := &cobra.Command{
		Use: "info [--json]",
		Example: `  ctx cache info
  ctx cache info --json`,
		Short: "Show the cache folder and the size of each remote's store",
		Long: `Info prints the cache folder, then one line per git remote (by its URL,
credentials redacted): its size, pack files, objects in packs, loose
objects, commits recorded as used, and its last use; then the https
documents' size, and the total.

Exit status: 0 when done; 2 for bad arguments; 1 when the cache cannot be
read.`,
		Args: noArgs,
	}
	infoOpts := &cacheOptions{globalOptions: g, op: "info"}
	info.Flags().BoolVar(&infoOpts.json, "json", false, "print JSON")
	gc := &cobra.Command{
		Use:        "gc [--dry-run] [--keep DURATION]",
		SuggestFor: []string{"clean", "clear", "prune"}, // npm cache clean; commandSuggestions
		Example: `  ctx cache gc --dry-run
  ctx cache gc --keep 7d`,
		Short: "Drop what no recent install used, and repack",
		Long: `Gc collects each remote's store: commits used within the keep period
stay, with their trees and the files under the paths they were used for,
and so does every object written within it; the rest is dropped, and the
kept objects of older pack files and all loose objects are written into
new pack files. The https documents' snapshots used within the keep
period stay with their bodies, as does every body fetched within it.
--keep 0 drops everything that is not in use right now.

Exit status: 0 when done; 3 when a remote (or the https documents) was in
use by another ctx process and was skipped; 2 for bad arguments; 1 for other errors.`,
		Args: noArgs,
	}
	gcOpts := &cacheOptions{globalOptions: g, op: "gc"}
	gc.Flags().BoolVar(&gcOpts.dryRun, "dry-run", false, "print what would be dropped; change nothing")
	gc.Flags().StringVar(&gcOpts.keep, "keep", defaultKeep, "keep what was used within `DURATION` (12h, 7d, 2w; 0 keeps nothing)")
	for c, opts := range map[*cobra.Command]*cacheOptions{info: infoOpts, gc: gcOpts} {
		opts := opts
		c.RunE = func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runCache(c.Context(), opts)
		}
	}
	cmd.AddCommand(info, gc)
	return cmd
}

func runCache(ctx context.Context, opts *cacheOptions) error {
	keep := gitengine.DefaultKeep
	if opts.keep == "0" {
		keep = 0
	} else if opts.op == "gc" {
		d, err := source.ParseDuration(opts.keep)
		if err != nil {
			return usageErrorf("cache gc --keep: %w, or 0", err)
		}
		keep = d
	}
	eo, err := opts.Env.engineOptions()
	if err != nil {
		return err
	}
	if eo.CacheDir == "" {
		return fmt.Errorf("no cache folder: there is no user cache directory; set CTX_CACHE")
	}
	eng := gitengine.New(eo)
	if opts.op == "info" {
		return cacheInfo(ctx, opts, eng, eo)
	}
	res, err := eng.GC(ctx, gitengine.GCOptions{Keep: keep, DryRun: opts.dryRun, Wait: cacheGCWait})
	var web webfetch.GCResult
	if err == nil {
		web, err = webfetch.GC(ctx, eo.CacheDir, webfetch.GCOptions{Keep: keep, DryRun: opts.dryRun, Wait: cacheGCWait})
	}
	skipped := printGC(opts.globalOptions, res, web, opts.dryRun)
	if err != nil {
		return err
	}
	if opts.dryRun {
		fmt.Fprintln(opts.IO.ErrOut, "dry run: nothing was changed")
	}
	if skipped {
		return partial()
	}
	return nil
}

// remoteName is how a remote's store is shown: its URL, else its folder.
func remoteName(url, key string) string {
	if url == "" {
		return "(" + key + ")"
	}
	return safetext.Text(url)
}

func cacheInfo(ctx context.Context, opts *cacheOptions, eng *gitengine.Engine, eo gitengine.Options) error {
	remotes, err := eng.CacheInfo(ctx)
	if err != nil {
		return err
	}
	web, err := webfetch.Usage(eo.CacheDir)
	if err != nil {
		return err
	}
	var gitBytes int64
	for _, r := range remotes {
		gitBytes += r.Bytes
	}
	// The project's vectors (semantic search), when it has some: the
	// embedding endpoint's answers, kept with its index, not in this cache.
	var vec *indexer.VectorInfo
	if dir, err := opts.ProjectDir(); err == nil {
		if proj, err := project.At(dir); err == nil {
			if info, err := indexer.Vectors(proj.Dir()); err == nil && info.Vectors > 0 {
				vec = &info
			}
		}
	}
	if opts.json {
		type jsonRemote struct {
			URL           string     `json:"url"`
			Key           string     `json:"key"`
			Bytes         int64      `json:"bytes"`
			Packs         int        `json:"packs"`
			PackedObjects int        `json:"packedObjects"`
			LooseObjects  int        `json:"looseObjects"`
			Commits       int        `json:"commits"`
			LastUsed      *time.Time `json:"lastUsed,omitempty"`
		}
		out := struct {
			Dir      string       `json:"dir"`
			Bytes    int64        `json:"bytes"`
			GitBytes int64        `json:"gitBytes"`
			Max      int64        `json:"max,omitempty"`
			Remotes  []jsonRemote `json:"remotes"`
			HTTPS    struct {
				Bytes     int64      `json:"bytes"`
				Snapshots int        `json:"snapshots"`
				Blobs     int        `json:"blobs"`
				LastUsed  *time.Time `json:"lastUsed,omitempty"`
			} `json:"https"`
			Vectors *indexer.VectorInfo `json:"vectors,omitempty"`
		}{Dir: eo.CacheDir, Bytes: gitBytes + web.Bytes, GitBytes: gitBytes, Max: eo.CacheMax, Remotes: []jsonRemote{}}
		when := func(t time.Time) *time.Time {
			if t.IsZero() {
				return nil
			}
			t = t.UTC()
			return &t
		}
		for _, r := range remotes {
			out.Remotes = append(out.Remotes, jsonRemote{URL: r.URL, Key: r.Key, Bytes: r.Bytes, Packs: r.Packs, PackedObjects: r.PackedObjects, LooseObjects: r.LooseObjects, Commits: r.Commits, LastUsed: when(r.LastUsed)})
		}
		out.HTTPS.Bytes, out.HTTPS.Snapshots, out.HTTPS.Blobs, out.HTTPS.LastUsed = web.Bytes, web.Snapshots, web.Blobs, when(web.LastUsed)
		out.Vectors = vec
		return writeJSON(opts.IO.Out, out)
	}
	fmt.Fprintf(opts.IO.Out, "cache %s\n", safetext.Text(eo.CacheDir))
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "REMOTE\tSIZE\tPACKS\tOBJECTS\tLOOSE\tCOMMITS\tLAST USED")
	for _, r := range remotes {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\n", remoteName(r.URL, r.Key), formatBytes(r.Bytes), r.Packs, r.PackedObjects, r.LooseObjects, r.Commits, lastUsed(r.LastUsed))
	}
	fmt.Fprintf(tw, "https documents\t%s\t-\t%d\t-\t-\t%s\n", formatBytes(web.Bytes), web.Blobs, lastUsed(web.LastUsed))
	if err := tw.Flush(); err != nil {
		return err
	}
	total := fmt.Sprintf("total %s (git %s in %d %s)", formatBytes(gitBytes+web.Bytes), formatBytes(gitBytes), len(remotes), wording.Plural(len(remotes), "remote", "remotes"))
	if eo.CacheMax > 0 {
		total += fmt.Sprintf("; CTX_CACHE_MAX %s for git", formatBytes(eo.CacheMax))
	}
	fmt.Fprintln(opts.IO.Out, total)
	if vec != nil {
		fmt.Fprintf(opts.IO.Out, "this project's vectors %s: %d of %d chunks, model %s (%d dimensions), %s\n",
			safetext.Text(vec.Path), vec.Vectors, vec.Chunks, safetext.Text(vec.Model), vec.Dims, formatBytes(vec.Bytes))
	}
	return nil
}

func lastUsed(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// printGC prints one line per remote gc looked at, one for the https
// documents, and a total, and says whether something was skipped.
// Warnings go to stderr.
func printGC(g *globalOptions, res []gitengine.GCResult, web webfetch.GCResult, dryRun bool) (skipped bool) {
	verb, packed := "dropped", "packed"
	if dryRun {
		verb, packed = "would drop", "would pack"
	}
	var before, after int64
	arrow := g.symbols().Arrow
	for _, r := range res {
		name := remoteName(r.URL, r.Key)
		if r.Warning != "" {
			fmt.Fprintf(g.IO.ErrOut, "warning: %s: %s\n", name, g.deepText(r.Warning))
		}
		if r.Skipped != "" {
			skipped = true
			fmt.Fprintf(g.IO.Out, "%s skipped: %s\n", name, r.Skipped)
			continue
		}
		before += r.BytesBefore
		after += r.BytesAfter
		fmt.Fprintf(g.IO.Out, "%s %s %s %s: %s %d of %d %s, %s %d loose, kept %d %s\n", name,
			formatBytes(r.BytesBefore), arrow, formatBytes(r.BytesAfter), verb, r.Dropped, r.Objects, wording.Plural(r.Objects, "object", "objects"),
			packed, r.Repacked, r.Commits, wording.Plural(r.Commits, "commit", "commits"))
	}
	if printWebGC(g, web, dryRun) {
		skipped = true
	} else {
		before += web.BytesBefore
		after += web.BytesAfter
	}
	fmt.Fprintf(g.IO.Out, "total %s %s %s\n", formatBytes(before), arrow, formatBytes(after))
	return skipped
}

// printWebGC prints what gc did with the https documents, and says whether
// they were skipped.
func printWebGC(g *globalOptions, r webfetch.GCResult, dryRun bool) (skipped bool) {
	if r.Warning != "" {
		fmt.Fprintf(g.IO.ErrOut, "warning: https documents: %s\n", g.deepText(r.Warning))
	}
	if r.Skipped != "" {
		fmt.Fprintf(g.IO.Out, "https documents skipped: %s\n", r.Skipped)
		return true
	}
	if r.Snapshots == 0 && r.Blobs == 0 && r.BytesBefore == 0 {
		return false
	}
	verb := "dropped"
	if dryRun {
		verb = "would drop"
	}
	fmt.Fprintf(g.IO.Out, "https documents %s %s %s: %s %d of %d %s, %d of %d %s\n",
		formatBytes(r.BytesBefore), g.symbols().Arrow, formatBytes(r.BytesAfter), verb,
		r.DroppedSnapshots, r.Snapshots, wording.Plural(r.Snapshots, "snapshot", "snapshots"),
		r.DroppedBlobs, r.Blobs, wording.Plural(r.Blobs, "body", "bodies"))
	return false
}

// trimCache keeps the git cache within CTX_CACHE_MAX after an install or
// update (gitengine.Engine.TrimCache); what it did goes to stderr. It never
// fails the command: a cache over its limit is a warning.
func trimCache(ctx context.Context, g *globalOptions) {
	eo, err := g.Env.engineOptions()
	if err != nil || eo.CacheMax <= 0 || ctx.Err() != nil {
		return
	}
	eo.Warn = func(_, msg string) { fmt.Fprintf(g.IO.ErrOut, "warning: %s\n", g.deepText(msg)) }
	res, err := gitengine.New(eo).TrimCache(ctx)
	if err != nil {
		fmt.Fprintf(g.IO.ErrOut, "warning: the cache was not collected: %s\n", g.deepText(err.Error()))
	}
	var before, after int64
	n := 0
	for _, r := range res {
		if r.Skipped == "" {
			before, after, n = before+r.BytesBefore, after+r.BytesAfter, n+1
		}
	}
	if n > 0 {
		fmt.Fprintf(g.IO.ErrOut, "cache over CTX_CACHE_MAX: collected %d %s, %s %s %s\n", n, wording.Plural(n, "remote", "remotes"), formatBytes(before), g.symbols().Arrow, formatBytes(after))
	}
}
