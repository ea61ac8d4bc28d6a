package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
)

// Kind says how a registry is fetched.
type Kind int

const (
	KindFile Kind = iota // a local file
	KindHTTP             // an http(s) URL of the file itself
	KindGit              // a file inside a git repository
)

// Location is where a registry file is.
type Location struct {
	Kind Kind
	// URL is, for KindFile, the absolute path of the file; for KindHTTP, the
	// URL of the file; for KindGit, the repository (any git URL or a local
	// repository path).
	URL string
	// File is, for KindGit, the slash-separated path of the registry file in
	// the repository (DefaultFileName when the location named none).
	File string
	// Ref is, for KindGit, the branch, tag or commit; "" = the default branch.
	Ref string
}

// String is the location in a form ParseLocation reads back.
func (l Location) String() string {
	if l.Kind != KindGit {
		return l.URL
	}
	s := l.URL
	if l.File != DefaultFileName || l.Ref != "" {
		s += "#"
		if l.File != DefaultFileName {
			s += l.File
		}
		if l.Ref != "" {
			s += "@" + l.Ref
		}
	}
	if (naming.IsLocal(l.URL) || !looksGit(l.URL)) && !strings.Contains(s, "#") {
		s = "git+" + s
	}
	return s
}

// Key identifies a registry regardless of spelling: a git registry by its
// repository (naming.RepoKey), file and ref; an https one by its URL with
// scheme and host in lower case, no trailing slash or ".git". Two
// locations with the same Key are the same registry.
func (l Location) Key() string {
	switch l.Kind {
	case KindFile:
		return "file:" + filepath.Clean(l.URL)
	case KindHTTP:
		return "http:" + normalizeURL(l.URL)
	}
	return "git:" + repoKey(l.URL) + "#" + path.Clean(l.File) + "@" + l.Ref
}

// repoKey is a repository's identity (naming.RepoKey), a local one made
// absolute first so that two spellings of one folder compare equal.
func repoKey(repo string) string {
	if p, ok := naming.LocalPath(repo); ok {
		if abs, err := filepath.Abs(p); err == nil {
			repo = abs
		}
	}
	return naming.RepoKey(repo)
}

func normalizeURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return strings.TrimSuffix(strings.TrimSuffix(s, "/"), ".git")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	u.User = nil
	u.Fragment = ""
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), ".git")
	return u.String()
}

