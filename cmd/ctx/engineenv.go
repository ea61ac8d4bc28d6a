package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/forge"
	"github.com/ctx-dev/ctx/internal/netguard"
	"github.com/ctx-dev/ctx/internal/netrate"
	"github.com/ctx-dev/ctx/mcpserver"
	"github.com/dustin/go-humanize"
)

// userHome is the user's home folder (HOME), refused as a dir source;
// "" when unknown.
func (e environment) userHome() string {
	home, _ := e.userHomeDir()
	return home
}

// engineOptions reads the git settings ctx takes from the environment:
//
//	CTX_NET_TIMEOUT   how long a fetch waits for the next byte from a server
//	                  before that package fails (a Go duration: 30s, 2m; 0 = no limit;
//	                  unset: gitengine.DefaultIdleTimeout); also the window of the
//	                  rate floor (internal/netrate: 1,000 bytes in each)
//	CTX_FETCH_TIMEOUT the longest a command's network operations (resolving
//	                  refs, fetching files, every network operation of the
//	                  git engine) may take together (commandContext's
//	                  budget; gitengine.Options.Total and
//	                  workspace.Options.FetchTimeout without one, as in
//	                  ctx mcp) (a Go duration up to
//	                  netrate.CeilingTotal; unset: netrate.DefaultTotal; see
//	                  fetchTimeout)
//	CTX_MAX_FILE_SIZE skip files larger than this many bytes, with a warning
//	                  (-1 = no limit; unset: gitengine.DefaultMaxFileSize)
//	CTX_CACHE         the shared object cache (default os.UserCacheDir()/ctx/git)
//	CTX_CACHE_MAX     the size the git stores of the cache keep within: after an
//	                  install or update, gc runs while they are larger (2GB,
//	                  500MB, 1.5GiB; unset: no limit)
//	CTX_GIT_TOKEN     the token sent to https remotes whose URL has no credentials,
//	                  on the hosts of CTX_GIT_TOKEN_HOSTS only
//	CTX_GIT_TOKEN_HOSTS the hosts CTX_GIT_TOKEN is for, separated by commas
//	                  (github.com,git.corp.example:8443; see gitengine.CheckTokenHost);
//	                  unset: the token goes to no host (gitengine warns once)
//	SSH_AUTH_SOCK     the ssh agent tried first for ssh remotes
//	ALL_PROXY, NO_PROXY (or all_proxy, no_proxy) the SOCKS proxy go-git's ssh
//	                  transport dials through (x/net/proxy reads them too):
//	                  gitengine's guard checks a guarded ssh remote's host
//	                  before it goes through the proxy
//	HOME              ~/.ssh holds known_hosts and the keys id_ed25519, id_rsa
//	CTX_REGISTRY      the default registry of 'ctx setup' (see defaultRegistry)
//	GITHUB_TOKEN, PATH (gh)                ctx push --pr (see githubOptions)
//	GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL      ctx push's commit author (see gitAuthor)
//	CTX_MCP_TOKEN     the bearer token of `ctx mcp --http` (see mcpToken)
//	CTX_LOCK_WAIT     how long a command that changes the project waits for
//	                  another one working in it (a Go duration; unset:
//	                  workspace.DefaultLockWait; see lockWait)
//
// It is the only place ctx reads these: the packages below cmd take them as
// options.
func (e environment) engineOptions() (gitengine.Options, error) {
	o := gitengine.Options{
		CacheDir: e.Get("CTX_CACHE"),
		Token:    e.Get("CTX_GIT_TOKEN"),
		SSHAgent: e.Get("SSH_AUTH_SOCK"),
		// As x/net/proxy reads them (the upper case first), since go-git's
		// ssh transport dials with it.
		Proxy: netguard.Proxy{All: cmp.Or(e.Get("ALL_PROXY"), e.Get("all_proxy")), No: cmp.Or(e.Get("NO_PROXY"), e.Get("no_proxy"))},
		// git credential runs in the command's environment.
		CredentialEnv: e,
	}
	for _, h := range strings.Split(e.Get("CTX_GIT_TOKEN_HOSTS"), ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if err := gitengine.CheckTokenHost(h); err != nil {
			return o, usageErrorf("CTX_GIT_TOKEN_HOSTS: %v (a list separated by commas: CTX_GIT_TOKEN_HOSTS=github.com,git.corp.example)", err)
		}
		o.TokenHosts = append(o.TokenHosts, h)
	}
	if home, err := e.userHomeDir(); err == nil {
		o.SSHDir = filepath.Join(home, ".ssh")
	}
	if o.CacheDir == "" {
		// Without a user cache directory CacheDir stays empty: only the
		// commands that fetch fail, saying to set CTX_CACHE.
		if d, err := e.userCacheDir(); err == nil {
			o.CacheDir = filepath.Join(d, "ctx", "git")
		}
	}
	if v := e.Get("CTX_MAX_FILE_SIZE"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n == 0 || n < -1 {
			return o, usageErrorf("CTX_MAX_FILE_SIZE=%q: not a size in bytes (use, say, 104857600 for 100 MB; -1 for no limit)", v)
		}
		o.MaxFileSize = n
	}
	if v := e.Get("CTX_CACHE_MAX"); v != "" {
		n, err := humanize.ParseBytes(v)
		if err != nil || n == 0 || n > math.MaxInt64 {
			return o, usageErrorf("CTX_CACHE_MAX=%q: not a size (use, say, 2GB, 500MB or 1.5GiB)", v)
		}
		o.CacheMax = int64(n)
	}
	if v := e.Get("CTX_NET_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return o, usageErrorf("CTX_NET_TIMEOUT=%q: not a duration (use, say, 30s or 2m; 0 for no limit)", v)
		}
		o.IdleTimeout = d
		if d == 0 {
			o.IdleTimeout = -1
		}
	}
	// The same bound as each network step of a package's (workspace's
	// FetchTimeout), on every network operation of the engine: push,
	// update's checks, changes, the wizard's and a git registry's.
	total, err := e.fetchTimeout()
	if err != nil {
		return o, err
	}
	o.Total = total
	return o, nil
}

