package indexer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/project"
)

// fileStat is one document found under a package directory.
type fileStat struct {
	rel   string // slash-separated, inside the package
	abs   string
	size  int64
	modNS int64
	cns   int64      // inode change time, 0 where the system has none
	ino   uint64     // inode number
	kep   *sideStamp // the kep.yaml beside a README.md (see KEPMetaFile); nil when none
	// bundle is the bundle page (_index.md, index.md) of the document's
	// folder, read with it (bundleOf); nil when none. bundlePage is its
	// path (the page whose title the document may take), "" when none.
	bundle     *sideStamp
	bundlePage string
}

// sideStamp is the stat data of a file read with a document (a README's
// kep.yaml): a change to it re-reads the document.
type sideStamp struct {
	Size  int64  `json:"size"`
	ModNS int64  `json:"mtime"`
	CNS   int64  `json:"ctime,omitempty"`
	Ino   uint64 `json:"ino,omitempty"`
}

// sideOf is the stamp of a side file as fileid.Lstat or Tree.Lstat gave
// it: nil when there is none or it is not a regular file (a symbolic link
// is not followed).
func sideOf(s fileid.Stamp, regular bool, err error) *sideStamp {
	if err != nil || !regular {
		return nil
	}
	return &sideStamp{Size: s.Size, ModNS: s.MTime, CNS: s.CTime, Ino: s.Ino}
}

func (s sideStamp) stamp() fileid.Stamp {
	return fileid.Stamp{Size: s.Size, MTime: s.ModNS, CTime: s.CNS, Ino: s.Ino}
}

// unchanged reports whether f's stat data is what r recorded, its own
// and its side files' (kep.yaml, bundle page) (internal/fileid's Same:
// size and mtime alone can be set back by touch -r, cp -p, rsync -t,
// editors; ctime and inode cannot).
func (f fileStat) unchanged(r *fileRecord) bool {
	own := fileid.Stamp{Size: f.size, MTime: f.modNS, CTime: f.cns, Ino: f.ino}
	return own.Same(fileid.Stamp{Size: r.Size, MTime: r.ModNS, CTime: r.CNS, Ino: r.Ino}) &&
		sameSide(f.kep, r.KEP) && sameSide(f.bundle, r.Bundle)
}

// sameSide reports whether two stamps of a side file are the same: both
// none, or the same stat data.
func sameSide(a, b *sideStamp) bool {
	return (a == nil) == (b == nil) && (a == nil || a.stamp().Same(b.stamp()))
}

// walkMarkdown lists the documents under root (markdown.Walk: regular
// files with a document extension, hidden files and folders skipped,
// symbolic links never followed) with their size and mtime, sorted by path. The files are
// stat'ed by a few goroutines: on a package of thousands of files the
// system calls, not Go, are the cost. A missing root gives fs.ErrNotExist;
// folders that cannot be read are reported through warn and skipped.
func walkMarkdown(root string, o markdown.WalkOptions, warn func(string)) ([]fileStat, error) {
	found, err := markdown.WalkInfo(os.DirFS(root), o, func(dir string, err error) {
		warn(filepath.Join(root, filepath.FromSlash(dir)) + ": " + err.Error() + "; skipped")
	})
	if err != nil {
		return nil, err
	}
	files := make([]fileStat, len(found))
	for i, f := range found {
		files[i] = fileStat{rel: f.Path, abs: filepath.Join(root, filepath.FromSlash(f.Path))}
	}
	return statFiles(root, files, found), nil
}