// ParseLocation reads where a registry is. The accepted forms are:
//
//	./ctx-registry.json, /abs/path.json    a local file
//	./hub                                  a local folder: its git repository
//	                                       when it is one, else its ctx-registry.json
//	https://host/reg.json                  the file itself, over http(s)
//	https://github.com/o/r                 a GitHub repository (its ctx-registry.json)
//	https://github.com/o/r/blob/REF/FILE   a pasted GitHub page: repo o/r, file FILE at REF
//	https://github.com/o/r/tree/REF/DIR    repo o/r, DIR/ctx-registry.json at REF
//	https://host/g/r/-/blob/REF/FILE       a pasted GitLab page (also /-/raw/, /-/tree/)
//	REPO#FILE@REF                          a file in any git repository; both
//	                                       FILE and @REF are optional ("REPO#@v2")
//	REPO@REF                               the default file at REF
//	git+URL                                URL is a git repository even if it
//	                                       does not look like one
//
// REPO is any git URL (https://…/x.git, ssh://…, git@host:o/r.git, file://…)
// or a local repository path. An http(s) URL is a git repository when it ends
// in .git, has a #fragment or is prefixed with git+.
func ParseLocation(s string) (Location, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Location{}, errors.New("empty registry location: pass a file, an https URL or a git repository")
	}
	if err := refuseCredentials(s); err != nil {
		return Location{}, err
	}
	if rest, ok := strings.CutPrefix(s, "git+"); ok {
		return parseGit(rest)
	}
	lower := strings.ToLower(s)
	switch {
	case strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://"):
		u, err := url.Parse(s)
		if err != nil {
			return Location{}, fmt.Errorf("registry location %s: %w", safetext.Quote(s), err)
		}
		if h := strings.ToLower(u.Host); h == "github.com" || h == "www.github.com" {
			if loc, ok := parseGitHubPage(u); ok {
				return loc, nil
			}
		}
		if loc, ok := parseGitLabPage(u); ok {
			return loc, nil
		}
		if u.Fragment != "" || strings.Contains(s, "#") || looksGit(s) {
			return parseGit(s)
		}
		return Location{Kind: KindHTTP, URL: s}, nil
	case strings.HasPrefix(lower, "ssh://") || strings.HasPrefix(lower, "git://") || naming.IsSCPLike(s):
		return parseGit(s)
	}
	// A local path (or file:// URL).
	p := s
	if rest, ok := strings.CutPrefix(p, "file://"); ok {
		p = rest
	}
	repoPart, frag, hasFrag := strings.Cut(p, "#")
	if hasFrag {
		return parseGit(absPath(repoPart) + "#" + frag)
	}
	abs := absPath(p)
	fi, err := os.Stat(abs)
	if err != nil {
		// REPO@REF on a local repository.
		if i := strings.LastIndex(abs, "@"); i > 0 && !strings.Contains(abs[i:], string(filepath.Separator)) {
			if fi, err2 := os.Stat(abs[:i]); err2 == nil && fi.IsDir() {
				return parseGit(abs)
			}
		}
		if errors.Is(err, fs.ErrNotExist) {
			// Said as the path typed, not the system call's "stat ABS: no
			// such file or directory".
			return Location{}, fmt.Errorf("registry %s: no such file or folder (pass a file, a folder, an https URL or a git repository)", safetext.Clip(s, 0))
		}
		return Location{}, fmt.Errorf("registry %s: %w (pass a file, a folder, an https URL or a git repository)", safetext.Clip(s, 0), safetext.ClipPathError(err))
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		// A FIFO or a device (/dev/stdin) would block or never end.
		return Location{}, fmt.Errorf("registry %s is not a regular file: pass a file, a folder, an https URL or a git repository", safetext.Clip(s, 0))
	}
	if fi.IsDir() {
		if isGitDir(abs) {
			return Location{Kind: KindGit, URL: abs, File: DefaultFileName}, nil
		}
		return Location{Kind: KindFile, URL: filepath.Join(abs, DefaultFileName)}, nil
	}
	return Location{Kind: KindFile, URL: abs}, nil
}

// refuseCredentials refuses a location URL that carries credentials: a
// password, or any user info in an http(s) URL (a token as the user name).
// A registry's location is saved in the committed manifest and in the
// user's config and printed in notes and errors, so a secret in it would
// leak; git's own credentials (a helper, CTX_GIT_TOKEN) serve a private
// hub instead. An ssh user name (ssh://git@host/…, git@host:…) is not a
// secret and stays.
func refuseCredentials(s string) error {
	raw := strings.TrimPrefix(s, "git+")
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return nil
	}
	if _, hasPass := u.User.Password(); !hasPass && u.Scheme != "http" && u.Scheme != "https" {
		return nil
	}
	return fmt.Errorf("registry location %s carries credentials, which ctx does not save in the manifest or print: use a git repository location, so your git credentials apply (a credential helper, or CTX_GIT_TOKEN with CTX_GIT_TOKEN_HOSTS naming the host), or a URL that needs none (if the manifest's \"registry\" already holds them, take them out and revoke the token: the manifest is committed)", safetext.Quote(naming.RedactURL(raw)))
}

