package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"

	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type addOptions struct {
	*globalOptions
	source string
	path   string
	alias  string
	ref    string
	kind   string
	force  bool
	dryRun bool
	json   bool
	// https sources
	allowPrivate bool
	ttl          string
	tokenEnv     string
}

func newAddCmd(g *globalOptions, runF func(context.Context, *addOptions) error) *cobra.Command {
	opts := &addOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:        "add SOURCE [--kind git|dir|https] [--path PATH] [--alias ALIAS] [--ref REF] [--force] [--dry-run] [--json]",
		SuggestFor: []string{"get"}, // go get; commandSuggestions
		Short:      "Add a context package: a git repository, a local file or folder, or https documents",
		Long: `Add records a package in the manifest. A git or https package is fetched
into .context/packages/ALIAS/ and pinned in the lock; a dir package (a local
file or folder) is indexed and served in place, never copied or locked.

SOURCE is one of (a relative path is taken from where you stand, the
working directory or -C DIR, and kept relative to the project's root):
  a git URL (https://, ssh://, git@host:repo, file://) or the path of a
  local repository                                   kind git
  the path of any other local file or folder         kind dir
  an http(s) URL of a document, an llms.txt or a .tar.gz/.zip archive
                                                     kind https
The kind is inferred: a URL ending in .git, a github.com, gitlab.com or
bitbucket.org /owner/repo, or a server that answers git's protocol is git;
a URL ending in .md, .txt, .html, llms.txt, .tar.gz, .tgz or .zip, or a
server that does not speak git, is https. --kind forces it.

--path picks a folder inside the repository or archive (default: all of
it). --ref is a branch, a tag or a commit of a git source (default: the
remote's default branch). The alias defaults from the path or the source's
name; an alias already in the manifest is refused. A dir source outside
the project is your own: it is kept in .context/context.local.json
(git-ignored, never committed), not in the committed manifest, so a clone
never names one. A filesystem root or your home folder is refused, and so
is a file or folder of the project that is a symbolic link to outside it.

--dry-run checks SOURCE and resolves its ref as add does, prints what it
would add (ALIAS would install SHA, or ALIAS would link) and changes
nothing in the project: it writes no manifest, lock, package or index. A
git source's files are not fetched (its ref is asked of the remote, so
--path is not checked: the dry run says so); an
https source is downloaded, its content id being the hash of what the
server sends, and kept in the shared cache as outdated keeps it.

Exit status: 0 when added; 2 for bad arguments, among them what you typed
that is not there (SOURCE, its --ref or --path, an alias already used);
3 when the repository could not be read (not found or no access, the
network: nothing is added), as install and update report it; 1 for other
errors.`,
		Example: `  ctx add https://github.com/acme/handbook --path docs/api --alias api
  ctx add ../handbook --ref v1.2.0
  ctx add ./docs --alias project-docs
  ctx add ./AGENTS.md
  ctx add ~/notes
  ctx add ../handbook --dry-run   # the alias, kind and commit it would add; changes nothing`,
		Args: exactArgs(1, "SOURCE (a git URL, a local file, folder or repository, or an http(s) URL)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.source = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runAdd(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.kind, "kind", "", "the source's kind `KIND`: git, dir or https (default: inferred from SOURCE)")
	cmd.Flags().StringVar(&opts.path, "path", "", "the folder `PATH` inside the repository or archive (default: all of it)")
	cmd.Flags().StringVar(&opts.alias, "alias", "", "the package's name `ALIAS` in this project (default: from the path or repository)")
	cmd.Flags().StringVar(&opts.ref, "ref", "", "branch, tag or commit `REF` (default: the remote's default branch)")
	cmd.Flags().BoolVar(&opts.force, "force", false, "replace an existing packages/ALIAS folder, backing up its files first")
	quietFlag(cmd, g)
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "print what would be added; change nothing")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the result as JSON (alias, kind, ref, state, commits, errors)")
	cmd.Flags().BoolVar(&opts.allowPrivate, "allow-private-network", false, "https: allow loopback, private and link-local addresses (saved as allowPrivateNetwork)")
	cmd.Flags().StringVar(&opts.ttl, "ttl", "", "https: how long fetched content is trusted before update re-checks it, a `DURATION` such as 12h or 7d (default 7d)")
	cmd.Flags().StringVar(&opts.tokenEnv, "token-env", "", "https: send the environment variable `NAME`'s value as a bearer token (the name is saved, never the token)")
	return cmd
}

