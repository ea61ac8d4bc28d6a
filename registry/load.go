package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/netguard"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/wording"
)

// DefaultMaxDepth is how deep imports are followed (the root is depth 0).
const DefaultMaxDepth = 5

// maxFileSize caps what is read of one registry file.
const maxFileSize = 8 << 20

// GitFetcher is what the loader needs from gitengine.
type GitFetcher interface {
	Resolve(ctx context.Context, url, ref string) (gitengine.Resolved, error)
	ReadFile(ctx context.Context, req gitengine.FetchRequest) ([]byte, error)
}

// Loader reads registries and follows their imports. The zero value is usable.
type Loader struct {
	Git      GitFetcher   // nil = gitengine.New(Options{}), which has no CacheDir: set it to load git registries
	HTTP     *http.Client // nil = a client with a 30 s timeout
	MaxDepth int          // 0 = DefaultMaxDepth
	// Warn receives non-fatal problems: unreachable or invalid imports, the
	// depth limit, conflicting duplicates. May be nil.
	Warn func(msg string)
	// Note receives one line per registry read. May be nil.
	Note func(msg string)
	// Confine, when set, is the project root, and the registry is one the
	// user did not name (the committed manifest's): as the manifest's own
	// sources, a registry it reads on this machine (the root or an
	// import, a file or a local git repository) must resolve, through
	// every link, inside Confine, and one read over http(s) may not reach
	// the private network (internal/netguard, at dial time; HTTP must be
	// nil). The caller gives Git guarded (gitengine.Engine.Guarded).
	Confine string
}

// confineHint is what to do about a registry Confine refuses.
const confineHint = "the committed manifest names this registry, not you, and a clone may not make ctx read your files or reach your private network; if you trust it, name it yourself: ctx setup --registry LOCATION"

// confined returns why Confine refuses loc, on this machine, or nil.
func (l *Loader) confined(loc Location) error {
	if l.Confine == "" || !loc.onThisMachine() {
		return nil
	}
	p := loc.URL
	if loc.Kind == KindGit {
		p, _ = naming.LocalPath(loc.URL)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil // nothing there to read: the read says so
	}
	root, err := filepath.EvalSymlinks(l.Confine)
	if err != nil {
		root = l.Confine
	}
	if naming.Within(root, real) {
		return nil
	}
	return fmt.Errorf("registry %s is outside the project (%s) (%s)", loc.shown(), safetext.Quote(real), confineHint)
}

// Entry is one context of the merged registry.
type Entry struct {
	Context
	// From is the location of the registry that listed it first.
	From string
}

// Key is the context's identity: its normalized source (repository or URL)
// and sub-path.
func (e Entry) Key() string { return ContextKey(e.Source(), e.Path) }

// ContextKey identifies a package by repository (naming.RepoKey) and
// sub-path, whatever the spelling of either.
func ContextKey(repo, p string) string {
	p = strings.Trim(path.Clean("/"+strings.TrimSpace(p)), "/")
	return repoKey(repo) + "//" + p
}

// Result is a registry with its imports merged.
type Result struct {
	Name        string
	Description string
	Root        Location
	// Contexts in order: the root's, then each import's (depth first), with
	// duplicates (same repository, path and ref) merged into the first; at
	// most MaxContexts.
	Contexts []Entry
	// Loaded lists every registry read, in order, each once.
	Loaded []Location
	// Warnings repeats what was sent to Warn.
	Warnings []string
}

// Names lists the contexts' names in order.
func (r *Result) Names() []string {
	out := make([]string, len(r.Contexts))
	for i, c := range r.Contexts {
		out[i] = c.Name
	}
	return out
}

// Load reads the registry at location (see ParseLocation) and every registry
// it imports, each once, to the depth limit. A root that cannot be read or
// is invalid is an error; an import that cannot is a warning.
func (l *Loader) Load(ctx context.Context, location string) (*Result, error) {
	root, err := ParseLocation(location)
	if err != nil {
		return nil, err
	}
	return l.LoadLocation(ctx, root)
}

// LoadLocation is Load for a parsed location.
func (l *Loader) LoadLocation(ctx context.Context, root Location) (*Result, error) {
	st := &loadState{l: l, res: &Result{Root: root}, seen: map[string]bool{}, byKey: map[string]int{}, byName: map[string]int{}}
	maxDepth := l.MaxDepth
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	st.max = maxDepth
	reg, err := st.read(ctx, root)
	if err != nil {
		return nil, err
	}
	st.res.Name, st.res.Description = reg.Name, reg.Description
	if err := st.walk(ctx, root, reg, 0); err != nil {
		return nil, err
	}
	st.warnBounds()
	return st.res, nil
}