// lockWait reads CTX_LOCK_WAIT: how long Open waits for the project lock
// (0 when unset: workspace.DefaultLockWait).
func (e environment) lockWait() (time.Duration, error) {
	v := e.Get("CTX_LOCK_WAIT")
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, usageErrorf("CTX_LOCK_WAIT=%q: not a positive duration (use, say, 30s or 10m)", v)
	}
	return d, nil
}

// ceilings reads CTX_CEILING_DIRECTORIES, git's GIT_CEILING_DIRECTORIES
// for ctx: absolute folders, separated as in PATH, that the search for
// the project (project.Find) does not go up into; an entry that is not
// absolute is skipped, as git does.
func (e environment) ceilings() []string {
	var dirs []string
	for _, d := range filepath.SplitList(e.Get("CTX_CEILING_DIRECTORIES")) {
		if filepath.IsAbs(d) {
			dirs = append(dirs, filepath.Clean(d))
		}
	}
	return dirs
}

// sudoUID reads SUDO_UID, the id of the user who ran ctx through sudo,
// for project.FindOptions.SudoUID (which honours it only when ctx runs
// as root); 0 when unset or not a number, as git ignores one it cannot
// read.
func (e environment) sudoUID() int {
	n, err := strconv.Atoi(e.Get("SUDO_UID"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// fetchTimeout reads CTX_FETCH_TIMEOUT: the total bound of a command's
// network time (0 when unset: netrate.DefaultTotal).
func (e environment) fetchTimeout() (time.Duration, error) {
	v := e.Get("CTX_FETCH_TIMEOUT")
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 || d > netrate.CeilingTotal {
		return 0, usageErrorf("CTX_FETCH_TIMEOUT=%q: not a positive duration up to %s (use, say, 1h; unset, a command's fetches may take %s together)", v, netrate.CeilingTotal, netrate.DefaultTotal)
	}
	return d, nil
}

// userConfigPath is the user's config file: os.UserConfigDir()/ctx/config.json.
func (e environment) userConfigPath() (string, error) {
	d, err := e.userConfigDir()
	if err != nil {
		return "", fmt.Errorf("no user config folder: %w (set HOME, or XDG_CONFIG_HOME on Linux)", err)
	}
	return filepath.Join(d, "ctx", "config.json"), nil
}

// defaultRegistry is the registry of 'ctx setup' when neither --registry
// nor the manifest names one: CTX_REGISTRY, else the user config's
// registry (ctx config set registry). from says which ("CTX_REGISTRY" or
// the config file's path); loc is "" when neither is set.
func (e environment) defaultRegistry() (loc, from string, err error) {
	if v := strings.TrimSpace(e.Get("CTX_REGISTRY")); v != "" {
		return v, "CTX_REGISTRY", nil
	}
	path, err := e.userConfigPath()
	if err != nil {
		return "", "", err
	}
	c, err := readUserConfig(path)
	if err != nil {
		return "", "", err
	}
	return c.Registry, path, nil
}

// githubOptions is how --pr reaches GitHub: gh when it is on PATH, and
// GITHUB_TOKEN for the REST API.
func (e environment) githubOptions() forge.Options {
	o := forge.Options{Token: e.Get("GITHUB_TOKEN")}
	if gh, err := e.lookPath("gh"); err == nil {
		o.Gh = gh
	}
	return o
}

// gitAuthor is the author of a pushed commit: GIT_AUTHOR_NAME and
// GIT_AUTHOR_EMAIL, else git's user.name and user.email when git is
// installed (run in g's working directory and environment), else "ctx".
func gitAuthor(ctx context.Context, g *globalOptions) gitengine.Signature {
	s := gitengine.Signature{Name: g.Env.Get("GIT_AUTHOR_NAME"), Email: g.Env.Get("GIT_AUTHOR_EMAIL"), When: time.Now()}
	config := func(key string) string {
		cmd, err := g.Env.command(ctx, g.Wd, "git", "config", "--get", key)
		if err != nil {
			return ""
		}
		out, err := cmd.Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	if s.Name == "" {
		s.Name = config("user.name")
	}
	if s.Email == "" {
		s.Email = config("user.email")
	}
	if s.Name == "" {
		s.Name = "ctx"
	}
	if s.Email == "" {
		s.Email = "ctx@localhost"
	}
	return s
}

// mcpToken is the bearer token of `ctx mcp --http`: CTX_MCP_TOKEN when it
// is set and not empty, else the one in the user's config folder (ctx/mcp-token, created
// on first use, mode 0600). from says which, for messages; path is the
// file's path ("" when the folder is unknown).
func (e environment) mcpToken() (tok, from, path string, err error) {
	path, perr := e.mcpTokenPath()
	if v := e.Get("CTX_MCP_TOKEN"); v != "" {
		if err := mcpserver.CheckToken(v, "CTX_MCP_TOKEN"); err != nil {
			return "", "", path, usageErrorf("%w", err)
		}
		return v, "CTX_MCP_TOKEN", path, nil
	}
	if perr != nil {
		return "", "", "", fmt.Errorf("%w; or set CTX_MCP_TOKEN", perr)
	}
	tok, _, err = mcpserver.LoadToken(path)
	return tok, path, path, err
}

// mcpTokenPath is the token's file: os.UserConfigDir()/ctx/mcp-token.
func (e environment) mcpTokenPath() (string, error) {
	p, err := e.userConfigPath()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(p), "mcp-token"), nil
}
