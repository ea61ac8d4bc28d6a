package indexer

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/fileid"
)

// fileStat is one markdown file found under a package directory.
type fileStat struct {
	rel   string // slash-separated, inside the package
	abs   string
	size  int64
	modNS int64
	cns   int64  // inode change time, 0 where the system has none
	ino   uint64 // inode number
}

// unchanged reports whether f's stat data is what r recorded. Size and
// mtime alone can be set back (touch -r, cp -p, rsync -t, editors);
// ctime and inode cannot.
func (f fileStat) unchanged(r *fileRecord) bool {
	return f.size == r.Size && f.modNS == r.ModNS && f.cns == r.CNS && f.ino == r.Ino
}

// walkMarkdown lists the documents under root (markdown.Walk: regular
// markdown files, hidden files and folders skipped, symbolic links never
// followed) with their size and mtime, sorted by path. The files are
// stat'ed by a few goroutines: on a package of thousands of files the
// system calls, not Go, are the cost. A missing root gives fs.ErrNotExist;
// folders that cannot be read are reported through warn and skipped.
func walkMarkdown(root string, warn func(string)) ([]fileStat, error) {
	rels, err := markdown.Walk(os.DirFS(root), func(dir string, err error) {
		warn(filepath.Join(root, filepath.FromSlash(dir)) + ": " + err.Error() + "; skipped")
	})
	if err != nil {
		return nil, err
	}
	files := make([]fileStat, len(rels))
	for i, rel := range rels {
		files[i] = fileStat{rel: rel, abs: filepath.Join(root, filepath.FromSlash(rel))}
	}

	const workers = 4
	var wg sync.WaitGroup
	missing := make([]bool, len(files))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(files); i += workers {
				fi, err := os.Lstat(files[i].abs)
				if err != nil || !fi.Mode().IsRegular() {
					missing[i] = true // removed or replaced since the directory was read
					continue
				}
				files[i].size, files[i].modNS = fi.Size(), fi.ModTime().UnixNano()
				files[i].cns, files[i].ino = fileid.Change(fi)
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
	return out, nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
