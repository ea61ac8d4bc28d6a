package mcpserver

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/ctxref"
	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
)

// maxFileBytes bounds how much of one document the server reads. Larger
// files are refused with a hint to search instead.
const maxFileBytes = 16 << 20

// checkRelPath refuses a document path that could leave its package or reach
// a hidden file (naming.CheckServedPath: empty, absolute, NUL, backslash,
// "..", ".", empty components, components starting with "." such as .git
// and .state), and the same tricks percent-encoded. It returns the cleaned
// slash path.
func checkRelPath(p string) (string, error) {
	if err := checkRelPathOnce(p); err != nil {
		return "", err
	}
	// A path that decodes to something hostile is refused too:
	// "%2e%2e/x" is not a traversal on disk, but it is an attempt.
	for range 3 {
		if !strings.Contains(p, "%") {
			break
		}
		dec, err := url.PathUnescape(p)
		if err != nil || dec == p {
			break
		}
		if err := checkRelPathOnce(dec); err != nil {
			return "", fmt.Errorf("%w (after percent-decoding)", err)
		}
		p = dec
	}
	return p, nil
}

var errOutside = errors.New("outside the package")

// served reports whether the server may serve or show path p of a package:
// the one hidden-file rule of every listing and answer (checkRelPathOnce:
// no component starting with ".", such as .git and .state, and no path
// that could leave the package). A path the index holds that is not
// served is left out of search hits, listings, counts and links.
func served(p string) bool { return checkRelPathOnce(p) == nil }

func checkRelPathOnce(p string) error {
	if p == "" {
		return errors.New("empty path: give a path inside the package, such as README.md")
	}
	if err := naming.CheckServedPath(p); err != nil {
		return fmt.Errorf("%w: %w", err, errOutside)
	}
	return nil
}

// listAdvice is what an agent is told to do to see the installed packages:
// the one wording of every tool's unknown or missing package (what_changed's
// through ChangesFunc).
const listAdvice = "call list_contexts to see the installed packages"

// checkAlias refuses what is not a valid alias (naming.ValidAlias): no
// package can have it, and it must never reach the file system.
func checkAlias(a string) error {
	if a == "" {
		return errors.New("empty package alias: " + listAdvice)
	}
	if !naming.ValidAlias(a) {
		return fmt.Errorf("%q is not a package alias (%s): %s", a, naming.AliasRule, listAdvice)
	}
	return nil
}

// refTarget is the package and path of the document a tool is asked for:
// alias and p, or when p is a reference (ctxref.Parse, the one parser of
// them: @ctx/<alias>/<path>, ctx://packages/<alias>/<path>) its alias and
// path; alias must then be empty or the reference's. With no alias, p may
// also name the document as read_relevant's header does, <alias>/<path>,
// when its first component is a package installed says is one (an agent
// that reads a header and asks for that document gets it in one call),
// and copied with the header's line range (<alias>/<path>:7-30, which
// headerRange takes off).
// Neither is checked here: openDoc does that, with its hints.
func refTarget(alias, p string, installed func(string) bool) (string, string, error) {
	if !ctxref.IsRef(p) {
		if alias == "" {
			named := ""
			if a, rest, ok := strings.Cut(p, "/"); ok && rest != "" && naming.ValidAlias(a) {
				if installed(a) {
					return a, headerRange(rest), nil
				}
				named = fmt.Sprintf(", and %q (the path's first component) is no installed package", a)
			}
			return "", "", errors.New("empty package alias" + named + ": give package and path, or as path <alias>/<path> (as read_relevant's header names a document) or a reference (@ctx/<alias>/<path>, ctx://packages/<alias>/<path>); " + listAdvice)
		}
		return alias, p, nil
	}
	r, err := ctxref.Parse(p)
	if err != nil {
		return "", "", err
	}
	if alias != "" && alias != r.Name {
		return "", "", fmt.Errorf("package %q and the reference %q (package %q) disagree: leave package out, or give the path inside %q", alias, p, r.Name, alias)
	}
	return r.Name, r.Path, nil
}

// headerRange is p without the line range read_relevant's header writes
// after a path (":7-30", ":7"): a path given in the header's form with that
// range still copied. Only there: a file whose name ends so is still
// reached with package and path.
func headerRange(p string) string {
	i := strings.LastIndexByte(p, ':')
	if i <= 0 {
		return p
	}
	digits := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	from, to, ranged := strings.Cut(p[i+1:], "-")
	if !digits(from) || (ranged && !digits(to)) {
		return p
	}
	return p[:i]
}