// ResolveLocal returns location with a relative local path made relative to
// base (the project directory, so a registry saved in a manifest as
// "../hub/ctx-registry.json" means the same thing from any working
// directory), and a ~/ path joined onto home (the user's home folder, as
// the command was given it; "" = unknown: the ~/ path is returned as it
// is). URLs, scp-like addresses and absolute paths are returned as they
// are.
func ResolveLocal(location, base, home string) string {
	s := strings.TrimSpace(location)
	if rest, ok := strings.CutPrefix(s, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	if s == "" || naming.HasScheme(s) || strings.HasPrefix(s, "git+") || naming.IsSCPLike(s) ||
		filepath.IsAbs(s) || strings.HasPrefix(s, "~/") {
		return location
	}
	return filepath.Join(base, s)
}

// parseGit reads REPO[@REF][#FILE[@REF]].
func parseGit(s string) (Location, error) {
	repo, frag, _ := strings.Cut(s, "#")
	repo = strings.TrimSpace(repo)
	loc := Location{Kind: KindGit, File: DefaultFileName}
	if frag != "" {
		file, ref, hasRef := strings.Cut(frag, "@")
		file = strings.TrimSpace(file)
		if hasRef {
			loc.Ref = strings.TrimSpace(ref)
		}
		file = strings.TrimLeft(file, "/")
		if strings.TrimSpace(file) != file {
			return Location{}, fmt.Errorf("registry location %s: file %s starts with white space", safetext.Quote(s), safetext.Quote(file))
		}
		switch {
		case file == "":
		case strings.HasSuffix(file, "/"):
			loc.File = file + DefaultFileName // a folder: its registry file
		default:
			loc.File = file
		}
	}
	// REPO@REF: an @ inside the last path segment (never in user info).
	hostEnd := 0
	if i := strings.Index(repo, "://"); i >= 0 {
		hostEnd = len(repo)
		if j := strings.Index(repo[i+3:], "/"); j >= 0 {
			hostEnd = i + 3 + j
		}
	}
	segStart := hostEnd + strings.LastIndexAny(repo[hostEnd:], "/:") + 1
	if seg := repo[segStart:]; strings.Count(seg, "@") > 0 {
		if i := strings.LastIndex(seg, "@"); i > 0 && i < len(seg)-1 {
			if loc.Ref != "" {
				return Location{}, fmt.Errorf("registry location %s names two refs: use REPO#FILE@REF", safetext.Quote(s))
			}
			loc.Ref = strings.TrimSpace(seg[i+1:])
			repo = strings.TrimSpace(repo[:segStart+i])
		}
	}
	if repo == "" {
		return Location{}, fmt.Errorf("registry location %s has no repository", safetext.Quote(s))
	}
	repo = strings.TrimPrefix(repo, "file://")
	if naming.IsLocal(repo) {
		repo = cleanLocal(repo)
	}
	loc.URL = repo
	if !validSubPath(loc.File) || path.Clean(loc.File) == "." {
		return Location{}, fmt.Errorf("registry location %s: file %s must be a relative path inside the repository", safetext.Quote(s), safetext.Quote(loc.File))
	}
	if strings.ContainsAny(loc.Ref, " \t\n") {
		return Location{}, fmt.Errorf("registry location %s: ref %s contains white space", safetext.Quote(s), safetext.Quote(loc.Ref))
	}
	return loc, nil
}

// parseGitHubPage understands URLs pasted from github.com.
func parseGitHubPage(u *url.URL) (Location, bool) {
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(segs) < 2 || segs[0] == "" || segs[1] == "" {
		return Location{}, false
	}
	repo := "https://github.com/" + segs[0] + "/" + strings.TrimSuffix(segs[1], ".git") + ".git"
	loc := Location{Kind: KindGit, URL: repo, File: DefaultFileName}
	if len(segs) == 2 {
		if u.Fragment != "" {
			l, err := parseGit(repo + "#" + u.Fragment)
			return l, err == nil
		}
		return loc, true
	}
	if len(segs) < 4 {
		return Location{}, false
	}
	switch segs[2] {
	case "blob", "raw":
		if len(segs) < 5 {
			return Location{}, false
		}
		loc.Ref = segs[3]
		loc.File = strings.Join(segs[4:], "/")
	case "tree":
		loc.Ref = segs[3]
		if len(segs) > 4 {
			loc.File = strings.Join(segs[4:], "/") + "/" + DefaultFileName
		}
	default:
		return Location{}, false
	}
	if !validSubPath(loc.File) {
		return Location{}, false
	}
	return loc, true
}

// parseGitLabPage understands URLs pasted from GitLab (any host):
// https://host/group/sub/repo/-/blob/REF/FILE, /-/raw/REF/FILE, /-/tree/REF/DIR.
func parseGitLabPage(u *url.URL) (Location, bool) {
	repoPath, rest, ok := strings.Cut(u.Path, "/-/")
	if !ok || strings.Trim(repoPath, "/") == "" {
		return Location{}, false
	}
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	if len(segs) < 2 || segs[1] == "" {
		return Location{}, false
	}
	repo := *u
	repo.Path = strings.TrimSuffix(strings.TrimSuffix(repoPath, "/"), ".git") + ".git"
	repo.RawQuery, repo.Fragment, repo.RawPath = "", "", ""
	loc := Location{Kind: KindGit, URL: repo.String(), Ref: segs[1], File: DefaultFileName}
	switch segs[0] {
	case "blob", "raw":
		if len(segs) < 3 {
			return Location{}, false
		}
		loc.File = strings.Join(segs[2:], "/")
	case "tree":
		if len(segs) > 2 {
			loc.File = strings.Join(segs[2:], "/") + "/" + DefaultFileName
		}
	default:
		return Location{}, false
	}
	if !validSubPath(loc.File) || strings.ContainsAny(loc.Ref, " \t\n") {
		return Location{}, false
	}
	return loc, true
}

// looksGit reports whether an URL names a git repository by its spelling.
func looksGit(s string) bool {
	s, _, _ = strings.Cut(s, "#")
	if i := strings.LastIndex(s, "@"); i > strings.LastIndex(s, "/") && strings.LastIndex(s, "/") >= 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(s, "/")
	lower := strings.ToLower(s)
	return strings.HasSuffix(lower, ".git") || strings.HasPrefix(lower, "ssh://") ||
		strings.HasPrefix(lower, "git://") || naming.IsSCPLike(s)
}

// cleanLocal makes a local repository path absolute and clean, with no
// white space at its ends.
func cleanLocal(p string) string {
	p = absPath(p)
	for {
		q := filepath.Clean(strings.TrimSpace(p))
		if q == p {
			return p
		}
		p = q
	}
}

func absPath(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// isGitDir reports whether dir is a git repository (work tree or bare).
func isGitDir(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return true
	}
	_, errH := os.Stat(filepath.Join(dir, "HEAD"))
	fi, errO := os.Stat(filepath.Join(dir, "objects"))
	return errH == nil && errO == nil && fi.IsDir()
}

// onThisMachine reports whether l is the user's own: a file, or a git
// repository named by a path or a file:// URL (naming.IsLocal). A registry
// that is not (read over http, or from a remote git repository) is someone
// else's text: it may not name a repository or a registry on this machine.
func (l Location) onThisMachine() bool {
	return l.Kind == KindFile || (l.Kind == KindGit && naming.IsLocal(l.URL))
}

// notHereMsg is why a registry read over the network may not name a
// repository or a registry on this machine.
const notHereMsg = "a registry read over the network may not name a path on this machine (its readers would install their own files on its word)"

// localRepoProblems lists the git contexts of reg, read from l, whose
// repository is on this machine (naming.IsLocal, after a relative one is
// resolved against l) while l is not: each a problem at
// contexts[i].repo, at its place in data.
func (l Location) localRepoProblems(reg *Registry, data []byte) []Problem {
	if l.onThisMachine() {
		return nil
	}
	var probs []Problem
	var paths [][]string
	for i, c := range reg.Contexts {
		if c.KindOf() != KindGitSource || !naming.IsLocal(l.resolveRepo(c.Repo)) {
			continue
		}
		field := fmt.Sprintf("contexts[%d].repo", i)
		paths = append(paths, jsonfile.SplitPath(field))
		probs = append(probs, Problem{File: l.String(), Field: field,
			Msg: fmt.Sprintf("%s is a repository on this machine: %s; name one its readers can fetch (https://, ssh://, git@host:path, or a path relative to the registry: ./x, ../x)", safetext.Quote(c.Repo), notHereMsg)})
	}
	// One reading of the file for every position (a Find per context
	// read it once each: 10,000 contexts, red19).
	for i, pos := range jsonfile.Positions(data, paths) {
		probs[i].Line, probs[i].Col = pos.Line, pos.Col
	}
	return probs
}

// resolve returns the location ref names when read from inside l: absolute
// locations as they are, relative ones against l's folder (same repository
// and ref for a git registry). A registry read over the network may not
// import one on this machine.
func (l Location) resolve(ref string) (Location, error) {
	next, err := l.resolveRef(ref)
	if err == nil && next.onThisMachine() && !l.onThisMachine() {
		return Location{}, fmt.Errorf("%s is a registry on this machine: %s; import one by its URL", safetext.Quote(ref), notHereMsg)
	}
	return next, err
}

func (l Location) resolveRef(ref string) (Location, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return Location{}, errors.New("empty import")
	}
	absolute := naming.HasScheme(ref) || strings.HasPrefix(ref, "git+") || naming.IsSCPLike(ref)
	if !absolute && l.Kind != KindHTTP {
		absolute = filepath.IsAbs(ref) || strings.HasPrefix(ref, "~/")
	}
	if absolute {
		return ParseLocation(ref)
	}
	switch l.Kind {
	case KindFile:
		return ParseLocation(filepath.Join(filepath.Dir(l.URL), ref))
	case KindHTTP:
		base, err := url.Parse(l.URL)
		if err != nil {
			return Location{}, err
		}
		r, err := url.Parse(ref)
		if err != nil {
			return Location{}, fmt.Errorf("import %s: %w", safetext.Quote(ref), err)
		}
		return ParseLocation(base.ResolveReference(r).String())
	}
	file, ref2, hasRef := strings.Cut(ref, "@")
	out := Location{Kind: KindGit, URL: l.URL, Ref: l.Ref, File: path.Clean(path.Join(path.Dir(l.File), file))}
	if hasRef {
		out.Ref = ref2
	}
	if !validSubPath(out.File) {
		return Location{}, fmt.Errorf("import %s leaves the repository", safetext.Quote(ref))
	}
	return out, nil
}

