package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/mcpserver"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/registry"
	"github.com/ctx-dev/ctx/workspace"
	"github.com/spf13/cobra"
)

// registryCompletionTimeout bounds reading a registry for a completion: a
// shell waits for the answer, and a remote registry may be slow or gone.
const registryCompletionTimeout = 5 * time.Second

// projectAliases lists the aliases of the project's manifest (-C's, else
// the working directory's), for completion: nothing when there is none.
func projectAliases(g *globalOptions) []string {
	return projectAliasesOf(g, nil, nil)
}

// projectAliasesOf is projectAliases of the packages keep accepts (nil:
// all), less those already typed (cli18 finding 16: what the command can
// act on, once).
func projectAliasesOf(g *globalOptions, typed []string, keep func(project.PackageSpec) bool) []string {
	dir, err := g.ProjectDir()
	if err != nil {
		return nil
	}
	proj, err := project.At(dir)
	if err != nil {
		return nil
	}
	m, err := proj.ReadManifest()
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range m.Packages {
		if (keep == nil || keep(s)) && !slices.Contains(typed, s.Alias) {
			out = append(out, s.Alias)
		}
	}
	return out
}

// notDir is a package that is not a dir source: one update, outdated and
// changes act on (a dir source is live, never locked).
func notDir(s project.PackageSpec) bool { return s.KindOf() != project.KindDir }

// isGit is a git package: the only kind push acts on.
func isGit(s project.PackageSpec) bool { return s.KindOf() == project.KindGit }

// indexWords lists, for completion, the index's tags (tags) or the
// documents of package alias as ALIAS/PATH: nothing when there is no index
// or the alias is not in it. It never refreshes the index.
func indexWords(g *globalOptions, tags bool, alias string) []string {
	r, _, err := openIndexReader(g)
	if err != nil {
		return nil
	}
	defer r.Close()
	var out []string
	if tags {
		tc, err := r.Tags(context.Background(), nil)
		if err != nil {
			return nil
		}
		for _, t := range tc {
			out = append(out, t.Tag)
		}
		return out
	}
	docs, err := r.Documents(alias)
	if err != nil {
		return nil
	}
	for _, d := range docs {
		out = append(out, d.Package+"/"+d.Path)
	}
	return out
}

