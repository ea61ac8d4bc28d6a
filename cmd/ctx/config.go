package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/registry"
	"github.com/spf13/cobra"
)

// userConfig is the user's settings file (userConfigPath): what applies to
// every project of this user.
type userConfig struct {
	// Registry is the default registry of `ctx setup` (CTX_REGISTRY
	// overrides it; --registry and the manifest's registry come first).
	Registry string `json:"registry,omitempty"`
	// Embeddings is the user's embedding endpoint (embedConfig): only
	// here and in the environment, never in a project's files.
	Embeddings *embeddingsConfig `json:"embeddings,omitempty"`
}

// embeddingsConfig is the user's embedding endpoint: an OpenAI-compatible
// base URL and a model name. The key is never stored (CTX_EMBEDDINGS_KEY).
type embeddingsConfig struct {
	URL    string `json:"url,omitempty"`
	Model  string `json:"model,omitempty"`
	Hybrid string `json:"hybrid,omitempty"` // "on": search is hybrid by default
}

// setting is one key of `ctx config`.
type setting struct {
	help string
	env  string // the environment variable that overrides it
	arg  string // what the value is, for messages (LOCATION, URL)
	get  func(*userConfig) string
	set  func(*userConfig, string)
	// check turns a value given to set into what is saved.
	check func(opts *configOptions) (string, error)
}

func (c *userConfig) embeddings() *embeddingsConfig {
	if c.Embeddings == nil {
		c.Embeddings = &embeddingsConfig{}
	}
	return c.Embeddings
}

// configKeys are the settings `ctx config` knows, with what each is.
var configKeys = map[string]setting{
	"registry": {
		help: "the default registry of 'ctx setup' (a file, an https URL or a git repository)",
		env:  "CTX_REGISTRY", arg: "LOCATION",
		get:   func(c *userConfig) string { return c.Registry },
		set:   func(c *userConfig, v string) { c.Registry = v },
		check: settableRegistry,
	},
	"embeddings.url": {
		help: "the OpenAI-compatible embedding endpoint of semantic search (https, or http to this machine)",
		env:  "CTX_EMBEDDINGS_URL", arg: "URL",
		get: func(c *userConfig) string {
			if c.Embeddings == nil {
				return ""
			}
			return c.Embeddings.URL
		},
		set: func(c *userConfig, v string) { c.embeddings().URL = v },
		check: func(opts *configOptions) (string, error) {
			v := strings.TrimSpace(opts.value)
			if err := embed.CheckURL(v); err != nil {
				return "", usageErrorf("config set embeddings.url: %w", err)
			}
			return strings.TrimSuffix(v, "/"), nil
		},
	},
	"embeddings.model": {
		help: "the model the embedding endpoint is asked for (e.g. nomic-embed-text)",
		env:  "CTX_EMBEDDINGS_MODEL", arg: "NAME",
		get: func(c *userConfig) string {
			if c.Embeddings == nil {
				return ""
			}
			return c.Embeddings.Model
		},
		set: func(c *userConfig, v string) { c.embeddings().Model = v },
		check: func(opts *configOptions) (string, error) {
			v := strings.TrimSpace(opts.value)
			if v == "" || len(v) > 200 || strings.ContainsFunc(v, func(r rune) bool { return r < ' ' || r == 0x7f }) {
				return "", usageErrorf("config set embeddings.model: %s is not a model name (up to 200 characters, no control characters)", safetext.Quote(opts.value))
			}
			return v, nil
		},
	},
	"embeddings.hybrid": {
		help: "on (the default; true, yes, 1 too): with an endpoint set, search and read_relevant fuse the semantic ranking with the lexical one; off (false, no, 0): only with ctx search --hybrid",
		env:  "CTX_EMBEDDINGS_HYBRID", arg: "on|off",
		get: func(c *userConfig) string {
			if c.Embeddings == nil {
				return ""
			}
			return c.Embeddings.Hybrid
		},
		set: func(c *userConfig, v string) { c.embeddings().Hybrid = v },
		check: func(opts *configOptions) (string, error) {
			on, ok := onOff(opts.value)
			if !ok {
				return "", usageErrorf("config set embeddings.hybrid: %s: %s", safetext.Quote(opts.value), onOffWords)
			}
			if on {
				return "on", nil
			}
			return "off", nil
		},
	},
}

// onOffWords says what onOff takes, for an error.
const onOffWords = "say on or off (true/false, yes/no and 1/0 are taken too, as git takes them)"

// onOff reads a switch of the user's settings (embeddings.hybrid, in the
// config file or CTX_EMBEDDINGS_HYBRID) as git reads a boolean: on, true,
// yes, 1 or off, false, no, 0, in any case. ok is false for anything else.
func onOff(v string) (on, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "yes", "1":
		return true, true
	case "off", "false", "no", "0":
		return false, true
	}
	return false, false
}