type loadState struct {
	l      *Loader
	res    *Result
	max    int
	seen   map[string]bool // Location.Key of registries read or being read
	byKey  map[string]int  // ContextKey -> index in res.Contexts
	byName map[string]int  // lower-case name -> index
	bounds loadBounds      // what the load's limits left out (bounds.go)

	// check: Check's strict load, where what Load warns of is a problem
	// at its place in the file (see check.go).
	check *checkState
}

func (st *loadState) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	st.res.Warnings = append(st.res.Warnings, msg)
	if st.l.Warn != nil {
		st.l.Warn(msg)
	}
}

// read fetches and parses one registry and marks it seen.
func (st *loadState) read(ctx context.Context, loc Location) (*Registry, error) {
	st.seen[loc.Key()] = true
	data, err := st.l.fetch(ctx, loc)
	if err != nil {
		return nil, err
	}
	if st.check != nil {
		st.check.data[loc.Key()] = data
	}
	reg, err := Parse(loc.String(), data)
	if err != nil {
		return nil, err
	}
	if probs := loc.localRepoProblems(reg, data); len(probs) > 0 {
		return nil, &ParseError{Errors: probs}
	}
	if unknown := UnknownFields(data); len(unknown) > 0 {
		st.warn("registry %s: ignoring unknown fields %s (a typo?)", loc.shown(), safetext.Clip(strings.Join(unknown, ", "), 0))
	}
	st.res.Loaded = append(st.res.Loaded, loc)
	if st.l.Note != nil {
		st.l.Note(fmt.Sprintf("loaded registry %s (%s, %s, %s)", loc.shown(), safetext.Quote(reg.Name),
			wording.Count(len(reg.Contexts), "context", "contexts"), wording.Count(len(reg.Imports), "import", "imports")))
	}
	return reg, nil
}

// walk adds reg's contexts, then follows its imports depth first.
func (st *loadState) walk(ctx context.Context, loc Location, reg *Registry, depth int) error {
	if st.check != nil {
		st.check.path = append(st.check.path, loc)
		defer func() { st.check.path = st.check.path[:len(st.check.path)-1] }()
	}
	for ci, c := range reg.Contexts {
		if c.KindOf() == KindGitSource {
			c.Repo = loc.resolveRepo(c.Repo)
		}
		e := Entry{Context: c, From: loc.String()}
		key := mergeKey(e)
		if i, dup := st.byKey[key]; dup {
			if st.sameFileTwice(loc, ci, i, c) {
				continue
			}
			first := &st.res.Contexts[i]
			first.Tags = mergeTags(first.Tags, c.Tags)
			if first.Description == "" {
				first.Description = c.Description
			}
			continue
		}
		lname := strings.ToLower(c.Name)
		if i, dup := st.byName[lname]; dup {
			if st.check != nil {
				st.check.at(loc, fmt.Sprintf("contexts[%d].name", ci), fmt.Sprintf("%s is also the name of a different context (%s) in %s: names must be unique across a registry and its imports",
					safetext.Quote(c.Name), safetext.Clip(st.res.Contexts[i].Source(), 0), safetext.Clip(st.res.Contexts[i].From, 0)))
				continue
			}
			st.warn("registry %s: context %s (%s) has the name of a different context from %s; keeping the first (rename one of them)",
				loc.shown(), safetext.Quote(c.Name), safetext.Clip(c.Source(), 0), safetext.Clip(st.res.Contexts[i].From, 0))
			continue
		}
		if !st.keepContext(loc) {
			continue
		}
		st.byKey[key] = len(st.res.Contexts)
		st.byName[lname] = len(st.res.Contexts)
		st.res.Contexts = append(st.res.Contexts, e)
	}
	for k, imp := range reg.Imports {
		if err := ctx.Err(); err != nil {
			return err
		}
		field := fmt.Sprintf("imports[%d]", k)
		next, err := loc.resolve(imp)
		if err != nil {
			if st.check != nil {
				st.check.at(loc, field, fmt.Sprintf("import %s: %v", safetext.Quote(imp), err))
				continue
			}
			st.warn("registry %s: import %s skipped: %v", loc.shown(), safetext.Quote(imp), err)
			continue
		}
		if st.seen[next.Key()] {
			if st.check != nil {
				st.check.cycle(loc, field, next)
			}
			continue // already read (a cycle or a diamond): once is enough
		}
		if depth+1 > st.max {
			if st.check != nil {
				st.check.at(loc, field, fmt.Sprintf("import %s is deeper than the import depth limit (%d)", next.shown(), st.max))
				continue
			}
			st.tooDeep(loc, next)
			continue
		}
		if !st.mayRead(loc, field, next) {
			continue
		}
		sub, err := st.read(ctx, next)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if st.check != nil {
				st.check.imported(loc, field, next, err)
				continue
			}
			st.warn("registry %s: import %s skipped: %v", loc.shown(), next.shown(), err)
			continue
		}
		if err := st.walk(ctx, next, sub, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func mergeTags(a, b []string) []string {
	seen := map[string]bool{}
	for _, t := range a {
		seen[strings.ToLower(t)] = true
	}
	for _, t := range b {
		if !seen[strings.ToLower(t)] {
			seen[strings.ToLower(t)] = true
			a = append(a, t)
		}
	}
	return a
}

// fetch returns the bytes of the registry file at loc.
func (l *Loader) fetch(ctx context.Context, loc Location) ([]byte, error) {
	if err := l.confined(loc); err != nil {
		return nil, err
	}
	switch loc.Kind {
	case KindFile:
		// Bounded (internal/boundedfile: a regular file, no wait on a
		// fifo), in the registry's words.
		data, err := boundedfile.ReadFile(loc.URL, maxFileSize)
		var be *boundedfile.Error
		switch {
		case errors.As(err, &be) && be.Kind == boundedfile.ErrNotRegular:
			return nil, fmt.Errorf("registry %s is %s, not a file: is it a registry?", loc.shown(), boundedfile.Describe(be.Mode))
		case errors.As(err, &be):
			return nil, fmt.Errorf("registry %s is larger than %d MiB: is it a registry?", loc.shown(), maxFileSize>>20)
		case err != nil:
			return nil, fmt.Errorf("read registry: %w", safetext.ClipPathError(err))
		}
		return data, nil
	case KindHTTP:
		return l.fetchHTTP(ctx, loc)
	}
	return l.fetchGit(ctx, loc)
}

func readCapped(r io.Reader, loc Location) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read registry %s: %w", loc.shown(), err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("registry %s is larger than %d MiB: is it a registry?", loc.shown(), maxFileSize>>20)
	}
	return data, nil
}

