package main

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// environment is the environment a command runs in, as os.Environ lists
// it ("KEY=value", the last of a key wins). Main passes the process's; the
// tests pass their own, so that commands can run side by side in one
// process with a HOME, a cache and a config folder each. It is the one
// place cmd/ctx reads a variable from (engineenv.go says which it reads),
// and the environment of the processes ctx starts (git, gh).
type environment []string

// Lookup returns the value of key and whether it is set.
func (e environment) Lookup(key string) (string, bool) {
	for i := len(e) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// Get returns the value of key, "" when it is not set.
func (e environment) Get(key string) string {
	v, _ := e.Lookup(key)
	return v
}

// The user's folders, by os.UserHomeDir's, os.UserCacheDir's and
// os.UserConfigDir's rules, read from e rather than from the process.

// userHomeDir is os.UserHomeDir's answer in e.
func (e environment) userHomeDir() (string, error) {
	env := "HOME"
	switch runtime.GOOS {
	case "windows":
		env = "USERPROFILE"
	case "plan9":
		env = "home"
	}
	if v := e.Get(env); v != "" {
		return v, nil
	}
	return "", errors.New("$" + env + " is not defined")
}

// userCacheDir is os.UserCacheDir's answer in e.
func (e environment) userCacheDir() (string, error) {
	return e.userDir("XDG_CACHE_HOME", "LocalAppData", "/Library/Caches", "/lib/cache", "/.cache")
}

// userConfigDir is os.UserConfigDir's answer in e.
func (e environment) userConfigDir() (string, error) {
	return e.userDir("XDG_CONFIG_HOME", "AppData", "/Library/Application Support", "/lib", "/.config")
}

// userDir is the rule os.UserCacheDir and os.UserConfigDir share: the
// Windows variable win; under the home folder on macOS (darwin) and Plan
// 9 (plan9); else the XDG variable xdg when set (absolute), else the home
// folder's unix.
func (e environment) userDir(xdg, win, darwin, plan9, unix string) (string, error) {
	switch runtime.GOOS {
	case "windows":
		if d := e.Get(win); d != "" {
			return d, nil
		}
		return "", errors.New("%" + win + "% is not defined")
	case "darwin", "ios":
		return e.underHome("HOME", darwin)
	case "plan9":
		return e.underHome("home", plan9)
	}
	if d := e.Get(xdg); d != "" {
		if !filepath.IsAbs(d) {
			return "", errors.New("path in $" + xdg + " is relative")
		}
		return d, nil
	}
	if e.Get("HOME") == "" {
		return "", errors.New("neither $" + xdg + " nor $HOME are defined")
	}
	return e.underHome("HOME", unix)
}

func (e environment) underHome(home, sub string) (string, error) {
	d := e.Get(home)
	if d == "" {
		return "", errors.New("$" + home + " is not defined")
	}
	return d + sub, nil
}

// tempDir is os.TempDir's answer in e on unix (TMPDIR, else /tmp); ""
// elsewhere (os.MkdirTemp's default: the process's).
func (e environment) tempDir() string {
	switch runtime.GOOS {
	case "windows", "plan9":
		return ""
	}
	if d := e.Get("TMPDIR"); d != "" {
		return d
	}
	return "/tmp"
}

// lookPath is exec.LookPath over e's PATH: the program name finds, or an
// error. Each candidate is checked by exec.LookPath itself (a path with a
// separator is checked as it is, Windows' extensions included).
func (e environment) lookPath(name string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) || strings.Contains(name, "/") {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(e.Get("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // like exec.LookPath: no program from the working directory
		}
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// command is exec.CommandContext for a program found on e's PATH, run in
// dir with e as its environment.
func (e environment) command(ctx context.Context, dir, name string, args ...string) (*exec.Cmd, error) {
	p, err := e.lookPath(name)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, p, args...)
	cmd.Dir = dir
	cmd.Env = e
	return cmd, nil
}