// resolveRepo resolves a relative repository ("./x", "../x") named in the
// registry at l: against the registry's folder when l is local; against the
// file's URL for an http registry; and, as git does for submodules, against
// the repository's URL for a remote git registry. Other repos are returned
// as they are.
func (l Location) resolveRepo(repo string) string {
	if !(repo == "." || repo == ".." || strings.HasPrefix(repo, "./") || strings.HasPrefix(repo, "../")) {
		return repo
	}
	switch {
	case l.Kind == KindFile:
		return filepath.Join(filepath.Dir(l.URL), filepath.FromSlash(repo))
	case l.Kind == KindGit && naming.IsLocal(l.URL):
		return filepath.Join(l.URL, filepath.FromSlash(path.Dir(l.File)), filepath.FromSlash(repo))
	case l.Kind == KindHTTP:
		base, err1 := url.Parse(l.URL)
		ref, err2 := url.Parse(repo)
		if err1 == nil && err2 == nil {
			return base.ResolveReference(ref).String()
		}
	case l.Kind == KindGit && naming.IsSCPLike(l.URL):
		host, p, _ := strings.Cut(l.URL, ":")
		return host + ":" + strings.TrimPrefix(path.Join("/"+p, repo), "/")
	case l.Kind == KindGit:
		if u, err := url.Parse(l.URL); err == nil {
			u.Path = path.Join("/"+strings.TrimPrefix(u.Path, "/"), repo)
			return u.String()
		}
	}
	return repo
}