// pkgFiles is where one package's files are (Server.files): packages/<alias>
// of a locked package, or a dir source's folder, in place, and for a
// single-file dir source the one file of it that is served.
type pkgFiles struct {
	dir         string
	only        string               // a name in dir: the package's one file ("" = all of dir)
	live        bool                 // a dir source
	walk        markdown.WalkOptions // a dir source's walk rules (indexer.WalkOptions): what it serves is what is indexed
	packagesDir string               // locked packages: .context/packages
	alias       string               // the alias
}

// readDocument reads rel of a package through os.Root on its folder, so that
// no symlink or trick can reach outside it; of a single-file dir source only
// its one file. rel must have passed checkRelPath.
func readDocument(pf pkgFiles, rel string) ([]byte, error) {
	if pf.only != "" && rel != pf.only {
		return nil, fmt.Errorf("this package is the one file %s: %w", pf.only, errNotFound)
	}
	pr, err := openPackage(pf)
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	if pf.walk.Gitignore && pf.only == "" && markdown.Ignored(pr.FS(), pf.walk.Above, rel) {
		return nil, fmt.Errorf("%s is ignored by a .gitignore of this dir source, so it is not served: %w", rel, errNotFound)
	}
	if pf.walk.Keep != nil && pf.only == "" && !pf.walk.Keep(rel) {
		return nil, fmt.Errorf("%s is not tracked by git, and the committed manifest names this dir source, so it is not served until it is (`git add` it), or until you allow the source (`ctx install --allow-outside %s`): %w", rel, pf.alias, errNotFound)
	}
	fi, err := pr.Stat(rel)
	if err != nil {
		return nil, classifyOpenErr(err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a folder, not a document: %w", rel, errNotFound)
	}
	// A dir source serves what its walk indexes, which never follows a
	// symbolic link: git tracks a link, not what it points to, so a
	// committed link must not serve an untracked or ignored file
	// (review18e).
	if pf.live {
		if li, err := pr.Lstat(rel); err != nil || li.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link: a dir source serves only regular files, as its index does: %w", rel, errNotFound)
		}
	}
	// Read bounded (internal/boundedfile: a regular file, no wait on a
	// fifo, at most maxFileBytes), in the server's words.
	data, err := boundedfile.ReadIn(pr, rel, maxFileBytes)
	var be *boundedfile.Error
	switch {
	case errors.As(err, &be) && be.Kind == boundedfile.ErrNotRegular:
		return nil, fmt.Errorf("%s is not a regular file: %w", rel, errNotFound)
	case errors.As(err, &be) && be.Size >= 0:
		return nil, fmt.Errorf("%s is %d bytes, more than the %d this server reads; use search to find the part you need", rel, be.Size, maxFileBytes)
	case errors.As(err, &be):
		return nil, fmt.Errorf("%s is more than the %d bytes this server reads; use search to find the part you need", rel, maxFileBytes)
	case err != nil:
		return nil, classifyOpenErr(err)
	}
	return data, nil
}

// openPackage opens a package's folder as an os.Root. For a locked package,
// packages/<alias>: neither packages/ nor the package folder may be a
// symbolic link (internal/confine's rule for .context/): a cloned repository
// can commit one, and the server would then serve files from wherever it
// points. A dir source's folder is the one its manifest entry names.
func openPackage(pf pkgFiles) (*os.Root, error) {
	if pf.live {
		pr, err := os.OpenRoot(pf.dir)
		if err != nil {
			return nil, fmt.Errorf("the folder of this dir source cannot be opened (%w): restore it, or remove the source with `ctx remove`", err)
		}
		return pr, nil
	}
	packagesDir, alias := pf.packagesDir, pf.alias
	if err := confine.New(filepath.Dir(packagesDir)).Check(filepath.Join(filepath.Base(packagesDir), alias)); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(packagesDir); err != nil {
		return nil, fmt.Errorf("no installed packages (%w): run `ctx install`", err)
	}
	pr, err := os.OpenRoot(filepath.Join(packagesDir, alias))
	if err != nil {
		return nil, fmt.Errorf("package %s is in the lock but not on disk: run `ctx install`: %w", safetext.Quote(alias), err)
	}
	return pr, nil
}

var errNotFound = errors.New("not found")

// kindError is an error whose message is complete as it is (a hint for a
// model) and that still matches its kind with errors.Is.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// notFound returns an error with message msg that is errNotFound.
func notFound(msg string) error { return &kindError{msg: msg, kind: errNotFound} }

