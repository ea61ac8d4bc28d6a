package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/forge"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type pushOptions struct {
	*globalOptions
	alias   string
	branch  string
	message string
	pr      bool
	dryRun  bool
	json    bool
	to      string // the source the user confirms (workspace.PushOptions.To)
	// forge is how --pr reaches GitHub (gh, GITHUB_TOKEN, the API's URL);
	// runPush fills it from the environment when Token and Gh are empty.
	forge forge.Options
}

func newPushCmd(g *globalOptions, runF func(context.Context, *pushOptions) error) *cobra.Command {
	opts := &pushOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "push ALIAS [--branch BRANCH] [--message MESSAGE] [--pr] [--dry-run] [--to SOURCE] [--json]",
		Example: `  ctx push api --dry-run
  ctx push api --message "Fix the auth example" --pr
  ctx push api --json`,
		Short: "Send a package's local edits upstream as a branch",
		Long: `Push sends the local edits of a git package (what ctx status lists:
modified, added and deleted files, modes) to its repository: one commit whose
parent is the locked commit, with the edits at the package's path and the
rest of the repository untouched, on a new branch (default
ctx/ALIAS-<first 7 hex of the new tree>, so pushing the same edits again
finds the branch there and pushes nothing). It uses the credentials a fetch
uses (see the README's Credentials).

After the push it prints a page to open a pull request on GitHub, GitLab and
Bitbucket. --pr opens one on GitHub: through gh when it is installed and
logged in, else through the REST API with GITHUB_TOKEN; it prints its URL,
or the URL of the branch's pull request when one is open already.

The package stays edited locally. Once the branch is merged, ctx update
ALIAS moves to the merged commit without --force: the local files are that
commit's files, so nothing is lost.

--dry-run prints the files and the branch and pushes nothing. With no local
edits, push says so and creates nothing. Dir and https packages cannot be
pushed. A branch that exists with other content is refused.

Edits go back to the source you added the package from (or its first
install's). When the manifest and the lock were pointed at another
repository together since (a pull brings both, and install follows),
push refuses and names both: check the change, then --to SOURCE (the
source they name now) pushes there, and later pushes go there too. A
--to naming another repository than the manifest's is refused.

--json prints {alias, state, source, parent, base, branch, commit, files,
compare, pullRequest}: state "pushed", "existed" (the branch holds these
edits already), "unchanged" (no local edits) or "would push" (--dry-run);
source the repository (credentials removed), parent the locked commit the
new one is made on, base the branch it is meant for ("" when unknown or unchanged),
branch and commit what was (or would be) pushed ("" when unchanged; commit
"" in a dry run), files an array of {path, change} (change modified,
added, deleted or mode; [] when unchanged), compare the page to open a
pull request on GitHub, GitLab or Bitbucket ("" for another host), and
pullRequest the URL --pr opened ("" without it). Notes and errors stay on
stderr: when --pr opens none, the JSON is printed and push exits 1.

Exit status: 0 when pushed, or nothing to push; 2 for bad arguments (an
unknown ALIAS, a dir or https package, a --branch git refuses); 1 for
other errors (no access, a refused branch); 1 too when --pr opened no pull
request (the branch is pushed and stays: the error says why and where to
open one by hand).`,
		Args: exactArgs(1, "ALIAS"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.alias = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPush(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.branch, "branch", "", "the `BRANCH` to create (default ctx/ALIAS-<hash>)")
	cmd.Flags().StringVarP(&opts.message, "message", "m", "", "the commit `MESSAGE` (default: the package and its files)")
	cmd.Flags().BoolVar(&opts.pr, "pr", false, "open a pull request on GitHub (gh, or GITHUB_TOKEN)")
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "print the files and the branch; push nothing")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the result as JSON (alias, state, source, branch, commit, files, compare, pullRequest)")
	cmd.Flags().StringVar(&opts.to, "to", "", "push to `SOURCE`, which the manifest names now, though the package was added from another")
	return cmd
}

func runPush(ctx context.Context, opts *pushOptions) error {
	if opts.branch != "" {
		// A bad --branch is a bad flag (exit 2), said before anything is
		// read, as git switch -c says it.
		if err := gitengine.CheckBranch(opts.branch); err != nil {
			return usageErrorf("push --branch: %w (see 'ctx push --help')", err)
		}
	}
	w, err := openWorkspace(opts.globalOptions, nil)
	if err != nil {
		return err
	}
	defer w.Close()
	res, err := w.Push(ctx, opts.alias, workspace.PushOptions{Branch: opts.branch, Message: opts.message, Author: gitAuthor(ctx, opts.globalOptions), DryRun: opts.dryRun, To: opts.to})
	if err != nil {
		return err
	}
	if opts.json {
		return pushJSONOut(ctx, opts, res)
	}
	out, alias := opts.IO.Out, safetext.Escape(res.Alias)
	if res.Unchanged {
		fmt.Fprintf(out, "%s: nothing to push: no local edits (nothing committed, no branch created)\n", alias)
		return nil
	}
	for _, f := range res.Files {
		fmt.Fprintf(out, "\t%s\n", changeLine(f))
	}
	branch := safetext.Escape(res.Branch)
	// Where it goes, said every time: the manifest names it, and a commit
	// may change the manifest (red18 left that open; review18a).
	dest := branch + " of " + safetext.Escape(naming.RedactURL(res.Source))
	switch {
	case opts.dryRun:
		fmt.Fprintf(out, "%s: would push %s onto %s as branch %s\n", alias, wording.Count(len(res.Files), "file", "files"), shortSHA(res.Parent), dest)
		fmt.Fprintln(opts.IO.ErrOut, "dry run: nothing was pushed")
		return nil
	case res.Existed:
		fmt.Fprintf(out, "%s: branch %s already holds these edits (%s): nothing pushed\n", alias, branch, shortSHA(res.Commit))
	default:
		fmt.Fprintf(out, "%s: pushed %s to branch %s\n", alias, shortSHA(res.Commit), dest)
	}
	repo, known := forge.Parse(res.Source)
	if known && res.Base != "" {
		fmt.Fprintf(out, "compare: %s\n", repo.CompareURL(res.Base, res.Branch))
	}
	var prErr error
	if opts.pr {
		var u string
		if u, prErr = openPR(ctx, opts, res, repo, known); prErr == nil {
			fmt.Fprintf(out, "pull request: %s\n", safetext.Escape(u))
		}
	} else if !known {
		fmt.Fprintf(opts.IO.ErrOut, "note: open a pull (merge) request for branch %s on the repository's host\n", branch)
	}
	fmt.Fprintf(opts.IO.ErrOut, "%s stays edited locally; once the branch is merged, `ctx update %s` moves to the merged commit\n", alias, alias)
	return prErr
}