// registryWords lists what setup's --select (names) or --tags (tags, when
// tags) can take: the contexts of the registry setup would read (the
// command line's --registry, else the manifest's, else the user's default),
// loaded within registryCompletionTimeout, quietly. Nothing when there is
// no registry or it cannot be read.
func registryWords(g *globalOptions, c *cobra.Command, tags bool) []string {
	flag, _ := c.Flags().GetString("registry")
	dir, err := g.ProjectDir()
	if err != nil {
		return nil
	}
	if flag, err = g.typedPath(flag); err != nil { // as setup reads it
		return nil
	}
	var manifest string
	users := false
	if proj, err := project.At(dir); err == nil {
		if m, err := proj.ReadManifest(); err == nil {
			manifest, users = m.Registry, m.UsersRegistry()
		}
	}
	location, _, err := registryLocation(g.Env, flag, manifest)
	if err != nil || location == "" {
		return nil
	}
	eo, err := g.Env.engineOptions()
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), registryCompletionTimeout)
	defer cancel()
	wo := workspace.Options{Log: io.Discard, EngineOptions: eo, Getenv: g.Env.Lookup, Home: g.Env.userHome(), Context: ctx}
	loader := &registry.Loader{Git: workspace.NewEngine(wo)}
	if flag == "" && manifest != "" && !users {
		confineRegistry(loader, workspace.NewEngine(wo), dir)
	}
	reg, err := loader.Load(ctx, registry.ResolveLocal(location, dir, g.Env.userHome()))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range reg.Contexts {
		if !tags {
			out = append(out, e.Name)
			continue
		}
		for _, t := range e.Tags {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// listWords completes one item of a comma-separated list flag: the words
// not yet in the list, each after what was typed up to its last comma.
func listWords(words []string, toComplete string) []string {
	prefix, chosen := "", []string(nil)
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		prefix = toComplete[:i+1]
		chosen = strings.Split(toComplete[:i], ",")
	}
	var out []string
	for _, w := range words {
		if !slices.Contains(chosen, w) {
			out = append(out, prefix+w)
		}
	}
	return out
}

// addCompletions makes the shell completion (ctx completion) offer what
// each argument and flag takes: package aliases, --client and --kind
// values, config keys, the index's tags and documents, and setup's
// registry context names and tags. It is set on the commands of root by path.
func addCompletions(root *cobra.Command, g *globalOptions) {
	none := cobra.ShellCompDirectiveNoFileComp
	aliases := func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return projectAliases(g), none
	}
	// aliasArgs completes the ALIAS arguments of a command that acts on
	// the packages keep accepts, each once.
	aliasArgs := func(keep func(project.PackageSpec) bool) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return projectAliasesOf(g, args, keep), none
		}
	}
	// unallowed completes --allow-outside: the packages that need an
	// allowance not given yet (workspace.Unallowed), each once.
	unallowed := func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		dir, err := g.ProjectDir()
		if err != nil {
			return nil, none
		}
		proj, err := project.At(dir)
		if err != nil {
			return nil, none
		}
		proj = proj.WithHome(g.Env.userHome())
		m, err := proj.ReadManifest()
		if err != nil {
			return nil, none
		}
		typed, _ := c.Flags().GetStringSlice("allow-outside")
		var out []string
		for _, a := range workspace.Unallowed(proj, m) {
			if !slices.Contains(typed, a) {
				out = append(out, a)
			}
		}
		return listWords(out, toComplete), none
	}
	gitAlias := func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, none
		}
		return projectAliasesOf(g, nil, isGit), none
	}
	document := func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, none
		}
		if alias, _, ok := strings.Cut(toComplete, "/"); ok {
			return indexWords(g, false, alias), none
		}
		var out []string
		for _, a := range projectAliases(g) {
			out = append(out, a+"/")
		}
		return out, none | cobra.ShellCompDirectiveNoSpace
	}
	tags := func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return listWords(indexWords(g, true, ""), toComplete), none
	}
	// search's flags after the first query word are arguments to cobra
	// (queryArgs parses them): a word after --package, --tag or --kind,
	// or after "--package=" in the same word, is completed as the flag's
	// value, any other (and any after "--") as query (nothing). cobra drops such a flag's name
	// from args, so the word before the one completed is read from the
	// command line as given. A short flag there (-p, -t) is query syntax
	// (NOT p), as queryArgs reads it, so nothing is offered after it: an
	// alias completed there would be searched as a word. For
	// "--package=VALUE" the values are offered bare, as cobra does for a
	// flag before the query: bash and zsh put the "--package=" back.
	query := func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		raw := g.args
		if len(args) == 0 || len(raw) < 2 || slices.Contains(raw[:len(raw)-1], "--") {
			return nil, none // after "--" every word is query
		}
		// cobra hands over the value alone for "--package=VALUE".
		flag, last := raw[len(raw)-2], raw[len(raw)-1]
		if name, v, ok := strings.Cut(last, "="); ok && strings.HasPrefix(name, "--") && v == toComplete {
			flag = name
		} else if last != toComplete {
			return nil, none
		}
		switch flag {
		case "--package":
			return listWords(projectAliases(g), toComplete), none
		case "--tag":
			return tags(c, args, toComplete)
		case "--kind":
			return listWords(project.Kinds, toComplete), none
		}
		return nil, none
	}
	values := func(vs ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) { return vs, none }
	}
	configKey := func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, none
		}
		return settingNames(), none
	}
	fromRegistry := func(tags bool) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return listWords(registryWords(g, c, tags), toComplete), none
		}
	}
	eachCommand(root, func(c *cobra.Command) {
		flag := func(name string, fn func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)) {
			if c.Flags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, fn)
			}
		}
		switch c.CommandPath() {
		case "ctx update", "ctx outdated", "ctx changes":
			c.ValidArgsFunction = aliasArgs(notDir)
		case "ctx remove":
			c.ValidArgsFunction = aliasArgs(nil)
		case "ctx push":
			c.ValidArgsFunction = gitAlias
		case "ctx links":
			c.ValidArgsFunction = document
			flag("package", aliases)
		case "ctx install":
			flag("allow-outside", unallowed)
		case "ctx search", "ctx find":
			flag("package", aliases)
			flag("kind", values(project.Kinds...))
			flag("tag", tags)
			if c.CommandPath() == "ctx search" {
				c.ValidArgsFunction = query
			}
		case "ctx add":
			flag("kind", values(project.Kinds...))
		case "ctx mcp config":
			flag("client", values(mcpserver.Clients...))
		case "ctx setup":
			flag("select", fromRegistry(false))
			flag("tags", fromRegistry(true))
		case "ctx config get", "ctx config set", "ctx config unset":
			c.ValidArgsFunction = configKey
		}
	})
}

// eachCommand calls fn on c and every command below it.
func eachCommand(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		eachCommand(sub, fn)
	}
}