// statFiles fills in the stat data of files (their rel and abs set,
// sorted by rel, under root), a few goroutines at a time, and returns
// those still regular files, in order. found, when not nil, is the walk
// that found them: the stat data it read are taken as they are. The
// others are stat'ed from the open root (fileid.Tree, one a goroutine:
// the kernel looks up the names below root only; a one-file update walks
// its package twice, issue 31), unless they are too few to pay for the
// root's open and close.
func statFiles(root string, files []fileStat, found []markdown.Found) []fileStat {
	const workers, least = 4, 16 // least: files a goroutine stats for a Tree to pay
	byTree := len(files) >= workers*least
	var wg sync.WaitGroup
	missing := make([]bool, len(files))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			tr := fileid.NewTree(root)
			defer tr.Close()
			for i := w; i < len(files); i += workers {
				// The walk's own stat data when it read them (a dir
				// source's walk, for its bound on bytes): a second
				// Lstat of each file was a third of a search's time.
				var s fileid.Stamp
				regular, err := false, error(nil)
				if found != nil && found[i].Info != nil {
					s, regular = fileid.Of(found[i].Info), found[i].Info.Mode().IsRegular()
				} else {
					if byTree {
						s, regular, err = tr.Lstat(files[i].rel)
					} else {
						s, regular, err = fileid.Lstat(files[i].abs)
					}
				}
				if err != nil || !regular {
					missing[i] = true // removed or replaced since the directory was read
					continue
				}
				files[i].size, files[i].modNS, files[i].cns, files[i].ino = s.Size, s.MTime, s.CTime, s.Ino
			}
		}(w)
	}
	wg.Wait()
	out := files[:0]
	for i, f := range files {
		if !missing[i] {
			out = append(out, f)
		}
	}
	side := func(p string) *sideStamp {
		return sideOf(fileid.Lstat(filepath.Join(root, filepath.FromSlash(p))))
	}
	sideStamps(out, side)
	return out
}

// sideStamps gives each document of files (sorted by rel) the stamps of
// its side files: the kep.yaml beside a README.md (kepOf: most are
// documents too, just stat'ed, a tenth of the stats of a tree of KEPs;
// the others are stat'ed by stat, given the kep.yaml's rel, nil when
// there is none) and its folder's bundle page among files (bundleStamps).
func sideStamps(files []fileStat, stat func(rel string) *sideStamp) {
	rel := func(k int) string { return files[k].rel }
	listed := func(k int) (*sideStamp, bool) {
		return &sideStamp{Size: files[k].size, ModNS: files[k].modNS, CNS: files[k].cns, Ino: files[k].ino}, true
	}
	for i := range files {
		files[i].kep = kepOf(i, len(files), rel, listed, stat)
	}
	bundleStamps(files)
}

// kepOf is the one rule of which kep.yaml belongs to a document: for the
// i-th of n documents sorted by path (rel(i)), when it is a README.md (in
// any case), the stamp of the kep.yaml beside it, else nil. The stamp is
// listed(k)'s when the kep.yaml is the k-th document and listed has it,
// else stat's (given the kep.yaml's rel), nil when there is none.
func kepOf(i, n int, rel func(int) string, listed func(k int) (*sideStamp, bool), stat func(kep string) *sideStamp) *sideStamp {
	r := rel(i)
	if !strings.EqualFold(path.Base(r), "README.md") {
		return nil
	}
	kep := path.Join(path.Dir(r), KEPMetaFile)
	if k := sort.Search(n, func(k int) bool { return rel(k) >= kep }); k < n && rel(k) == kep {
		if s, ok := listed(k); ok {
			return s
		}
	}
	return stat(kep)
}

// WalkOptions are the rules of pkg's walk: none for a locked package (its
// files are what its source holds), a dir source's own (its .gitignore
// files and, inside the project, the project's above it; its bounds) for a
// dir source. The MCP server lists a package's
// documents with the same options.
func WalkOptions(pkg Package) markdown.WalkOptions {
	if pkg.Kind != project.KindDir {
		return markdown.WalkOptions{}
	}
	o := markdown.WalkOptions{Gitignore: true, MaxFiles: pkg.MaxFiles, MaxBytes: pkg.MaxBytes}
	if pkg.Tracked != nil {
		o.Keep = pkg.Tracked.Has
	}
	if rel, err := filepath.Rel(pkg.Project, pkg.Dir); pkg.Project != "" && err == nil && rel != "." {
		o.Above = &markdown.Above{FS: os.DirFS(pkg.Project), Path: filepath.ToSlash(rel)}
	}
	return o
}

