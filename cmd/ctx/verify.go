package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

type verifyOptions struct {
	*globalOptions
	json bool
}

func newVerifyCmd(g *globalOptions, runF func(context.Context, *verifyOptions) error) *cobra.Command {
	opts := &verifyOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "verify [--json]",
		Example: `  ctx verify
  ctx verify --json`,
		Short: "Check installed files against the lockfile's hashes",
		Long: `Verify hashes the installed files of every locked package (git or https;
dir sources are not locked) and compares the result with the content hash
(h1:) in context.lock. One line per package:

  ALIAS ok h1:…
  ALIAS mismatch: lock h1:…, disk h1:…
  ALIAS behind the lock: installed SHA, locked SHA (the files are another
        commit's, not edited: ctx install moves them)
  ALIAS mismatch: lock h1:…, disk h1:… (the files as installed at the
      locked revision: the lock's hash is not theirs; ctx update ALIAS)
  ALIAS mode changed: PATH… (a file's mode is not the one installed)
  ALIAS not installed

Exit status: 0 when every package matches; 1 when any does not (use it in
CI); 2 for bad arguments.

--json prints an array of {alias, want, got, ok, modes, installedCommit,
lockedCommit, lockHash} (installedCommit and lockedCommit for a package
behind the lock).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runVerify(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

func runVerify(ctx context.Context, opts *verifyOptions) error {
	w, err := openWorkspaceReadOnly(opts.globalOptions)
	if err != nil {
		return err
	}
	defer w.Close()
	res, err := w.Verify()
	if err != nil {
		return err
	}
	if res == nil {
		res = []workspace.VerifyResult{}
	}
	bad, install := 0, 0 // install: fixed by a plain ctx install (behind the lock, not installed)
	for _, r := range res {
		if !r.OK {
			bad++
			if r.Got == "" || r.InstalledCommit != "" {
				install++
			}
		}
	}
	if opts.json {
		if err := writeJSON(opts.IO.Out, res); err != nil {
			return err
		}
	} else if len(res) == 0 {
		if m := w.Manifest(); len(m.Packages) == 0 {
			fmt.Fprintln(opts.IO.ErrOut, noPackagesYet)
		} else {
			fmt.Fprintln(opts.IO.ErrOut, "nothing to verify: dir sources are live (indexed in place, not locked)")
		}
	} else {
		for _, r := range res {
			r.Alias = safetext.Escape(r.Alias)
			switch {
			case r.OK:
				fmt.Fprintf(opts.IO.Out, "%s ok %s\n", r.Alias, r.Got)
			case r.Got == "":
				fmt.Fprintf(opts.IO.Out, "%s not installed\n", r.Alias)
			case r.InstalledCommit != "":
				fmt.Fprintf(opts.IO.Out, "%s behind the lock: installed %s, locked %s\n", r.Alias, shortSHA(r.InstalledCommit), shortSHA(r.LockedCommit))
			case r.Got == r.Want:
				fmt.Fprintf(opts.IO.Out, "%s mode changed: %s\n", r.Alias, strings.Join(r.Modes, ", "))
			case r.LockHash:
				fmt.Fprintf(opts.IO.Out, "%s mismatch: lock %s, disk %s (the files as installed at the locked revision: the lock's hash is not theirs)\n", r.Alias, r.Want, r.Got)
			default:
				fmt.Fprintf(opts.IO.Out, "%s mismatch: lock %s, disk %s\n", r.Alias, r.Want, r.Got)
			}
		}
	}
	if bad > 0 {
		if err := lockHashAdvice(res, bad); err != nil {
			return &exitError{code: ExitError, err: err}
		}
		// Two causes, two ways out: files of another commit (or none)
		// want a plain install; files that differ from what ctx installed
		// are edits, which install keeps unless --force.
		var why []string
		if install > 0 {
			why = append(why, fmt.Sprintf("%s not at the locked commit (behind the lock, or not installed): run ctx install", wording.Count(install, "package", "packages")))
		}
		if n := bad - install; n > 0 {
			why = append(why, fmt.Sprintf("%s with files that differ from what ctx installed: see ctx status for local edits; ctx install --force restores the locked files (backing up the edits)", wording.Count(n, "package", "packages")))
		}
		return &exitError{code: ExitError, err: fmt.Errorf(
			"%d of %d packages do not match the lock: %s", bad, len(res), strings.Join(why, "; "))}
	}
	return nil
}

// lockHashAdvice is verify's advice when every package that does not
// match has its files as installed at the locked revision and the lock
// names another hash (VerifyResult.LockHash): the lock is what differs,
// so status (no local edits) and install --force (unchanged files) would
// change nothing. nil otherwise.
func lockHashAdvice(res []workspace.VerifyResult, bad int) error {
	var aliases []string
	for _, r := range res {
		if !r.OK {
			if !r.LockHash {
				return nil
			}
			aliases = append(aliases, safetext.Escape(r.Alias))
		}
	}
	return fmt.Errorf("%d of %d packages do not match the lock: their files are as installed at the locked revision, but the lock's hash is not theirs (the lock was edited, or the source changed under the same revision): restore the lock from git, or run `ctx update %s` to lock what the source has",
		bad, len(res), strings.Join(aliases, " "))
}
