// Command live measures the live index of ctx mcp (issue 13): how long an
// edit to an installed file takes to reach searches, and what the server
// costs while idle.
//
// It lays out each folder of -corpus as an installed package of a project
// in -work (a lock written with lockfiletest.Write, the index built with
// indexer.Sync), starts the MCP server in process (an in-memory client), and
// then, -edits times, rewrites one document in place with a new word and
// times until it is found:
//
//   - with no call: a second index reader (as `ctx search` in another
//     process would) polls every 2 ms; only the server's watch re-indexes;
//   - by the next search: the client calls search every 2 ms right after
//     the write.
//
// Last it measures the process's CPU time over -idle seconds with the
// server started and nothing happening, against the same span before the
// server started.
//
//	go -C bench run ./live -corpus /work/shared/corpus -work /tmp/ctx-live-bench
//
// -dirsource edits the one document of a dir source instead; with -summary
// each edit changes that document's summary, so that INDEX.md must be
// rendered again (an edit at the end of a document leaves INDEX.md as it is).
package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/benchmcp"
	"github.com/ctx-dev/ctx/lockfile/lockfiletest"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/mcpserver"
	"github.com/ctx-dev/ctx/project"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/bench/internal/loadavg"
)

func main() {
	corpus := flag.String("corpus", "/work/shared/corpus", "folder whose sub-folders become the installed packages")
	work := flag.String("work", "", "project folder to use (default: a new temp dir, removed after)")
	edits := flag.Int("edits", 20, "edits to time, per way")
	idle := flag.Int("idle", 10, "seconds of idle time to measure the CPU of")
	dirSource := flag.Bool("dirsource", false, "edit the one document of a dir source (./notes, live) next to the installed corpus, instead of installed documents")
	summary := flag.Bool("summary", false, "with -dirsource: each edit rewrites the document's first paragraph (its summary in INDEX.md, which must then be rendered again) instead of adding a paragraph at its end")
	flag.Parse()
	if *summary && !*dirSource {
		log.Fatal("-summary needs -dirsource")
	}
	if err := run(*corpus, *work, *edits, *idle, *dirSource, *summary); err != nil {
		log.Fatal(err)
	}
}