func (l *Loader) fetchHTTP(ctx context.Context, loc Location) ([]byte, error) {
	client := l.HTTP
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
		if l.Confine != "" {
			// The environment's proxy, as an unconfined read has it, once the
			// host resolves to public addresses; else a direct dial checked
			// at dial time (netguard.Transport, gitengine's rule too).
			open := http.DefaultTransport.(*http.Transport).Clone()
			direct := open.Clone()
			direct.Proxy = nil
			d := &net.Dialer{Timeout: 30 * time.Second, Control: netguard.Control(nil)}
			direct.DialContext = d.DialContext
			client.Transport = netguard.Transport{Open: open, Direct: direct}
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("registry %s: %w", loc.shown(), err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "ctx")
	resp, err := client.Do(req)
	var private *netguard.AddrError
	if errors.As(err, &private) {
		return nil, fmt.Errorf("fetch registry %s: private network refused: %w (%s)", loc.shown(), private, confineHint)
	}
	if err != nil {
		return nil, fmt.Errorf("fetch registry: %w (check the URL and your network)", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("fetch registry %s: %s (the server wants credentials: use a URL you can read, or a git repository location so git credentials apply)", loc.shown(), resp.Status)
	case resp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("fetch registry %s: %s (check the URL)", loc.shown(), resp.Status)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("fetch registry %s: %s", loc.shown(), safetext.Clip(resp.Status, 0))
	}
	return readCapped(resp.Body, loc)
}

func (l *Loader) fetchGit(ctx context.Context, loc Location) ([]byte, error) {
	g := l.Git
	if g == nil {
		g = gitengine.New(gitengine.Options{})
	}
	res, err := g.Resolve(ctx, loc.URL, loc.Ref)
	if err != nil {
		return nil, fmt.Errorf("registry %s: %w", loc.shown(), err)
	}
	// Only the commit's trees and the one blob travel, not the folder.
	data, err := g.ReadFile(ctx, gitengine.FetchRequest{URL: loc.URL, Commit: res.Commit, Ref: res.Ref, Path: loc.File})
	if err != nil {
		if gitengine.KindOf(err) == gitengine.KindPathNotFound {
			return nil, fmt.Errorf("registry %s: no file %s in the repository at %s: name the file with REPO#path/to/file.json", loc.shown(), safetext.Clip(loc.File, 0), naming.ShortRev(res.Commit, 12))
		}
		return nil, fmt.Errorf("registry %s: %w", loc.shown(), err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("registry %s is larger than %d MiB: is it a registry?", loc.shown(), maxFileSize>>20)
	}
	return data, nil
}

// shown is the location as an error or a warning quotes it:
// safetext.Clip of String.
func (l Location) shown() string { return safetext.Clip(l.String(), 0) }
