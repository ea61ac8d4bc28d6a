package indexer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/gofrs/flock"
)

// Concurrency between processes
//
// One writer at a time: Sync holds an exclusive flock on index/.write.lock for
// its whole run (a second Sync waits for it, or gives up when its context
// ends). Readers never take that lock.
//
// A full build (first run, --rebuild, schema change) writes a new directory
// bleve-<gen+1> that no reader knows yet, then switches meta.json to it with
// an atomic rename and deletes the old directory (unless a reader is opening
// it right now: see removeBleveDir); readers are never blocked by a rebuild,
// and one that still has the old directory open keeps reading it (the files
// stay alive until it closes them).
//
// An incremental Sync opens the live directory read-write. Bleve's scorch
// takes a bolt flock on root.bolt (exclusive for a writer, shared for
// read-only opens), and Linux flock lets new shared holders in while an
// exclusive one waits, so a busy reader could starve the writer. Hence the
// marker index/.writing: Sync creates it before opening the live directory
// and removes it after closing it. A Reader that sees the marker (and the
// write lock held: a marker left by a crashed writer is ignored) closes its
// handle after the current call and waits for the marker to go before
// opening again. Readers open the index read-only, keep it for at most
// readerIdleClose after a call, and check meta.json (one stat) before every
// call: a new generation makes them reopen. So no process waits on another
// for longer than one query, or one incremental batch; bolt timeouts
// (writerBoltTimeout, readerBoltTimeout) turn anything unforeseen into an
// error instead of a hang.

const (
	writerBoltTimeout = 30 * time.Second
	batchBytes        = 4 << 20 // flush a bleve batch at about this much text
	batchDocs         = 2000
)