// settingNames lists configKeys in order.
func settingNames() []string {
	return slices.Sorted(maps.Keys(configKeys))
}

// readUserConfig reads the user's config file at path; a missing file is
// the empty config. Unknown fields and bad JSON are errors at file:line.
func readUserConfig(path string) (*userConfig, error) {
	var c userConfig
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	err = jsonfile.Decode(path, data, &c, jsonfile.Options{
		Hint: fmt.Sprintf("the settings are %s; fix %s by hand, or delete it to start again", strings.Join(settingNames(), ", "), path),
	})
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// writeUserConfig writes c to path atomically, creating its folder.
func writeUserConfig(path string, c *userConfig) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return atomicfile.WriteFile(path, append(data, '\n'), 0o644)
}

type configOptions struct {
	*globalOptions
	op    string // get, set, unset or list
	key   string
	value string // set only
	json  bool   // list only: --json
}

func newConfigCmd(g *globalOptions, runF func(context.Context, *configOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Get and set your own defaults (the default registry, the embedding endpoint)",
		Long: `Config reads and writes your user settings, which apply to every project:
` + configFileHelp + `

Settings:
  registry           ` + configKeys["registry"].help + `
  embeddings.url     ` + configKeys["embeddings.url"].help + `
  embeddings.model   ` + configKeys["embeddings.model"].help + `
  embeddings.hybrid  ` + configKeys["embeddings.hybrid"].help + `

'ctx setup' takes its registry from --registry, else the project's manifest,
else CTX_REGISTRY, else this setting. So a fresh project runs 'ctx setup'
with no flags once a default is set. CTX_EMBEDDINGS_URL,
CTX_EMBEDDINGS_MODEL and CTX_EMBEDDINGS_HYBRID override the embeddings
settings; the endpoint's API key is read only from CTX_EMBEDDINGS_KEY,
never saved.

Exit status: each sub-command's; 2 for an unknown sub-command or bad flags.`,
		Example: `  ctx config set registry https://github.com/acme/ctx-hub
  ctx config set embeddings.url http://localhost:11434/v1
  ctx config set embeddings.model nomic-embed-text
  ctx config get registry
  ctx config list
  ctx config unset registry`,
		Args: noArgs,
	}
	sub := func(op, use, short, example string, args cobra.PositionalArgs) *cobra.Command {
		return &cobra.Command{
			Use:     use,
			Short:   short,
			Example: example,
			Long:    short + ".\n\n" + configExitStatus[op],
			Args:    args,
			RunE: func(c *cobra.Command, args []string) error {
				opts := &configOptions{globalOptions: g, op: op, key: args[0]}
				if len(args) > 1 {
					opts.value = args[1]
				}
				if runF != nil {
					return runF(c.Context(), opts)
				}
				return runConfig(c.Context(), opts)
			},
		}
	}
	unset := sub("unset", "unset KEY", "Remove a setting", "  ctx config unset registry", exactArgs(1, "KEY"))
	// list, as npm config list, gh config list and git config --list.
	var listJSON bool
	list := &cobra.Command{
		Use:   "list [--json]",
		Short: "Print every setting that has a value",
		Long: "Print every setting that has a value, one KEY=VALUE a line (its CTX_ environment variable counts, as for get).\n\n" +
			"--json prints an array of {key, value, from}, sorted by key: from is \"file\"\n(the config file) or the environment variable that set the value; [] when\nnothing is set.\n\n" + configExitStatus["list"],
		Example:    "  ctx config list\n  ctx config list --json",
		Args:       noArgs,
		SuggestFor: []string{"ls", "show"},
		RunE: func(c *cobra.Command, args []string) error {
			opts := &configOptions{globalOptions: g, op: "list", json: listJSON}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runConfig(c.Context(), opts)
		},
	}
	list.Flags().BoolVar(&listJSON, "json", false, "print JSON")
	unset.SuggestFor = []string{"delete", "del", "remove", "rm"} // npm config delete; commandSuggestions
	cmd.AddCommand(
		sub("get", "get KEY", "Print a setting (its CTX_ environment variable counts)",
			"  ctx config get registry\n  ctx config get embeddings.url", exactArgs(1, "KEY")),
		sub("set", "set KEY VALUE", "Save a setting",
			"  ctx config set registry https://github.com/acme/ctx-hub\n  ctx config set embeddings.hybrid true", exactArgs(2, "KEY", "VALUE")),
		unset,
		list,
	)
	return cmd
}

// configExitStatus is each config sub-command's exit-status section.
var configExitStatus = map[string]string{
	"get":   "Exit status: 0 when the setting is printed; 1 when it is not set or the\nfile cannot be read; 2 for an unknown setting or bad arguments.",
	"set":   "Exit status: 0 when saved; 2 for an unknown setting, a value that is not\none, or bad arguments; 1 when the file cannot be written.",
	"unset": "Exit status: 0 when removed (or not set); 2 for an unknown setting or bad\narguments; 1 when the file cannot be written.",
	"list":  "Exit status: 0 when printed (also when nothing is set); 1 when the file\ncannot be read; 2 for bad arguments.",
}

