package main

import (
	"strings"

	"github.com/ctx-dev/ctx/mcpserver"
	"github.com/ctx-dev/ctx/project"
	"github.com/spf13/cobra"
)

// projectAliases lists the aliases of the project's manifest (-C's, else
// the working directory's), for completion: nothing when there is none.
func projectAliases(g *globalOptions) []string {
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
		out = append(out, s.Alias)
	}
	return out
}

// addCompletions makes the shell completion (ctx completion) offer what
// each argument and flag takes: package aliases, --client and --kind
// values, config keys. It is set on the commands of root by path.
func addCompletions(root *cobra.Command, g *globalOptions) {
	none := cobra.ShellCompDirectiveNoFileComp
	aliases := func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return projectAliases(g), none
	}
	firstAlias := func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, none
		}
		return projectAliases(g), none
	}
	document := func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 || strings.Contains(toComplete, "/") {
			return nil, none
		}
		var out []string
		for _, a := range projectAliases(g) {
			out = append(out, a+"/")
		}
		return out, none | cobra.ShellCompDirectiveNoSpace
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
	eachCommand(root, func(c *cobra.Command) {
		flag := func(name string, fn func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)) {
			if c.Flags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, fn)
			}
		}
		switch c.CommandPath() {
		case "ctx update", "ctx outdated", "ctx remove":
			c.ValidArgsFunction = aliases
		case "ctx push":
			c.ValidArgsFunction = firstAlias
		case "ctx links":
			c.ValidArgsFunction = document
			flag("package", aliases)
		case "ctx install":
			flag("allow-outside", aliases)
		case "ctx search", "ctx find":
			flag("package", aliases)
			flag("kind", values(project.Kinds...))
		case "ctx add":
			flag("kind", values(project.Kinds...))
		case "ctx mcp config":
			flag("client", values(mcpserver.Clients...))
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
