// Package demo holds ctx's built-in demo hub: a registry and three small
// repositories of engineering docs, embedded in the binary. Write turns them
// into real git repositories (with go-git, so no git binary is needed) that
// `ctx demo` then installs through the same code path as `ctx setup`.
package demo

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

//go:embed all:hub
var hubFS embed.FS

// RegistryName is the registry file's name inside Hub.Dir.
const RegistryName = "ctx-registry.json"

// SearchQuery is what the demo searches for once the docs are installed.
const SearchQuery = "roll back a bad deploy"

// commitTime is the author and committer date of every demo commit, so the
// demo's commit ids are the same on every machine.
func commitTime() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// Hub is a demo hub written to disk.
type Hub struct {
	Dir      string            // DIR/hub
	Registry string            // DIR/hub/ctx-registry.json
	Repos    map[string]string // repository name -> its folder
	Commits  map[string]string // repository name -> commit id of main
}

// Write writes the hub into dir/hub: the registry file and one git
// repository (branch main, one commit) per repository of the hub. dir/hub
// must not exist yet.
func Write(dir string) (*Hub, error) {
	h := &Hub{Dir: filepath.Join(dir, "hub"), Repos: map[string]string{}, Commits: map[string]string{}}
	h.Registry = filepath.Join(h.Dir, RegistryName)
	if _, err := os.Lstat(h.Dir); err == nil {
		return nil, fmt.Errorf("demo hub: %s already exists: choose an empty --dir", h.Dir)
	}
	if err := os.MkdirAll(h.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("demo hub: %w", err)
	}
	reg, err := hubFS.ReadFile("hub/" + RegistryName)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(h.Registry, reg, 0o644); err != nil {
		return nil, fmt.Errorf("demo hub: %w", err)
	}
	entries, err := fs.ReadDir(hubFS, "hub/repos")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		repoDir := filepath.Join(h.Dir, "repos", name)
		commit, err := writeRepo(path.Join("hub/repos", name), repoDir)
		if err != nil {
			return nil, fmt.Errorf("demo repository %s: %w", name, err)
		}
		h.Repos[name] = repoDir
		h.Commits[name] = commit
	}
	return h, nil
}

// writeRepo copies the embedded folder src to dest and commits it there.
func writeRepo(src, dest string) (string, error) {
	var files []string
	err := fs.WalkDir(hubFS, src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := p[len(src)+1:]
		data, err := hubFS.ReadFile(p)
		if err != nil {
			return err
		}
		full := filepath.Join(dest, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		files = append(files, rel)
		return os.WriteFile(full, data, 0o644)
	})
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "", errors.New("no files")
	}
	sort.Strings(files)
	repo, err := git.PlainInitWithOptions(dest, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		return "", err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return "", err
	}
	for _, f := range files {
		if _, err := wt.Add(f); err != nil {
			return "", fmt.Errorf("add %s: %w", f, err)
		}
	}
	sig := &object.Signature{Name: "Acme Docs Bot", Email: "docs@acme.example", When: commitTime()}
	hash, err := wt.Commit("Publish the docs", &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		return "", err
	}
	return hash.String(), nil
}
