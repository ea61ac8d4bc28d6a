package ctxref

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
)

// Class is what a reference points at.
type Class string

const (
	Resolved    Class = "resolved"    // an installed package has the document
	Installable Class = "installable" // the registry offers the context; it is not installed
	Missing     Class = "missing"     // the package is known, the document is not there (or cannot be)
	Unknown     Class = "unknown"     // no installed package and no registry context has the name
	Withheld    Class = "withheld"    // the package has the document, but audience rules kept it out of this project's install: not missing
)

// Package is what Classify needs of an installed package: the fields of
// the same names of project.Package (project.Installed). It is its own
// type so that ctxref, a parser and a scan, does not link the project
// layer and the source kinds behind it (git, https) for three strings.
type Package struct {
	Alias string
	Dir   string // the folder whose files are the package's
	Only  string // when set, the one file of Dir that is the package
	// Withheld, when set, says whether audience rules kept the document
	// rel out of the install, and why (project.Package's Withholds and
	// WithheldNote).
	Withheld func(rel string) (why string, ok bool)
}

// Packages is what a reference's name can mean in one project.
type Packages struct {
	// Installed maps each name to an installed package (project.Installed):
	// its alias, and the name of the registry context it was installed from.
	Installed map[string]Package
	// Pending maps the aliases the manifest has but that are not installed
	// to why ("not installed: run `ctx install`").
	Pending map[string]string
	// Offered maps each name a registry context is cited by (its name and
	// the alias it installs as) to the context's name.
	Offered map[string]string
	// Unreadable maps the name of an offered context that cannot be read
	// (its repository does not exist, say: setup's access check) to why.
	Unreadable map[string]string
}

// Result is one reference and what it points at.
type Result struct {
	Found
	Class   Class
	Package string // the installed alias it names (Resolved, and Missing in an installed package)
	Context string // Installable: the registry context's name
	Reason  string // Missing and Unknown: why, and what to do
}

// Classify says what each reference points at, in order: a name of an
// installed package is Resolved when the package has the document (a
// regular file, through os.Root on the package's folder: no link leaves
// it; of a single-file dir source, only its file), Withheld when audience
// rules kept it out of the install, and Missing otherwise; a pending name
// is Missing; an offered one Installable, or Missing when it is
// Unreadable; anything else Unknown. A path that naming.CheckServedPath
// refuses is Missing.
func Classify(refs []Found, pk Packages) []Result {
	roots := map[string]*os.Root{}
	defer func() {
		for _, r := range roots {
			if r != nil {
				r.Close()
			}
		}
	}()
	out := make([]Result, len(refs))
	for i, f := range refs {
		r := Result{Found: f}
		name := safetext.Quote(f.Name)
		if p, ok := pk.Installed[f.Name]; ok {
			r.Package, r.Class = p.Alias, Resolved
			if err := docExists(roots, p, f.Path); err != nil {
				r.Class, r.Reason = Missing, err.Error()
				if why, ok := withheld(p, f.Path); ok {
					r.Class, r.Reason = Withheld, why
				}
			}
		} else if why, ok := pk.Pending[f.Name]; ok {
			r.Class, r.Reason = Missing, fmt.Sprintf("package %s %s", name, why)
		} else if c, ok := pk.Offered[f.Name]; ok {
			r.Class, r.Context = Installable, c
			if why, bad := pk.Unreadable[c]; bad {
				r.Class, r.Reason = Missing, fmt.Sprintf("registry context %s cannot be read: %s", safetext.Quote(c), why)
			}
		} else {
			r.Class = Unknown
			r.Reason = fmt.Sprintf("no installed package and no registry context is named %s", name)
		}
		out[i] = r
	}
	return out
}

func withheld(p Package, rel string) (string, bool) {
	if p.Withheld == nil {
		return "", false
	}
	return p.Withheld(rel)
}

// docExists reports, as an error saying why not, whether package p has the
// document rel; roots caches each package's opened folder.
func docExists(roots map[string]*os.Root, p Package, rel string) error {
	if err := naming.CheckServedPath(rel); err != nil {
		return fmt.Errorf("not a document path: %w", err)
	}
	if p.Only != "" && rel != p.Only {
		return fmt.Errorf("package %s is the one file %s", safetext.Quote(p.Alias), safetext.Quote(p.Only))
	}
	root, ok := roots[p.Alias]
	if !ok {
		root, _ = os.OpenRoot(p.Dir)
		roots[p.Alias] = root
	}
	if root == nil {
		return fmt.Errorf("the folder of package %s cannot be opened: run `ctx install`", safetext.Quote(p.Alias))
	}
	fi, err := root.Stat(filepath.FromSlash(rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("package %s has no %s", safetext.Quote(p.Alias), safetext.Quote(rel))
	case err != nil:
		return fmt.Errorf("package %s: %s: %w", safetext.Quote(p.Alias), safetext.Quote(rel), err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("package %s: %s is not a file", safetext.Quote(p.Alias), safetext.Quote(rel))
	}
	return nil
}