func runAdd(ctx context.Context, opts *addOptions) error {
	if opts.source == "" {
		return usageErrorf("add: SOURCE is empty (see 'ctx add --help')")
	}
	if opts.kind != "" {
		k, err := project.ParseKind(opts.kind)
		if err != nil {
			return usageErrorf("add: --kind %w (see 'ctx add --help')", err)
		}
		opts.kind = k
	}
	p := newProgress(opts.globalOptions)
	if opts.dryRun {
		p = nil // nothing is fetched
	}
	w, err := openWorkspaceFor(opts.globalOptions, p, opts.dryRun)
	if err != nil {
		return err
	}
	defer w.Close()
	// An https document's URL (llms.txt@v2) has no ref to give: it is
	// fetched as typed.
	if base, ref, ok := refSuffix(opts.start, opts.source); ok && opts.ref == "" && (opts.kind == "" && !workspace.DocumentURL(base) || opts.kind == project.KindGit) {
		return usageErrorf("add: %s: ctx takes the ref as a flag, not after @: ctx add %s --ref %s (with your other flags)",
			safetext.Quote(opts.source), safetext.ShellJoin([]string{base}), safetext.ShellJoin([]string{ref}))
	}
	source, err := opts.typedPath(opts.source) // from where the user stands, kept relative to the root
	if err != nil {
		return err
	}
	spec := project.PackageSpec{Alias: opts.alias, Kind: opts.kind, Source: source, Path: opts.path, Ref: opts.ref,
		AllowPrivateNetwork: opts.allowPrivate, TTL: opts.ttl, TokenEnv: opts.tokenEnv}
	rep, err := w.Add(ctx, []project.PackageSpec{spec}, workspace.AddOptions{Force: opts.force, DryRun: opts.dryRun})
	var missing *workspace.MissingSourceError
	if errors.As(err, &missing) && missing.Source == source && opts.start != "" {
		// The path as typed, and the folder it was typed in (typedPath).
		missing.Source, missing.From = opts.source, opts.start
	}
	var notRepo *workspace.NotRepositoryError
	if errors.As(err, &notRepo) && notRepo.Source == source {
		notRepo.Source = opts.source // the repository it names is then as typed too
	}
	if p != nil {
		p.DoneWith(rep)
	}
	err = finishReport(ctx, opts.globalOptions, w.Root(), rep, err, reportOptions{dryRun: opts.dryRun, json: opts.json})
	if opts.dryRun && opts.path != "" && rep != nil && len(rep.Packages) == 1 && rep.Packages[0].Kind == project.KindGit && rep.Packages[0].Action == workspace.Installed {
		// A dry run asks the remote for its refs only: the tree that
		// would show whether PATH is there is not fetched.
		fmt.Fprintf(opts.notes(), "%s: --path %s not checked: a dry run fetches no files (the add itself fails if the commit has no such path)\n",
			safetext.Escape(rep.Packages[0].Alias), safetext.Quote(opts.path))
	}
	if typo(rep, err) {
		return &exitError{code: ExitUsage} // said on stderr, as any failed package
	}
	return err
}

// typo reports whether add's one package failed (err the partial exit)
// because the --ref or --path the user typed is not in the repository: a
// bad argument (exit 2), not a failure to fetch (exit 3, as install and
// update report a repository they cannot read).
func typo(rep *workspace.Report, err error) bool {
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != ExitPartial || rep == nil || len(rep.Packages) != 1 {
		return false
	}
	p := rep.Packages[0]
	k := gitengine.KindOf(p.Err)
	return p.Action == workspace.Failed && (k == gitengine.KindRefNotFound || k == gitengine.KindPathNotFound)
}

// refSuffix splits a SOURCE@REF as go get, npm and cargo write a version
// (../handbook@v1.2, https://github.com/acme/handbook@main) into the
// source and the ref, when that is what it is: REF has no '/' or ':'
// (git@host:path and https://user@host/path are sources), a URL has a
// path before the '@' and no query or fragment after it, and a local SOURCE@REF does not exist while SOURCE
// does (a folder may be called a@b). root is what a relative path is
// relative to (the start folder: where the user typed it).
func refSuffix(root, source string) (base, ref string, ok bool) {
	i := strings.LastIndex(source, "@")
	if i <= 0 || i == len(source)-1 || naming.IsSCPLike(source) {
		return "", "", false
	}
	base, ref = source[:i], source[i+1:]
	if strings.ContainsAny(ref, "/:\\") || strings.HasSuffix(base, "/") {
		return "", "", false
	}
	if naming.HasScheme(source) {
		// The '@' of a ref ends the path: one in the query or the
		// fragment (?from=me@example) is part of the URL.
		if whole, err := url.Parse(source); err != nil || whole.RawQuery != "" || whole.ForceQuery || whole.Fragment != "" {
			return "", "", false
		}
		u, err := url.Parse(base)
		if err != nil || u.User != nil || strings.Trim(u.Path, "/") == "" {
			return "", "", false
		}
		if u.Scheme != "file" {
			return base, ref, true
		}
		local := filepath.FromSlash(u.Path)
		return base, ref, !exists(local+"@"+ref) && exists(local)
	}
	at := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(root, p)
	}
	return base, ref, !exists(at(source)) && exists(at(base))
}

// exists says whether something is at p.
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