func run(corpus, work string, edits, idle int, dirSource, summary bool) error {
	if work == "" {
		d, err := os.MkdirTemp("", "ctx-live-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		work = d
	}
	fmt.Println("machine:", machine())
	desc, docs, err := installCorpus(corpus, work, dirSource)
	if err != nil {
		return err
	}
	if dirSource {
		docs = docs[len(docs)-1:] // the dir source's one document
		desc += "; edits go to the one document of a dir source"
		if summary {
			desc += " and change its summary (INDEX.md is rendered again)"
		}
	}
	fmt.Println("corpus:", desc)
	runtime.GC()
	time.Sleep(time.Second)
	base := cpu()
	time.Sleep(time.Duration(idle) * time.Second)
	baseline := cpu() - base

	ctx := context.Background()
	srv, err := mcpserver.New(mcpserver.Options{ProjectDir: work, Log: os.Stderr})
	if err != nil {
		return err
	}
	defer srv.Close()
	cs, closeSession, err := benchmcp.InMemory(ctx, srv, "bench")
	if err != nil {
		return err
	}
	defer closeSession()
	if _, err := search(ctx, cs, "ownership"); err != nil { // opens the index, starts the watch
		return err
	}
	rd, err := indexer.OpenReader(filepath.Join(work, project.DirName))
	if err != nil {
		return err
	}
	defer rd.Close()

	var noCall, nextSearch []time.Duration
	for i := range 2 * edits {
		doc := docs[i%len(docs)]
		word := fmt.Sprintf("zqxlive%04d", i)
		data, err := os.ReadFile(doc.file)
		if err != nil {
			return err
		}
		edited := append(data, []byte("\n\n"+word+"\n")...)
		if summary {
			edited = []byte("# Notes\n\nThe team's notes, " + word + ".\n")
		}
		start := time.Now()
		if err := os.WriteFile(doc.file, edited, 0o644); err != nil {
			return err
		}
		for {
			var found bool
			if i%2 == 0 {
				hits, err := rd.Search(ctx, indexer.Query{Text: word})
				if err != nil {
					return err
				}
				found = len(hits) > 0
			} else {
				n, err := search(ctx, cs, word)
				if err != nil {
					return err
				}
				found = n > 0
			}
			if found {
				break
			}
			if time.Since(start) > time.Minute {
				return fmt.Errorf("edit %d (%s) not found after a minute", i, doc.rel)
			}
			time.Sleep(2 * time.Millisecond)
		}
		d := time.Since(start)
		if i%2 == 0 {
			noCall = append(noCall, d)
		} else {
			nextSearch = append(nextSearch, d)
		}
		time.Sleep(300 * time.Millisecond) // let the watch settle before the next edit
	}
	fmt.Println("| measurement | n | min | p50 | p95 | max |")
	fmt.Println("|---|---|---|---|---|---|")
	row("edit in place → in the index, no call (watch: settle + incremental re-index)", noCall)
	row("edit in place → found by searches called every 2 ms", nextSearch)

	runtime.GC()
	time.Sleep(time.Second)
	before := cpu()
	time.Sleep(time.Duration(idle) * time.Second)
	used := cpu() - before
	fmt.Printf("idle CPU over %d s: %v with the server and its watch running; %v in the same process before the server started\n",
		idle, used.Round(time.Millisecond), baseline.Round(time.Millisecond))
	return nil
}

func search(ctx context.Context, cs *mcp.ClientSession, q string) (int, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": q}})
	if err != nil {
		return 0, err
	}
	if res.IsError {
		return 0, fmt.Errorf("search %q: %v", q, res.Content)
	}
	m, _ := res.StructuredContent.(map[string]any)
	hits, _ := m["hits"].([]any)
	return len(hits), nil
}

type doc struct{ file, rel string }

// installCorpus lays out each corpus folder as a package, writes the lock and
// builds the index; it returns a description and some documents to edit.
func installCorpus(corpus, proj string, dirSource bool) (string, []doc, error) {
	ctxDir := filepath.Join(proj, project.DirName)
	entries, err := os.ReadDir(corpus)
	if err != nil {
		return "", nil, err
	}
	if err := os.MkdirAll(ctxDir, 0o755); err != nil {
		return "", nil, err
	}
	manifest := `{"index":{},"packages":[]}`
	if dirSource {
		manifest = `{"index":{},"packages":[{"alias":"notes","kind":"dir","source":"./notes"}]}`
		if err := os.MkdirAll(filepath.Join(proj, "notes"), 0o755); err != nil {
			return "", nil, err
		}
		if err := os.WriteFile(filepath.Join(proj, "notes", "notes.md"), []byte("# Notes\n\nThe team's notes.\n"), 0o644); err != nil {
			return "", nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(ctxDir, project.ManifestName), []byte(manifest), 0o644); err != nil {
		return "", nil, err
	}
	lock := &lockfile.Lock{Version: lockfile.Version, Packages: map[string]lockfile.Entry{}}
	var docs []doc
	files := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		alias := e.Name()
		dst := filepath.Join(ctxDir, project.PackagesDir, alias)
		err := filepath.WalkDir(filepath.Join(corpus, alias), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(filepath.Join(corpus, alias), p)
			if d.IsDir() {
				if d.Name() == ".git" {
					return fs.SkipDir
				}
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			if !d.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files++
			if strings.HasSuffix(p, ".md") && len(docs) < 200 && files%7 == 0 {
				docs = append(docs, doc{filepath.Join(dst, rel), alias + "/" + rel})
			}
			return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
		})
		if err != nil {
			return "", nil, err
		}
		sum := sha256.Sum256([]byte(alias))
		lock.Packages[alias] = lockfile.Entry{Source: "file://" + filepath.Join(corpus, alias), Ref: "main",
			Rev: strings.Repeat("0", 40), Tree: strings.Repeat("0", 40), Hash: "h1:" + base64.StdEncoding.EncodeToString(sum[:]),
			Updated: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	}
	if len(docs) == 0 {
		return "", nil, fmt.Errorf("no markdown documents under %s", corpus)
	}
	if err := lockfiletest.WriteInstalled(ctxDir, lock); err != nil {
		return "", nil, err
	}
	proj2, err := project.At(proj)
	if err != nil {
		return "", nil, err
	}
	m, err := proj2.ReadManifest()
	if err != nil {
		return "", nil, err
	}
	if dirSource {
		docs = append(docs, doc{filepath.Join(proj, "notes", "notes.md"), "notes/notes.md"})
	}
	start := time.Now()
	rep, err := indexer.Sync(context.Background(), ctxDir, proj2.Installed(m, lock), indexer.Options{})
	if err != nil {
		return "", nil, fmt.Errorf("indexing the corpus: %w", err)
	}
	return fmt.Sprintf("%d packages, %d files, %d documents, %d chunks (full index build %s)",
		len(lock.Packages), files, rep.Added, rep.Chunks, time.Since(start).Round(time.Millisecond)), docs, nil
}

func row(name string, ds []time.Duration) {
	slices.Sort(ds)
	q := func(f float64) time.Duration { return ds[min(len(ds)-1, int(f*float64(len(ds))))] }
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/1e6) }
	fmt.Printf("| %s | %d | %s | %s | %s | %s |\n", name, len(ds), ms(ds[0]), ms(q(0.5)), ms(q(0.95)), ms(ds[len(ds)-1]))
}

// cpu is the user and system CPU time of this process so far.
func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func machine() string {
	cpuName := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "model name") {
				cpuName = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
				break
			}
		}
	}
	return fmt.Sprintf("%s/%s, %d CPUs (%s), %s, load before: %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpuName, runtime.Version(), loadavg.String())
}