// Sync brings the search index, the catalogue and INDEX.md in line with the
// packages on disk: only changed files are re-indexed; packages not in pkgs
// are dropped. Safe to call while readers (ctx search, ctx mcp) in other
// processes are open: they see the new data on their next query.
func Sync(ctx context.Context, contextDir string, pkgs []Package, opts Options) (*SyncReport, error) {
	warn := opts.Warn
	if warn == nil {
		warn = func(string) {}
	}
	budget := opts.BudgetTokens
	if budget <= 0 {
		budget = DefaultBudgetTokens
	}
	pkgs = slices.Clone(pkgs)
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Alias < pkgs[j].Alias })
	for i, p := range pkgs {
		if p.Alias == "" || p.Alias == "." || p.Alias == ".." || strings.ContainsAny(p.Alias, `/\`+"\x00") {
			return nil, fmt.Errorf("indexer: invalid package alias %q: an alias is one path element", p.Alias)
		}
		if i > 0 && pkgs[i-1].Alias == p.Alias {
			return nil, fmt.Errorf("indexer: package alias %q given twice", p.Alias)
		}
	}

	// Every write and delete goes through d, which refuses to pass through a
	// symbolic link (bleve writes by path: the directories handed to it are
	// checked first).
	d := confine.New(contextDir)
	indexDir := filepath.Join(contextDir, "index")
	if err := d.MkdirAll(indexDir, 0o755); err != nil {
		return nil, fmt.Errorf("indexer: create index directory: %w", err)
	}
	if err := d.Check(filepath.Join(indexDir, lockFile)); err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	lock := flock.New(filepath.Join(indexDir, lockFile))
	ok, err := lock.TryLock()
	if err != nil {
		return nil, fmt.Errorf("indexer: lock %s: %w", indexDir, err)
	}
	if !ok {
		warn("waiting for another ctx process that is updating " + indexDir + " …")
		if ok, err = lock.TryLockContext(ctx, 50*time.Millisecond); !ok || err != nil {
			if err == nil {
				err = ctx.Err()
			}
			return nil, fmt.Errorf("indexer: wait for another ctx updating %s: %w", indexDir, err)
		}
	}
	defer lock.Unlock()

	var m meta
	if err := readJSON(filepath.Join(indexDir, metaFile), &m); err != nil && !errors.Is(err, fs.ErrNotExist) {
		warn(fmt.Sprintf("%v; rebuilding the index", err))
		m = meta{}
	}
	var cat catalog
	if err := readJSON(filepath.Join(indexDir, catalogFile), &cat); err != nil && !errors.Is(err, fs.ErrNotExist) {
		warn(fmt.Sprintf("%v; rebuilding the index", err))
		cat = catalog{}
	}
	rep := &SyncReport{}
	rebuild := opts.Rebuild || m.Schema != schemaVersion || cat.Schema != schemaVersion || m.Bleve == "" || m.Dirty
	if m.Bleve != "" && !bleveDirRE.MatchString(m.Bleve) {
		warn(fmt.Sprintf("%s names %q as the search index, not one ctx makes; rebuilding the index", filepath.Join(indexDir, metaFile), m.Bleve))
		m, rebuild = meta{}, true
	}
	if !rebuild {
		if _, err := os.Stat(filepath.Join(indexDir, m.Bleve, "index_meta.json")); err != nil {
			rebuild = true
		}
	}
	if rebuild {
		cat.Files = nil
		rep.Rebuilt = true
	}
	if cat.Files == nil {
		cat.Files = map[string][]fileRecord{}
	}

	// Find what changed: stat only; files whose size, mtime, ctime and inode match the
	// catalogue are not read.
	type job struct {
		alias, rel, abs string
		size, modNS     int64
		st              fileStat
		old             *fileRecord
	}
	var jobs []job
	newFiles := map[string][]fileRecord{} // alias → unchanged records
	var deletes []string                  // bleve ids to delete
	for _, p := range pkgs {
		old := map[string]*fileRecord{}
		for i := range cat.Files[p.Alias] {
			r := &cat.Files[p.Alias][i]
			old[r.Path] = r
		}
		root := filepath.Join(contextDir, "packages", p.Alias)
		seen := map[string]bool{}
		found, err := walkMarkdown(root, warn)
		if isNotExist(err) {
			warn(fmt.Sprintf("packages/%s: not installed (run `ctx install`); indexed as empty", p.Alias))
		} else if err != nil {
			return nil, fmt.Errorf("indexer: scan packages/%s: %w", p.Alias, err)
		}
		for _, f := range found {
			seen[f.rel] = true
			j := job{alias: p.Alias, rel: f.rel, abs: f.abs, size: f.size, modNS: f.modNS, st: f, old: old[f.rel]}
			if j.old != nil && f.unchanged(j.old) {
				newFiles[p.Alias] = append(newFiles[p.Alias], *j.old)
				continue
			}
			jobs = append(jobs, j)
		}
		for path, r := range old {
			if !seen[path] {
				rep.Removed++
				for i := 0; i < r.Chunks; i++ {
					deletes = append(deletes, chunkID(p.Alias, path, i))
				}
			}
		}
	}
	inPkgs := map[string]bool{}
	for _, p := range pkgs {
		inPkgs[p.Alias] = true
	}
	for alias, recs := range cat.Files {
		if inPkgs[alias] {
			continue
		}
		for _, r := range recs {
			rep.Removed++
			for i := 0; i < r.Chunks; i++ {
				deletes = append(deletes, chunkID(alias, r.Path, i))
			}
		}
	}

	// Read, hash and parse the candidates in parallel; index as results come.
	type result struct {
		j       job
		rec     fileRecord
		docs    []chunkDoc
		same    bool // content hash unchanged
		warning []string
		err     error
	}
	jobCh := make(chan job)
	resCh := make(chan result, 64)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobCh {
				r := result{j: j}
				r.rec, r.docs, r.same, r.warning, r.err = processFile(j.alias, j.rel, j.abs, j.size, j.modNS, j.old)
				r.rec.CNS, r.rec.Ino = j.st.cns, j.st.ino
				select {
				case resCh <- r:
				case <-wctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobCh)
		for _, j := range jobs {
			select {
			case jobCh <- j:
			case <-wctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(resCh) }()

	var idx bleve.Index
	newDir := m.Bleve
	markerPath := filepath.Join(indexDir, writingMarker)
	openIndex := func() error {
		if idx != nil {
			return nil
		}
		if rebuild {
			newDir = fmt.Sprintf("bleve-%d", m.Generation+1)
			p := filepath.Join(indexDir, newDir)
			if err := d.RemoveAll(p); err != nil {
				return err
			}
			i, err := bleve.NewUsing(p, newMapping(), scorch.Name, scorch.Name, map[string]any{})
			if err != nil {
				return err
			}
			idx = i
			return nil
		}
		// Tell readers to let go of the live directory (see
		// Reader.waitForWriter), then wait for their bolt locks.
		if err := d.Check(filepath.Join(indexDir, m.Bleve)); err != nil {
			return err
		}
		if err := d.WriteFile(markerPath, nil, 0o644); err != nil {
			return err
		}
		i, err := bleve.OpenUsing(filepath.Join(indexDir, m.Bleve), map[string]any{"bolt_timeout": writerBoltTimeout.String()})
		if err != nil {
			d.Remove(markerPath)
			return fmt.Errorf("open %s for writing (a reader kept it open for %v): %w", m.Bleve, writerBoltTimeout, err)
		}
		idx = i
		return nil
	}
	defer d.Remove(markerPath)
	fail := func(err error) (*SyncReport, error) {
		cancel()
		for range resCh {
		}
		if idx != nil {
			idx.Close()
			if rebuild {
				d.RemoveAll(filepath.Join(indexDir, newDir))
			}
		}
		return nil, err
	}
	if rebuild || len(deletes) > 0 || len(jobs) > 0 {
		if err := openIndex(); err != nil {
			return fail(fmt.Errorf("indexer: %w (run `ctx index --rebuild` if it persists)", err))
		}
	}
	var batch *bleve.Batch
	pending := 0
	flush := func() error {
		if batch == nil || batch.Size() == 0 {
			return nil
		}
		if err := idx.Batch(batch); err != nil {
			return fmt.Errorf("indexer: write search index: %w", err)
		}
		batch.Reset()
		pending = 0
		return nil
	}
	markedDirty := false
	if idx != nil && !rebuild {
		markedDirty = true
		// Until this Sync finishes, the live directory may hold changes
		// the catalogue does not describe.
		dm := m
		dm.Dirty = true
		if err := writeJSONAtomic(d, filepath.Join(indexDir, metaFile), dm); err != nil {
			return fail(fmt.Errorf("indexer: write %s: %w", metaFile, err))
		}
	}
	if idx != nil {
		batch = idx.NewBatch()
		for _, id := range deletes {
			batch.Delete(id)
		}
	}
	changed := len(deletes) > 0
	for r := range resCh {
		if r.err != nil {
			warn(fmt.Sprintf("packages/%s/%s: %v; skipped", r.j.alias, r.j.rel, r.err))
			if r.j.old != nil {
				for i := 0; i < r.j.old.Chunks; i++ {
					batch.Delete(chunkID(r.j.alias, r.j.rel, i))
				}
				changed = true
			}
			continue
		}
		for _, w := range r.warning {
			warn(w)
		}
		newFiles[r.j.alias] = append(newFiles[r.j.alias], r.rec)
		if r.same {
			rep.Unchanged++
			continue
		}
		changed = true
		if r.j.old == nil {
			rep.Added++
		} else {
			rep.Updated++
			for i := len(r.docs); i < r.j.old.Chunks; i++ {
				batch.Delete(chunkID(r.j.alias, r.j.rel, i))
			}
		}
		for i := range r.docs {
			if err := batch.Index(chunkID(r.j.alias, r.j.rel, i), &r.docs[i]); err != nil {
				return fail(fmt.Errorf("indexer: index packages/%s/%s: %w", r.j.alias, r.j.rel, err))
			}
			pending += len(r.docs[i].Text)
		}
		if pending >= batchBytes || batch.Size() >= batchDocs {
			if err := flush(); err != nil {
				return fail(err)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return fail(fmt.Errorf("indexer: %w", err))
	}
	if idx != nil {
		if err := flush(); err != nil {
			return fail(err)
		}
		err := idx.Close()
		idx = nil
		d.Remove(markerPath)
		if err != nil {
			return fail(fmt.Errorf("indexer: close search index: %w", err))
		}
	}
	rep.Unchanged = countRecords(newFiles) - rep.Added - rep.Updated

	// The catalogue, then meta.json (which switches readers), then INDEX.md.
	for alias := range newFiles {
		sort.Slice(newFiles[alias], func(i, j int) bool { return newFiles[alias][i].Path < newFiles[alias][j].Path })
	}
	newCat := catalog{Schema: schemaVersion, Packages: pkgs, Files: newFiles}
	var tokens int64
	for _, r := range newFiles {
		for _, f := range r {
			rep.Chunks += f.Chunks
			tokens += f.Tokens
		}
	}
	pkgsChanged := !slices.Equal(cat.Packages, pkgs)

	// INDEX.md: rendered only when what it is made of (or the budget)
	// changed, or it is missing.
	target := filepath.Join(contextDir, "INDEX.md")
	newCat.IndexMD = indexMDState{Input: indexInputHash(pkgs, newFiles, budget)}
	_, statErr := os.Stat(target)
	if statErr == nil && cat.IndexMD.Input == newCat.IndexMD.Input {
		newCat.IndexMD = cat.IndexMD
	} else {
		md, info := renderIndex(pkgs, newFiles, budget)
		newCat.IndexMD.Tokens, newCat.IndexMD.Degraded = info.Tokens, info.Degraded
		if cur, err := os.ReadFile(target); err != nil || string(cur) != md {
			if err := writeFileAtomic(d, target, []byte(md)); err != nil {
				return nil, fmt.Errorf("indexer: write INDEX.md: %w", err)
			}
		}
	}
	rep.IndexTokens, rep.Degraded = newCat.IndexMD.Tokens, newCat.IndexMD.Degraded

	// The catalogue, then meta.json (which switches readers).
	if rebuild || changed || pkgsChanged || len(jobs) > 0 || newCat.IndexMD != cat.IndexMD {
		if err := writeJSONAtomic(d, filepath.Join(indexDir, catalogFile), newCat); err != nil {
			return nil, fmt.Errorf("indexer: write catalogue: %w", err)
		}
	}
	if changed || rebuild || pkgsChanged || markedDirty {
		old := m.Bleve
		m = meta{Schema: schemaVersion, Generation: m.Generation + 1, Bleve: newDir, BuiltAt: time.Now().UTC(), Chunks: rep.Chunks, Tokens: tokens}
		if err := writeJSONAtomic(d, filepath.Join(indexDir, metaFile), m); err != nil {
			return nil, fmt.Errorf("indexer: write %s: %w", metaFile, err)
		}
		if rebuild && old != "" && old != newDir {
			removeBleveDir(d, indexDir, old)
		}
	}
	removeStaleDirs(d, indexDir, m.Bleve)
	return rep, nil
}

// indexInputHash identifies everything INDEX.md is rendered from.
func indexInputHash(pkgs []Package, files map[string][]fileRecord, budget int) string {
	h := sha256.New()
	fmt.Fprintf(h, "schema %d budget %d\n", schemaVersion, budget)
	for _, p := range pkgs {
		fmt.Fprintf(h, "pkg %q %q %q %q %q\n", p.Alias, p.Source, p.Path, p.Ref, p.Commit)
		for _, r := range files[p.Alias] {
			fmt.Fprintf(h, "%q %q %q %q\n", r.Path, r.Title, r.Summary, r.Skipped)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func countRecords(m map[string][]fileRecord) int {
	n := 0
	for _, r := range m {
		n += len(r)
	}
	return n
}

// removeStaleDirs deletes bleve directories left by interrupted builds or
// kept because a Reader was opening them, and their lock files.
func removeStaleDirs(d confine.Dir, indexDir, live string) {
	ents, err := os.ReadDir(indexDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() && strings.HasPrefix(name, ".bleve-") && strings.HasSuffix(name, ".lock") {
			name = strings.TrimSuffix(strings.TrimPrefix(name, "."), ".lock")
		} else if !e.IsDir() || !strings.HasPrefix(name, "bleve-") {
			continue
		}
		if name != live {
			removeBleveDir(d, indexDir, name)
		}
	}
}

// processFile reads, hashes and (when its content changed) parses one file.
func processFile(alias, rel, abs string, size, modNS int64, old *fileRecord) (rec fileRecord, docs []chunkDoc, same bool, warnings []string, err error) {
	rec = fileRecord{Path: rel, Size: size, ModNS: modNS}
	name := "packages/" + alias + "/" + rel
	if size > maxFileSize {
		rec.Skipped = skipReason(size, nil)
		rec.Hash = fmt.Sprintf("size:%d", size)
		if old != nil && old.Skipped == rec.Skipped {
			return rec, nil, true, nil, nil
		}
		return rec, nil, false, []string{fmt.Sprintf("%s: %s; not indexed", name, rec.Skipped)}, nil
	}
	content, err := os.ReadFile(abs)
	if err != nil {
		return rec, nil, false, nil, err
	}
	sum := sha256.Sum256(content)
	rec.Hash = hex.EncodeToString(sum[:16])
	if old != nil && old.Hash == rec.Hash {
		r := *old
		r.Size, r.ModNS = size, modNS
		return r, nil, true, nil, nil
	}
	if why := skipReason(int64(len(content)), content); why != "" {
		rec.Skipped = why
		return rec, nil, false, []string{fmt.Sprintf("%s: %s; not indexed", name, why)}, nil
	}
	p := parseMarkdown(name, content, func(s string) { warnings = append(warnings, s) })
	rec.Title, rec.Summary, rec.Tags, rec.Type, rec.Lines = p.Title, p.Summary, p.Tags, p.Type, p.Lines
	rec.Chunks = len(p.Chunks)
	docs = make([]chunkDoc, len(p.Chunks))
	for i, c := range p.Chunks {
		extra := ""
		if i == 0 && p.summaryFromFM {
			extra = p.Summary
		}
		text, prefix := searchText(p.Title, c, extra)
		rec.Tokens += fieldLength(text)
		docs[i] = chunkDoc{
			Text:    text,
			Pkg:     alias,
			Path:    rel,
			Tags:    p.Tags,
			Heading: strings.Join(c.Trail, " > "),
			Lines:   formatLines(c.Start, c.End, prefix),
		}
	}
	return rec, docs, false, warnings, nil
}
