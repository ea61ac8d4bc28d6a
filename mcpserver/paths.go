package mcpserver

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// maxFileBytes bounds how much of one document the server reads. Larger
// files are refused with a hint to search instead.
const maxFileBytes = 16 << 20

// markdownExts are the file name extensions served as documents.
var markdownExts = map[string]bool{".md": true, ".markdown": true, ".mdx": true}

// isMarkdown reports whether name has a markdown extension.
func isMarkdown(name string) bool {
	return markdownExts[strings.ToLower(path.Ext(name))]
}

// checkRelPath refuses a document path that could leave its package or reach
// a hidden file: empty, absolute, NUL, backslash, "..", ".", empty components,
// components starting with "." (.git, .state), and the same tricks
// percent-encoded. It returns the cleaned slash path.
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

func checkRelPathOnce(p string) error {
	switch {
	case p == "":
		return errors.New("empty path: give a path inside the package, such as README.md")
	case strings.ContainsRune(p, 0):
		return fmt.Errorf("path contains a NUL byte: %w", errOutside)
	case strings.Contains(p, `\`):
		return fmt.Errorf("path contains a backslash; use forward slashes: %w", errOutside)
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "" ||
		(len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')):
		return fmt.Errorf("absolute path; give a path relative to the package: %w", errOutside)
	}
	for _, el := range strings.Split(p, "/") {
		switch {
		case el == "..":
			return fmt.Errorf("path contains '..': %w", errOutside)
		case el == "" || el == ".":
			return fmt.Errorf("path has an empty or '.' component; give a clean relative path: %w", errOutside)
		case strings.HasPrefix(el, "."):
			return fmt.Errorf("path goes through hidden %q, which is never served: %w", el, errOutside)
		}
	}
	return nil
}

// checkAlias refuses an alias that is not a plain folder name.
func checkAlias(a string) error {
	if a == "" {
		return errors.New("empty package alias: call list_contexts to see the installed packages")
	}
	if strings.ContainsAny(a, "/\\\x00%") || strings.HasPrefix(a, ".") {
		return fmt.Errorf("package alias %q is not a plain name: %w", a, errOutside)
	}
	return nil
}

// readDocument reads packages/<alias>/<rel> through os.Root, so that no
// symlink or trick can reach outside packagesDir. rel must have passed
// checkRelPath.
func readDocument(packagesDir, alias, rel string) ([]byte, error) {
	root, err := os.OpenRoot(packagesDir)
	if err != nil {
		return nil, fmt.Errorf("no installed packages (%w): run `ctx install`", err)
	}
	defer root.Close()
	pr, err := root.OpenRoot(alias)
	if err != nil {
		return nil, fmt.Errorf("package %q is in the lock but not on disk: run `ctx install`: %w", alias, err)
	}
	defer pr.Close()
	fi, err := pr.Stat(rel)
	if err != nil {
		return nil, classifyOpenErr(err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a folder, not a document: %w", rel, errNotFound)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: %w", rel, errNotFound)
	}
	if fi.Size() > maxFileBytes {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d this server reads; use search to find the part you need", rel, fi.Size(), maxFileBytes)
	}
	f, err := pr.Open(rel)
	if err != nil {
		return nil, classifyOpenErr(err)
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxFileBytes+1))
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

// listMarkdown returns up to max markdown paths of a package (slash
// separated), skipping hidden folders, read through os.Root.
func listMarkdown(packagesDir, alias string, max int) []string {
	root, err := os.OpenRoot(filepath.Join(packagesDir, alias))
	if err != nil {
		return nil
	}
	defer root.Close()
	var out []string
	_ = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() && isMarkdown(p) {
			out = append(out, p)
			if len(out) >= max {
				return fs.SkipAll
			}
		}
		return nil
	})
	return out
}

// nearest returns up to n candidates closest to want (edit distance, with a
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
		d := levenshtein(lw, lc)
		if bd := levenshtein(bw, path.Base(lc)); bd < d {
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
	var out []string
	for i := 0; i < len(all) && i < n; i++ {
		if i > 0 && all[i].d > 2*all[0].d+1 {
			break // much worse than the best: noise
		}
		out = append(out, all[i].s)
	}
	return out
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
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