// classifyOpenErr maps os.Root's errors to "not found" or "outside".
func classifyOpenErr(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w", errNotFound)
	}
	// os.Root reports escapes as "path escapes from parent".
	if strings.Contains(err.Error(), "escapes") {
		return fmt.Errorf("a symlink leads outside the package: %w", errOutside)
	}
	return err
}

// listMarkdown returns up to max documents of a package (markdown.Walk:
// the files the indexer indexes), read through os.Root; of a single-file
// dir source, its file when it is one.
func listMarkdown(pf pkgFiles, max int) []string {
	root, err := openPackage(pf)
	if err != nil {
		return nil
	}
	defer root.Close()
	if pf.only != "" {
		if fi, err := root.Lstat(pf.only); err == nil && fi.Mode().IsRegular() && markdown.IsDocument(pf.only) {
			return []string{pf.only}
		}
		return nil
	}
	docs, _ := markdown.WalkWith(root.FS(), pf.walk, nil)
	return docs[:min(len(docs), max)]
}

// maxSuggestPaths bounds the documents of one package a "did you mean"
// looks at.
const maxSuggestPaths = 100_000

// suggestPaths returns up to 3 documents of alias whose paths are nearest
// to want (nearestPath), for a "did you mean". The paths come from the
// index's catalogue, so an error costs no walk of the package folder, and
// each suggestion is checked on disk (the catalogue may be behind). When
// the index cannot be read or lists no document of alias, they come from
// a walk of the folder (listMarkdown).
func (s *Server) suggestPaths(snap snapshot, alias, want string) []string {
	pf := s.files(snap, alias)
	var paths []string
	if r, err := s.reader(); err == nil {
		if docs, err := r.Documents(alias); err == nil {
			for _, d := range docs {
				if served(d.Path) && markdown.IsDocument(d.Path) && (pf.only == "" || d.Path == pf.only) {
					paths = append(paths, d.Path)
				}
			}
		}
	}
	if len(paths) == 0 {
		return nearestPath(want, listMarkdown(pf, maxSuggestPaths), 3)
	}
	paths = paths[:min(len(paths), maxSuggestPaths)]
	root, err := openPackage(pf)
	if err != nil {
		return nil
	}
	defer root.Close()
	var out []string
	for _, p := range nearestPath(want, paths, 6) {
		if fi, err := root.Stat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
		if len(out) == 3 {
			break
		}
	}
	return out
}

// nearestPath returns up to n of paths nearest to want, best first, for a
// "did you mean" after a path is not found. The directory and the base
// name are ranked together: the distance is the edit distance (osa, case
// ignored) between want and the whole path, or between want and the
// path's last elements plus 1 when want leaves leading folders out
// ("setup.md" for docs/setup.md), or 1 when want names the folder of a
// README.md or index.md. The base name only breaks ties. So among
// hundreds of README.md files, a typo in a folder's name still finds its
// folder. Paths too far to be a plausible typo are left out, and so are
// those much further than the best.
func nearestPath(want string, paths []string, n int) []string {
	type scored struct {
		p       string
		d, base int
	}
	lw := strings.ToLower(want)
	wantElems := strings.Count(lw, "/") + 1
	wantBase := path.Base(lw)
	wantDir := strings.TrimSuffix(lw, path.Ext(lw))
	// limit shrinks to noiseOver(best) as better paths turn up (nothing past it
	// is shown), so most distances stop after a few characters.
	limit := max(3, utf8.RuneCountInString(lw)/3)
	var all []scored
	for _, p := range paths {
		lp := strings.ToLower(p)
		d := osa(lw, lp, limit)
		if elems := strings.Count(lp, "/") + 1; elems > wantElems {
			tail := lp
			for range elems - wantElems {
				tail = tail[strings.IndexByte(tail, '/')+1:]
			}
			d = min(d, osa(lw, tail, limit-1)+1)
		}
		if dir, base := path.Split(lp); dir != "" && strings.TrimSuffix(dir, "/") == wantDir {
			if b := strings.TrimSuffix(base, path.Ext(base)); b == "readme" || b == "index" {
				d = min(d, 1)
			}
		}
		if d <= limit {
			all = append(all, scored{p, d, osa(wantBase, path.Base(lp), len(lw)+len(lp))})
			limit = min(limit, noiseOver(d))
		}
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.d != b.d {
			return a.d < b.d
		}
		if a.base != b.base {
			return a.base < b.base
		}
		return a.p < b.p
	})
	return bestFirst(all, n, func(c scored) int { return c.d }, func(c scored) string { return c.p })
}

