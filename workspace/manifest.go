package workspace

import (
	"errors"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/webdoc"
)

func (w *Workspace) loadManifest() error {
	m, err := w.proj.ReadManifest()
	if err != nil {
		return err
	}
	for _, msg := range m.Warnings {
		w.log("warning: %s", msg)
	}
	w.manifest = *m
	return nil
}

// writeManifest writes m: its committed packages to
// .context/context.config.json, and its local ones (PackageSpec.Local) to
// .context/context.local.json when it has some or the file exists (which
// .context/.gitignore is made to list first: it must never be committed).
func (w *Workspace) writeManifest(m *project.Manifest) error {
	data, err := project.MarshalManifest(m)
	if err != nil {
		return err
	}
	if err := w.fs.WriteFileAtomic(project.ManifestName, data, 0o644); err != nil {
		return err
	}
	if m.HasLocal() || exists(w.path(project.LocalName)) {
		if err := w.ignoreLocal(); err != nil {
			return err
		}
		local, err := project.MarshalLocal(m)
		if err != nil {
			return err
		}
		if err := w.fs.WriteFileAtomic(project.LocalName, local, 0o644); err != nil {
			return err
		}
	}
	w.manifest = *m
	w.manifest.Packages = append([]project.PackageSpec(nil), m.Packages...)
	return nil
}

// ignoreLocal makes sure .context/.gitignore lists context.local.json (a
// project from before it existed has a .gitignore without it, and a merge
// may bring one back), and writes the whole file (project.Gitignore) when
// it is missing: a clone of a project that committed only the manifest and
// the lock has none, nor has one whose file was deleted, and README's `git
// add .context` is safe only while it keeps out what ctx generates and the
// user's own context.local.json. A .gitignore that exists is the user's to
// keep: only the one line ctx needs is added. Called by Open under the
// project lock, so every command that changes the project brings it back,
// and by writeManifest before it writes context.local.json.
func (w *Workspace) ignoreLocal() error {
	line := "/" + project.LocalName
	// The user's file, read bounded and never waiting on a fifo (red23:
	// a fifo there hung every command that takes the project lock, search
	// included); one that is not a regular file is an error naming it.
	data, err := boundedfile.ReadFile(w.path(project.GitignoreName), project.MaxFileBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == line {
			return nil
		}
	}
	if len(data) == 0 {
		data = []byte(project.Gitignore)
	} else {
		if data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		data = append(data, line+"\n"...)
	}
	return w.fs.WriteFileAtomic(project.GitignoreName, data, 0o644)
}

// SetRegistry records the registry URL in the manifest, and, as the
// user's own choice (project.Manifest.UsersRegistry), in
// context.local.json: the wizard calls it for a registry the user named.
func (w *Workspace) SetRegistry(url string) error {
	m := w.Manifest()
	m.Registry, m.UserRegistry = url, url
	return w.writeManifest(&m)
}

// writeLock writes the lock in its canonical form, atomically.
func (w *Workspace) writeLock(l *lockfile.Lock) error {
	data, err := l.Marshal()
	if err != nil {
		return err
	}
	w.keepPrevious(data)
	return w.fs.WriteFileAtomic(project.LockName, data, 0o644)
}

// readLock reads the lock; a missing lock is an empty one.
func (w *Workspace) readLock() (*lockfile.Lock, error) {
	l, err := w.proj.ReadLock()
	if errors.Is(err, fs.ErrNotExist) {
		return &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{}}, nil
	}
	return l, err
}

// DefaultAlias is the alias Add gives a spec without one: derived from the
// last element of the sub-path, or else from the repository's name, with
// naming.AliasFrom.
func DefaultAlias(source, p string) string {
	if p = strings.Trim(path.Clean("/"+filepath.ToSlash(p)), "/"); p != "" {
		return naming.AliasFrom(path.Base(p))
	}
	if u, err := url.Parse(source); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		// An https document or archive is named for its file without the
		// extension; an index (llms.txt, index.html, the site's root) for
		// its host, without the port.
		if strings.Trim(u.Path, "/") == "" {
			return naming.AliasFrom(u.Hostname())
		}
		base := strings.ToLower(path.Base(strings.TrimRight(u.Path, "/")))
		if ext := webdoc.Ext(base); ext != "" {
			switch base = strings.TrimSuffix(base, ext); base {
			case "llms", "llms-full", "index", "readme", "":
				return naming.AliasFrom(u.Hostname())
			}
			return naming.AliasFrom(base)
		}
	}
	s := strings.TrimRight(filepath.ToSlash(source), "/")
	s = strings.TrimSuffix(s, ".git")
	if i := strings.LastIndexAny(s, "/:"); i >= 0 {
		s = s[i+1:]
	}
	return naming.AliasFrom(s)
}

// fetchURL is where a source is fetched from: a repository on this
// machine (a path, relative ones to the project root, or a file:// URL:
// naming.LocalPath) at the absolute path project.CheckSource checks.
func (w *Workspace) fetchURL(source string) string {
	if _, ok := naming.LocalPath(source); ok {
		return w.proj.SourcePath(source)
	}
	return source
}

// cleanSpec normalizes what a user typed: path without ./ or trailing /,
// "." as "".
func cleanSpec(s project.PackageSpec) project.PackageSpec {
	s.Source = strings.TrimSpace(s.Source)
	s.Ref = strings.TrimSpace(s.Ref)
	if p := strings.TrimSpace(filepath.ToSlash(s.Path)); p != "" {
		p = path.Clean(p)
		p = strings.TrimPrefix(p, "./")
		if p == "." || p == "/" {
			p = ""
		}
		s.Path = p
	}
	return s
}