// walkPackage lists pkg's documents: walkMarkdown of pkg.Dir (seen, when
// not nil, told what the walk read: markdown.WalkOptions.Seen), or, for a
// single-file package (pkg.Only), that one file when it is a document
// (markdown.IsDocument) and a regular file (a symbolic link is not
// followed). A missing file or folder gives fs.ErrNotExist. held is how
// many documents git does not track the walk held back (a committed dir
// source's, project.Tracked): not warned about here, the caller says it
// (heldBack), so that the freshness check can record it and say it again
// from its walk record without a walk (walkrecord.go).
func walkPackage(ctx context.Context, pkg Package, warn func(string), seen func(markdown.Seen)) (found []fileStat, held int, err error) {
	if pkg.Only == "" {
		o := WalkOptions(pkg)
		o.Seen, o.Context = seen, ctx
		held := 0
		if keep := o.Keep; keep != nil {
			o.Keep = func(rel string) bool {
				if keep(rel) {
					return true
				}
				held++
				return false
			}
		}
		found, err := walkMarkdown(pkg.Dir, o, warn)
		if err != nil {
			held = 0
		}
		return found, held, err
	}
	f := fileStat{rel: pkg.Only, abs: filepath.Join(pkg.Dir, pkg.Only)}
	fi, err := os.Lstat(f.abs)
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() || !markdown.IsDocument(pkg.Only) {
		return nil, 0, nil
	}
	f.size, f.modNS = fi.Size(), fi.ModTime().UnixNano()
	f.cns, f.ino = fileid.Change(fi)
	return []fileStat{f}, 0, nil
}

// heldBack is the one warning of a committed dir source whose documents
// git does not track (project.Tracked): how many the walk held back, and
// the two ways to serve them.
func heldBack(pkg Package, n int) string {
	docs := "documents"
	if n == 1 {
		docs = "document"
	}
	return fmt.Sprintf("%s: %d %s git does not track held back (the committed manifest names this source: only tracked files are served); `git add` them, or serve all its files: `ctx install --allow-outside %s`",
		pkg.Alias, n, docs, pkg.Alias)
}

// walkedPackage is one package's walk (walkPackage): its documents, the
// error, the notes the walk gave, in order, and how many documents it
// held back (said after the notes: heldBack).
type walkedPackage struct {
	found []fileStat
	err   error
	notes []string
	held  int
	// stamp is partStamp(found) when found is not kept (found is then
	// nil): the freshness check's documents stat'ed from the walk record
	// (statDocs). Only filesMatch reads either.
	stamp string
}

// packageWalkers is how many packages walkPackages walks at a time.
const packageWalkers = 4

// walkPackages walks every package of pkgs (walkPackage), a few at a time:
// on a project of hundreds of packages, walking one after another left
// the other CPUs idle during most of a Sync that changes little. The
// results are in the order of pkgs; a package carried names is not
// walked: its walk is carried's.
func walkPackages(pkgs []Package, carried map[string]walkedPackage) []walkedPackage {
	out := make([]walkedPackage, len(pkgs))
	eachPackage(len(pkgs), func(i int) {
		w := &out[i]
		if c, ok := carried[pkgs[i].Alias]; ok {
			*w = c
			return
		}
		w.found, w.held, w.err = walkPackage(context.Background(), pkgs[i], func(s string) { w.notes = append(w.notes, s) }, nil)
	})
	return out
}

// eachPackage calls f(0) … f(n-1), packageWalkers at a time.
func eachPackage(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, packageWalkers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// label names pkg's files in notes: packages/<alias> for a locked package,
// its source as the manifest gives it for a dir source.
func label(pkg Package) string {
	if pkg.Kind == project.KindDir {
		return pkg.Source
	}
	return project.PackagesDir + "/" + pkg.Alias
}

// sameIdentity reports whether a and b pin the same content: everything but
// Dir, which moves with the project (a clone elsewhere indexes the same
// packages). A dir package's content is pinned by nothing: its files' stat
// data and hashes are compared instead.
func sameIdentity(a, b Package) bool {
	a.Dir, b.Dir = "", ""
	a.Project, b.Project = "", ""
	a.Tracked, b.Tracked = nil, nil
	if a.Kind == "" {
		a.Kind = project.KindGit
	}
	if b.Kind == "" {
		b.Kind = project.KindGit
	}
	return a == b
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
