// Package prewalk starts the freshness check's stats before main: in a
// `ctx search` process the inits of the linked packages take ~6 ms of one
// core (bleve's scorch alone 2.4 ms) and main's own start (the command
// tree, the project, the manifest, lock and catalogue) a few more, while
// the second core idles; the check's ~7,300 stats, a search's largest
// part, then shared both cores with the search itself. This package
// imports nothing heavier than fileid, boundedfile and the walk record's
// format (walkrec), so Go initialises it before bleve's packages, and its init
// starts a goroutine that reads the walk record of the project the
// working folder is in and stats, through fileid.Batch, the folders and
// documents it lists: the check (the indexer's freshWalks) takes what it
// stat'ed (Take) and stats the rest itself, each file once.
//
// Nothing here decides anything: a result is a file's stat data taken
// after the process started, as the check's own would be, and the
// indexer uses it only when the record it read is the one the check's
// own project has (the same index folder, the record of this version)
// and the package folder is the one the check walks; else it is dropped
// and the check stats as before.
package prewalk

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctx-dev/ctx/indexer/walkrec"
	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/internal/gcstart"
)

// The names of the project's index folder and its walk record, the
// indexer's (project.DirName, project.IndexDir, the indexer's
// walkRecordFile: a test holds them equal): a guess of where the
// project is, which the check's own project, found by its rules, must
// confirm (Take).
const (
	contextDir = ".context"
	indexDir   = "index"
	recordFile = "walks.bin"
)

// MaxRecordBytes bounds the record's read, as the indexer bounds every
// file of its index (its maxIndexFileBytes: a test holds them equal).
const MaxRecordBytes = 1 << 30

// Walk is what the early walk read and stats.
type Walk struct {
	// IndexDir is the index folder whose walk record it read.
	IndexDir string
	// Header and Recs are the record as walkrec.Decode read it.
	Header string
	Recs   map[string]walkrec.Rec
	// Seen and Docs are, per alias, the batch of the record's folders
	// and .gitignore files (in Seen's order; one above the package is
	// "", not stat'ed) and of its documents, under the package folder
	// its key names (walkrec.KeyDir), for the aliases whose folder is in
	// the project (inProject; the others have none).
	Seen, Docs map[string]*fileid.Batch
}

// Walker is one early walk, started by Start.
type Walker struct {
	ready chan *Walk
	walk  func() *Walk
	taken atomic.Bool
}

// early is the walk init started, in a `ctx search` process.
var early *Walker

func init() {
	if dir, ok := searchStart(os.Args[1:]); ok {
		// The walk allocates (the record, the batches' results) while the
		// packages are initialised, which alone nearly fill Go's first
		// heap goal: without this a collection came in the middle of the
		// inits (main sets it again, once a process).
		gcstart.Defer()
		early = Start(dir)
	}
}

// searchStart reads a command line (the arguments after the program's
// name) as cmd/ctx will: whether it is `ctx search`, and the folder it
// starts in, -C DIR (--chdir DIR, -CDIR, -C=DIR, --chdir=DIR) before the
// command, "" for the working folder. A guess, which costs only the
// walk's work when wrong (Take): a -C after the command, or any other
// flag before it, is not guessed at (no early walk).
func searchStart(args []string) (string, bool) {
	dir := ""
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "search":
			for _, b := range args[1:] {
				if strings.HasPrefix(b, "-C") || strings.HasPrefix(b, "--chdir") {
					return "", false
				}
			}
			return dir, true
		case a == "-C" || a == "--chdir":
			if len(args) < 2 {
				return "", false
			}
			dir, args = args[1], args[2:]
		case strings.HasPrefix(a, "--chdir="):
			dir, args = a[len("--chdir="):], args[1:]
		case strings.HasPrefix(a, "-C"):
			dir, args = strings.TrimPrefix(a[2:], "="), args[1:]
		default:
			return "", false
		}
	}
	return "", false
}

