package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/spf13/cobra"
)

// binVersion is what a binary says of itself, from the build info Go
// records (debug.ReadBuildInfo): the module version (a tag for `go install
// …@v1.2.3`, a pseudo-version, "(devel)" for a build from a checkout), and
// for a build from a checkout the VCS revision, its time and whether the
// tree had uncommitted changes.
type binVersion struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}

// versionOf reads bi (nil: no build info, as in some test binaries).
func versionOf(bi *debug.BuildInfo) binVersion {
	v := binVersion{Version: "(devel)", Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if bi == nil {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// currentVersion is this binary's binVersion, read once: the build info
// does not change while the process runs, and every command tree
// (newRootCmd, built per in-process command) asks for it.
var currentVersion = sync.OnceValue(func() binVersion {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(bi)
})

// String is the one line `ctx --version` and `ctx version` print.
func (v binVersion) String() string {
	var extra []string
	if v.Commit != "" {
		c := v.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		extra = append(extra, "commit "+c)
	}
	if v.Time != "" {
		extra = append(extra, v.Time)
	}
	if v.Modified {
		extra = append(extra, "modified")
	}
	s := "ctx " + v.Version
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s + " " + v.Go + " " + v.OS + "/" + v.Arch
}

type versionOptions struct {
	*globalOptions
	json bool
}

func newVersionCmd(g *globalOptions, runF func(context.Context, *versionOptions) error) *cobra.Command {
	opts := &versionOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use: "version [--json]",
		Example: `  ctx version
  ctx version --json`,
		Short: "Print which build of ctx this is",
		Long: `Version prints the version of ctx (the module version it was installed at,
or "(devel)" for a build from a checkout), the VCS commit and time it was
built from when known (and "modified" when the checkout had uncommitted
changes), the Go version and the platform: what a bug report should quote.
'ctx --version' prints the same line.

--json prints {version, commit, time, modified, go, os, arch}.

Exit status: 0; 2 for bad arguments.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			v := currentVersion()
			if opts.json {
				return writeJSON(opts.IO.Out, v)
			}
			_, err := fmt.Fprintln(opts.IO.Out, v.String())
			return err
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}
