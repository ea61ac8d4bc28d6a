package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/registry"
	"github.com/spf13/cobra"
)

// userConfig is the user's settings file (userConfigPath): what applies to
// every project of this user.
type userConfig struct {
	// Registry is the default registry of `ctx setup` (CTX_REGISTRY
	// overrides it; --registry and the manifest's registry come first).
	Registry string `json:"registry,omitempty"`
}

// configKeys are the settings `ctx config` knows, with what each is.
var configKeys = map[string]string{
	"registry": "the default registry of 'ctx setup' (a file, an https URL or a git repository)",
}

// settingNames lists configKeys in order.
func settingNames() []string {
	keys := make([]string, 0, len(configKeys))
	for k := range configKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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
	return lockfile.WriteFileAtomic(path, append(data, '\n'), 0o644)
}

type configOptions struct {
	*globalOptions
	op    string // get, set or unset
	key   string
	value string // set only
}

func newConfigCmd(g *globalOptions, runF func(context.Context, *configOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Get and set your own defaults (the default registry)",
		Long: `Config reads and writes your user settings, which apply to every project:
` + configFileHelp + `

Settings:
  registry   ` + configKeys["registry"] + `

'ctx setup' takes its registry from --registry, else the project's manifest,
else CTX_REGISTRY, else this setting. So a fresh project runs 'ctx setup'
with no flags once a default is set.

Exit status: each sub-command's; 2 for an unknown sub-command or bad flags.`,
		Example: `  ctx config set registry https://github.com/acme/ctx-hub
  ctx config get registry
  ctx config unset registry`,
		Args: noArgs,
	}
	sub := func(op, use, short string, args cobra.PositionalArgs) *cobra.Command {
		return &cobra.Command{
			Use:   use,
			Short: short,
			Long:  short + ".\n\n" + configExitStatus[op],
			Args:  args,
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
	cmd.AddCommand(
		sub("get", "get KEY", "Print a setting (CTX_REGISTRY counts for registry)", exactArgs(1, "KEY")),
		sub("set", "set KEY VALUE", "Save a setting", exactArgs(2, "KEY and VALUE")),
		sub("unset", "unset KEY", "Remove a setting", exactArgs(1, "KEY")),
	)
	return cmd
}

// configExitStatus is each config sub-command's exit-status section.
var configExitStatus = map[string]string{
	"get":   "Exit status: 0 when the setting is printed; 1 when it is not set or the\nfile cannot be read; 2 for an unknown setting or bad arguments.",
	"set":   "Exit status: 0 when saved; 2 for an unknown setting, a value that is not\none, or bad arguments; 1 when the file cannot be written.",
	"unset": "Exit status: 0 when removed (or not set); 2 for an unknown setting or bad\narguments; 1 when the file cannot be written.",
}

const configFileHelp = `the file ctx/config.json in your user config folder (on Linux
$XDG_CONFIG_HOME or ~/.config, on macOS ~/Library/Application Support, on
Windows %AppData%).`

func runConfig(ctx context.Context, opts *configOptions) error {
	if _, ok := configKeys[opts.key]; !ok {
		return usageErrorf("config %s: unknown setting %s: the settings are %s", opts.op, safetext.Quote(opts.key), strings.Join(settingNames(), ", "))
	}
	path, err := userConfigPath()
	if err != nil {
		return err
	}
	c, err := readUserConfig(path)
	if err != nil {
		return err
	}
	switch opts.op {
	case "get":
		loc, from, err := defaultRegistry()
		if err != nil {
			return err
		}
		if loc == "" {
			return errors.New("registry is not set: set it with 'ctx config set registry LOCATION' (or CTX_REGISTRY)")
		}
		fmt.Fprintln(opts.IO.Out, safetext.Text(loc))
		if from != path {
			fmt.Fprintf(opts.IO.ErrOut, "(from %s)\n", from)
		}
		return nil
	case "set":
		loc, err := settableRegistry(opts)
		if err != nil {
			return err
		}
		c.Registry = loc
	case "unset":
		c.Registry = ""
	}
	if err := writeUserConfig(path, c); err != nil {
		return err
	}
	if opts.op == "set" {
		fmt.Fprintf(opts.IO.ErrOut, "registry set to %s in %s\n", safetext.Text(c.Registry), path)
	} else {
		fmt.Fprintf(opts.IO.ErrOut, "registry unset in %s\n", path)
	}
	return nil
}

// settableRegistry checks the registry location opts.value and returns it
// as saved: a relative local path made absolute (from -C or the working
// directory), as the setting applies in every project.
func settableRegistry(opts *configOptions) (string, error) {
	dir, err := opts.ProjectDir()
	if err != nil {
		return "", err
	}
	loc := registry.ResolveLocal(opts.value, dir)
	if _, err := registry.ParseLocation(loc); err != nil {
		return "", usageErrorf("config set registry: %w", err)
	}
	return loc, nil
}