// Start starts an early walk from the folder dir (relative to the working
// folder; "" is the working folder): a goroutine reads the walk record of the first folder from dir up
// whose .context/index holds one, then stats its packages' folders and
// documents, all of the first package, then the next.
func Start(dir string) *Walker {
	k := &Walker{ready: make(chan *Walk, 1)}
	k.walk = sync.OnceValue(func() *Walk { return <-k.ready })
	go func() {
		w := find(dir)
		k.ready <- w
		if w == nil {
			return
		}
		for _, a := range slices.Sorted(maps.Keys(w.Seen)) {
			w.Seen[a].Run()
		}
		for _, a := range slices.Sorted(maps.Keys(w.Docs)) {
			w.Docs[a].Run()
		}
	}()
	return k
}

// Take hands over the walk init started (Walker.Take), when it did.
func Take(indexDir string) *Walk {
	if early == nil {
		return nil
	}
	return early.Take(indexDir)
}

// Take hands over k's walk to the first caller when it read the record of
// indexDir; else nil, and a first caller of another index folder stops
// it (the check's own project is not the one guessed: the walk's work is
// lost, and no more of it is done). It waits for the record's read, not
// for the stats (the batches' Wait).
func (k *Walker) Take(indexDir string) *Walk {
	w := k.walk()
	if w == nil || !k.taken.CompareAndSwap(false, true) {
		return nil
	}
	if w.IndexDir != indexDir {
		for _, a := range slices.Sorted(maps.Keys(w.Seen)) {
			w.Seen[a].Stop()
			w.Docs[a].Stop()
		}
		return nil
	}
	return w
}

// find reads the walk record of the first folder from dir (relative to
// the working folder) up whose .context/index holds one, and makes its batches; nil when
// there is none or it cannot be read.
func find(dir string) *Walk {
	if !filepath.IsAbs(dir) {
		wd, err := os.Getwd()
		if err != nil {
			return nil
		}
		dir = filepath.Join(wd, dir) // -C DIR, as cmd/ctx reads it when no link is on the way
	}
	for {
		idx := filepath.Join(dir, contextDir, indexDir)
		// As the indexer reads it (readIndexFile): a fifo, a link to a
		// device or a sparse file of terabytes is no record, not a wait
		// for ever or the end of memory.
		if b, err := boundedfile.ReadFile(filepath.Join(idx, recordFile), MaxRecordBytes); err == nil {
			header, recs, err := walkrec.Decode(b)
			if err != nil {
				return nil
			}
			w := &Walk{IndexDir: idx, Header: header, Recs: recs, Seen: map[string]*fileid.Batch{}, Docs: map[string]*fileid.Batch{}}
			for a, r := range recs {
				root := walkrec.KeyDir(r.Key)
				if !inProject(dir, root) {
					continue // the check stats it, if its key is its package's
				}
				seen := make([]string, len(r.Seen))
				for i, s := range r.Seen {
					if !s.Above {
						seen[i] = s.Path
					}
				}
				w.Seen[a], w.Docs[a] = fileid.NewBatch(root, seen), fileid.NewBatch(root, r.Docs)
			}
			return w
		} else if _, err := os.Lstat(filepath.Join(dir, contextDir)); err == nil {
			return nil // a project with no record: the check walks in full
		}
		up := filepath.Dir(dir)
		if up == dir {
			return nil
		}
		dir = up
	}
}

// inProject reports whether root, a package folder a record names, is a
// clean absolute path inside project (the folder holding the record's
// .context/): an installed package's folder (.context/packages/ALIAS) or
// a dir source in the project. The record is a file in the project, which
// a repository can carry: the early walk, which stats before the check
// compares a record's folder with its package's (the key), stats no
// folder it names elsewhere (a network share, an automounted /net/host);
// a package folder outside the project is stat'ed by the check itself.
func inProject(project, root string) bool {
	if !filepath.IsAbs(root) || filepath.Clean(root) != root {
		return false
	}
	rel, err := filepath.Rel(project, root)
	return err == nil && filepath.IsLocal(rel)
}