// pushJSON is push --json's answer (its help says the fields).
type pushJSON struct {
	Alias       string                 `json:"alias"`
	State       string                 `json:"state"`
	Source      string                 `json:"source"`
	Parent      string                 `json:"parent"`
	Base        string                 `json:"base"`
	Branch      string                 `json:"branch"`
	Commit      string                 `json:"commit"`
	Files       []workspace.FileChange `json:"files"`
	Compare     string                 `json:"compare"`
	PullRequest string                 `json:"pullRequest"`
}

// pushJSONOut is runPush's end with --json: the notes text mode writes on
// stderr stay there, the rest is one JSON object on stdout, printed also
// when --pr opens no pull request (the branch is pushed; the error, exit
// 1, follows).
func pushJSONOut(ctx context.Context, opts *pushOptions, res *workspace.PushResult) error {
	j := pushJSON{Alias: res.Alias, Source: naming.RedactURL(res.Source), Parent: res.Parent, Base: res.Base,
		Branch: res.Branch, Commit: res.Commit, Files: res.Files}
	if j.Files == nil {
		j.Files = []workspace.FileChange{}
	}
	repo, known := forge.Parse(res.Source)
	var prErr error
	switch {
	case res.Unchanged:
		j.State, j.Branch, j.Commit = "unchanged", "", ""
	case opts.dryRun:
		j.State, j.Commit = "would push", ""
		fmt.Fprintln(opts.IO.ErrOut, "dry run: nothing was pushed")
	default:
		j.State = "pushed"
		if res.Existed {
			j.State = "existed"
		}
		if known && res.Base != "" {
			j.Compare = repo.CompareURL(res.Base, res.Branch)
		}
		alias := safetext.Escape(res.Alias)
		if opts.pr {
			j.PullRequest, prErr = openPR(ctx, opts, res, repo, known)
		} else if !known {
			fmt.Fprintf(opts.IO.ErrOut, "note: open a pull (merge) request for branch %s on the repository's host\n", safetext.Escape(res.Branch))
		}
		fmt.Fprintf(opts.IO.ErrOut, "%s stays edited locally; once the branch is merged, `ctx update %s` moves to the merged commit\n", alias, alias)
	}
	if err := writeJSON(opts.IO.Out, j); err != nil {
		return err
	}
	return prErr
}

// openPR opens the pull request push --pr asks for, of the branch res
// pushed, and returns its URL. When none can be opened (a host other than
// GitHub, the remote's default branch unknown, gh and GITHUB_TOKEN missing
// or refused), the command has not done what was asked: the error says the
// branch was pushed (it stays), why there is no pull request, and where to
// open it by hand, and push exits 1, as gh pr create does when it fails.
func openPR(ctx context.Context, opts *pushOptions, res *workspace.PushResult, repo forge.Repo, known bool) (string, error) {
	branch := safetext.Escape(res.Branch)
	byHand := fmt.Sprintf("open one for branch %s on the repository's host", branch)
	if known && res.Base != "" {
		byHand = "open it by hand: " + repo.CompareURL(res.Base, res.Branch)
	}
	var err error
	switch {
	case !known || repo.Host != forge.GitHub:
		err = errors.New("ctx opens pull requests on GitHub only")
	case res.Base == "":
		err = errors.New("the remote's default branch is unknown")
	default:
		fo := opts.forge
		if fo.Token == "" && fo.Gh == "" {
			fo = opts.Env.githubOptions()
		}
		title, body, _ := strings.Cut(prMessage(opts.message, res), "\n")
		var u string
		if u, err = forge.OpenPR(ctx, fo, forge.PR{Repo: repo, Base: res.Base, Head: res.Branch, Title: title, Body: strings.TrimSpace(body)}); err == nil {
			return u, nil
		}
	}
	return "", fmt.Errorf("branch %s is pushed, but no pull request was opened: %w; %s", branch, err, byHand)
}

// prMessage is the pull request's title and body: the commit message given,
// else one naming the package.
func prMessage(msg string, res *workspace.PushResult) string {
	if msg != "" {
		return msg
	}
	return fmt.Sprintf("Update %s (ctx push)\nLocal edits of the package %s, made on commit %s.", res.Alias, res.Alias, shortSHA(res.Parent))
}