const configFileHelp = `the file ctx/config.json in your user config folder (on Linux
$XDG_CONFIG_HOME or ~/.config, on macOS ~/Library/Application Support, on
Windows %AppData%).`

func runConfig(ctx context.Context, opts *configOptions) error {
	if opts.op == "list" {
		return runConfigList(opts)
	}
	key, ok := configKeys[opts.key]
	if !ok {
		return usageErrorf("config %s: unknown setting %s: the settings are %s", opts.op, safetext.Quote(opts.key), strings.Join(settingNames(), ", "))
	}
	path, c, err := opts.userConfig()
	if err != nil {
		return err
	}
	switch opts.op {
	case "get":
		v, env := key.value(opts, c)
		if v == "" {
			return fmt.Errorf("%s is not set: set it with 'ctx config set %s %s' (or %s)", opts.key, opts.key, key.arg, key.env)
		}
		fmt.Fprintln(opts.IO.Out, safetext.Text(v))
		if env {
			fmt.Fprintf(opts.IO.ErrOut, "(from %s)\n", key.env)
		}
		return nil
	case "set":
		v, err := key.check(opts)
		if err != nil {
			return err
		}
		key.set(c, v)
	case "unset":
		if key.get(c) == "" {
			// Nothing written: "unset" said of a setting that was not
			// there read as if it had been (npm config delete, git
			// config --unset say nothing was there too).
			fmt.Fprintf(opts.IO.ErrOut, "%s is not set in %s: nothing to unset\n", opts.key, path)
			return nil
		}
		key.set(c, "")
	}
	if c.Embeddings != nil && *c.Embeddings == (embeddingsConfig{}) {
		c.Embeddings = nil
	}
	if err := writeUserConfig(path, c); err != nil {
		return err
	}
	if opts.op == "set" {
		fmt.Fprintf(opts.IO.ErrOut, "%s set to %s in %s\n", opts.key, safetext.Text(key.get(c)), path)
	} else {
		fmt.Fprintf(opts.IO.ErrOut, "%s unset in %s\n", opts.key, path)
	}
	return nil
}

// userConfig reads the user's config file: its path and what it holds.
func (opts *configOptions) userConfig() (string, *userConfig, error) {
	path, err := opts.Env.userConfigPath()
	if err != nil {
		return "", nil, err
	}
	c, err := readUserConfig(path)
	return path, c, err
}

// value is the setting's value as get prints it: its environment
// variable's when set (env true), else the file's (c).
func (s setting) value(opts *configOptions, c *userConfig) (v string, env bool) {
	if e := strings.TrimSpace(opts.Env.Get(s.env)); e != "" {
		return e, true
	}
	return s.get(c), false
}

// configSettingJSON is one setting of config list --json: its value as
// get prints it (exact: JSON escapes what it must) and where it comes from,
// "file" or the environment variable's name.
type configSettingJSON struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	From  string `json:"from"`
}

// runConfigList prints each setting with a value as KEY=VALUE on stdout,
// the value get prints (its environment variable first); where a value
// comes from the environment is said on stderr, as get says it.
func runConfigList(opts *configOptions) error {
	path, c, err := opts.userConfig()
	if err != nil {
		return err
	}
	n := 0
	out := []configSettingJSON{}
	for _, name := range settingNames() {
		key := configKeys[name]
		v, env := key.value(opts, c)
		if v == "" {
			continue
		}
		n++
		if opts.json {
			from := "file"
			if env {
				from = key.env
			}
			out = append(out, configSettingJSON{Key: name, Value: v, From: from})
			continue
		}
		fmt.Fprintf(opts.IO.Out, "%s=%s\n", name, safetext.Text(v))
		if env {
			fmt.Fprintf(opts.IO.ErrOut, "(%s from %s)\n", name, key.env)
		}
	}
	if opts.json {
		if err := writeJSON(opts.IO.Out, out); err != nil {
			return err
		}
	}
	if n == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "no settings in %s: the settings are %s ('ctx config set KEY VALUE')\n", path, strings.Join(settingNames(), ", "))
	}
	return nil
}

// settableRegistry checks the registry location opts.value and returns it
// as saved: a relative local path made absolute (from -C or the working
// directory: StartDir), as the setting applies in every project.
func settableRegistry(opts *configOptions) (string, error) {
	dir, err := opts.StartDir()
	if err != nil {
		return "", err
	}
	loc := registry.ResolveLocal(opts.value, dir, opts.Env.userHome())
	if _, err := registry.ParseLocation(loc); err != nil {
		return "", usageErrorf("config set registry: %w", err)
	}
	return loc, nil
}
