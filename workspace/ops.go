package workspace

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/safetext"
)

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)
var shortSHA = regexp.MustCompile(`^[0-9a-fA-F]{4,39}$`)

func now() time.Time { return time.Now().UTC().Truncate(time.Second) }

// parallel runs fn(0..n-1) with at most jobs at a time.
func parallel(n, jobs int, fn func(i int)) {
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			fn(i)
		}()
	}
	wg.Wait()
}

// noAccess reports whether err means the user cannot read the repository.
func noAccess(err error) bool {
	switch gitengine.KindOf(err) {
	case gitengine.KindNotFound, gitengine.KindAuthRequired, gitengine.KindAuthFailed, gitengine.KindHostKey:
		return true
	}
	return false
}

// resolveTasks resolves the refs of tasks that ask for it: one ListRefs per
// remote URL, in parallel; full commit SHAs need no network at all.
func (w *Workspace) resolveTasks(ctx context.Context, ts []*task) {
	byURL := map[string][]*task{}
	for _, t := range ts {
		if !t.resolve {
			continue
		}
		if fullSHA.MatchString(t.spec.Ref) {
			t.commit = t.spec.Ref
			continue
		}
		u := w.fetchURL(t.spec.Source)
		byURL[u] = append(byURL[u], t)
	}
	urls := make([]string, 0, len(byURL))
	for u := range byURL {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	parallel(len(urls), w.opts.Jobs, func(i int) {
		u := urls[i]
		group := byURL[u]
		eng := w.engine(group[0].alias)
		remote, err := eng.ListRefs(ctx, u)
		for _, t := range group {
			if err != nil {
				t.resolveErr = err
				continue
			}
			t.commit, t.refName, t.resolveErr = resolveRef(remote, t.spec.Ref, func(msg string) { w.log("warning: %s: %s", t.alias, msg) })
			if t.resolveErr != nil && shortSHA.MatchString(t.spec.Ref) {
				// An abbreviated commit: only the repository can expand it.
				r, err := eng.Resolve(ctx, u, t.spec.Ref)
				if err == nil {
					t.commit, t.refName, t.resolveErr = r.Commit, r.Ref, nil
				}
			}
		}
	})
}

// resolveRef finds ref in an advertisement: "" (or HEAD) is the default
// branch; otherwise a full ref name, a branch, then a tag (peeled).
func resolveRef(r *gitengine.Remote, ref string, warn func(string)) (commit, name string, err error) {
	find := func(n string) (string, bool) {
		i := sort.Search(len(r.Refs), func(i int) bool { return r.Refs[i].Name >= n })
		if i < len(r.Refs) && r.Refs[i].Name == n {
			if r.Refs[i].Peel != "" {
				return r.Refs[i].Peel, true
			}
			return r.Refs[i].Hash, true
		}
		for _, x := range r.Refs { // in case a remote's list was not sorted
			if x.Name == n {
				if x.Peel != "" {
					return x.Peel, true
				}
				return x.Hash, true
			}
		}
		return "", false
	}
	var cands []string
	switch {
	case ref == "" || ref == "HEAD":
		if r.Head != "" {
			cands = []string{r.Head}
		} else {
			cands = []string{"refs/heads/main", "refs/heads/master"}
		}
	case strings.HasPrefix(ref, "refs/"):
		cands = []string{ref}
	default:
		// git's rev-parse order, as gitengine.Resolve: tags before branches.
		cands = []string{"refs/tags/" + ref, "refs/heads/" + ref}
		_, tag := find(cands[0])
		_, branch := find(cands[1])
		if tag && branch {
			warn(fmt.Sprintf("%s is both a tag and a branch; using the tag (write refs/heads/%s for the branch)", safetext.Quote(ref), safetext.Clip(ref, 0)))
		}
	}
	for _, c := range cands {
		if h, ok := find(c); ok {
			return h, c, nil
		}
	}
	what := "ref " + safetext.Quote(ref)
	if ref == "" {
		what = "a default branch"
	}
	var names []string
	for _, x := range r.Refs {
		if strings.HasPrefix(x.Name, "refs/heads/") || strings.HasPrefix(x.Name, "refs/tags/") {
			names = append(names, strings.TrimPrefix(strings.TrimPrefix(x.Name, "refs/heads/"), "refs/tags/"))
		}
		if len(names) == 10 {
			names = append(names, "…")
			break
		}
	}
	hint := "set \"ref\" to a branch, tag or commit of the repository"
	if len(names) > 0 {
		hint += " (it has: " + strings.Join(names, ", ") + ")"
	}
	return "", "", &gitengine.Error{Kind: gitengine.KindRefNotFound, URL: r.URL, Op: "resolve", Hint: hint, Err: errors.New(what + " is not there")}
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// indexPackages is what the indexer should see: locked packages on disk.
func (w *Workspace) indexPackages() ([]indexer.Package, error) {
	l, err := w.readLock()
	if err != nil {
		return nil, err
	}
	var pkgs []indexer.Package
	for alias, e := range l.Packages {
		if !exists(w.pkgDir(alias)) {
			continue
		}
		pkgs = append(pkgs, indexer.Package{Alias: alias, Source: e.Source, Path: e.Path, Ref: e.Ref, Commit: e.Commit})
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Alias < pkgs[j].Alias })
	return pkgs, nil
}

// syncIndex updates the index after packages changed. The packages' work is
// done by then: a failure here is a warning, not the command's failure.
func (w *Workspace) syncIndex(ctx context.Context) (rep *indexer.SyncReport) {
	defer func() {
		if p := recover(); p != nil {
			w.log("warning: the index was not updated: the indexer crashed: %v (run `ctx index` to retry; please report this)", p)
			rep = nil
		}
	}()
	rep, err := w.reindex(ctx, indexer.Options{})
	if err != nil {
		w.log("warning: the index was not updated: %v (run `ctx index` to retry)", err)
		return nil
	}
	return rep
}

func (w *Workspace) reindex(ctx context.Context, o indexer.Options) (*indexer.SyncReport, error) {
	pkgs, err := w.indexPackages()
	if err != nil {
		return nil, err
	}
	if o.BudgetTokens == 0 {
		o.BudgetTokens = w.manifest.Index.BudgetTokens
	}
	if o.Warn == nil {
		o.Warn = func(msg string) { w.log("warning: %s", msg) }
	}
	return indexer.Sync(ctx, w.Dir(), pkgs, o)
}
