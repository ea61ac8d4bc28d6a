package indexer

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

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

// walkMarkdown lists the regular markdown files under root with their size
// and mtime, sorted by path. Symbolic links are never followed; hidden
// files and folders (.git, .github) are skipped. Directories are read unsorted and the files are
// stat'ed by a few goroutines: on a package of thousands of files the
// system calls, not Go, are the cost. A missing root gives fs.ErrNotExist;
// other unreadable entries are reported through warn and skipped.
func walkMarkdown(root string, warn func(string)) ([]fileStat, error) {
	if _, err := os.Lstat(root); err != nil {
		return nil, err
	}
	var files []fileStat
	var walk func(dir, rel string)
	walk = func(dir, rel string) {
		f, err := os.Open(dir)
		if err != nil {
			warn(dir + ": " + err.Error() + "; skipped")
			return
		}
		ents, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			warn(dir + ": " + err.Error() + "; skipped")
		}
		for _, e := range ents {
			name := e.Name()
			r := name
			if rel != "" {
				r = rel + "/" + name
			}
			switch {
			case name[0] == '.':
				// Hidden files and folders (.git, .github, ...) are never
				// indexed, as ctx mcp never serves them.
			case e.IsDir():
				walk(filepath.Join(dir, name), r)
			case e.Type().IsRegular() && isMarkdown(name):
				files = append(files, fileStat{rel: r, abs: filepath.Join(dir, name)})
			}
		}
	}
	walk(root, "")

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
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out, nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