// noiseOver is the distance past which a "did you mean" candidate is much
// worse than the best one, at best: noise, never shown.
func noiseOver(best int) int { return 2*best + 1 }

// bestFirst is the cut of a "did you mean" list sorted best first: the
// names of up to n candidates, none much worse than the first (noiseOver).
func bestFirst[T any](sorted []T, n int, dist func(T) int, name func(T) string) []string {
	var out []string
	for i, c := range sorted {
		if i >= n || i > 0 && dist(c) > noiseOver(dist(sorted[0])) {
			break
		}
		out = append(out, name(c))
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// osa is the optimal string alignment distance between a and b, in runes:
// insertions, deletions, substitutions and swaps of two adjacent runes
// ("setpu" for "setup") each cost 1. Past limit it stops and returns
// limit+1: only cells within limit of the diagonal are computed, and a
// row whose cells, and the previous row's, all exceed limit ends it.
func osa(a, b string, limit int) int {
	// A path's runes and the three rows fit on the stack (nearestPath
	// measures the wanted path against every path of a package: two heap
	// slices per path were most of its allocations); longer strings
	// spill to the heap by append and make, as before.
	var raBuf, rbBuf [osaStack]rune
	var rowBuf [3 * (osaStack + 1)]int
	ra, rb := appendRunes(raBuf[:0], a), appendRunes(rbBuf[:0], b)
	n, m := len(ra), len(rb)
	if abs(n-m) > limit {
		return limit + 1
	}
	inf := limit + 1
	var buf []int
	if 3*(m+1) <= len(rowBuf) {
		buf = rowBuf[:3*(m+1)]
	} else {
		buf = make([]int, 3*(m+1))
	}
	prev2, prev, cur := buf[:m+1], buf[m+1:2*(m+1)], buf[2*(m+1):]
	for j := range prev {
		prev[j] = min(j, inf)
		prev2[j] = inf
	}
	prevBest := 0
	for i := 1; i <= n; i++ {
		// Cells outside [lo, hi] exceed limit; the two beside the band
		// are read, so they are set to inf.
		lo, hi := max(1, i-limit), min(m, i+limit)
		cur[lo-1] = inf
		if lo == 1 {
			cur[0] = min(i, inf)
		}
		if hi < m {
			cur[hi+1] = inf
		}
		best := cur[lo-1]
		for j := lo; j <= hi; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			c := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				c = min(c, prev2[j-2]+1)
			}
			cur[j] = min(c, inf)
			best = min(best, cur[j])
		}
		if best > limit && prevBest > limit {
			return inf // no later cell is less than the least of this row and the one before
		}
		prevBest = best
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[m]
}

// nearest returns up to n candidates closest to want (editDistance, with a
// bonus for a shared base name or substring), best first. Candidates too far
// to be a plausible typo are left out.
func nearest(want string, candidates []string, n int) []string {
	type scored struct {
		s string
		d int
	}
	lw := strings.ToLower(want)
	bw := path.Base(lw)
	var all []scored
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := editDistance(lw, lc)
		if bd := editDistance(bw, path.Base(lc)); bd < d {
			d = bd
		}
		if strings.Contains(lc, bw) || strings.Contains(lw, path.Base(lc)) {
			d = d / 2
		}
		limit := max(3, len(bw)/2)
		if d <= limit {
			all = append(all, scored{c, d})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].d != all[j].d {
			return all[i].d < all[j].d
		}
		return all[i].s < all[j].s
	})
	return bestFirst(all, n, func(c scored) int { return c.d }, func(c scored) string { return c.s })
}

// osaStack is the length in runes up to which osa keeps its work on the
// stack.
const osaStack = 128

// appendRunes appends the runes of s to dst ([]rune(s) without a new
// slice when dst has room).
func appendRunes(dst []rune, s string) []rune {
	for _, r := range s {
		dst = append(dst, r)
	}
	return dst
}

// editDistance is osa's distance between a and b with no limit.
func editDistance(a, b string) int {
	return osa(a, b, len(a)+len(b))
}

// didYouMean formats suggestions, or "" when there are none.
func didYouMean(s []string) string {
	if len(s) == 0 {
		return ""
	}
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = fmt.Sprintf("%q", x)
	}
	return " Did you mean " + strings.Join(q, " or ") + "?"
}
