// Command scale measures ctx as the corpus grows: at 1×, 3× and 10× the
// shared corpus (about 20,000, 60,000 and 200,000 chunks), and with 100
// and 1,000 packages.
//
//	go -C bench run ./scale [-corpus /work/shared/corpus] [-scales 1,3,10] [-skip install,many] [-out out]
//
// At each scale it lays out a project (not timed): every package cut from
// the corpus (the sub-folders of k8s-keps, rust-book, tldr-common's pages
// by first letter) and generated packages of 150 documents whose words are
// drawn from the corpus's own word counts (a Zipf-like vocabulary: the
// 50,000 most frequent words), with headings, paragraphs, lists and code
// blocks of realistic lengths, until the generated headings reach
// (scale-1) × the corpus's chunks. Then, each a part -skip can leave out:
//
//   - build: a full index build in a child process (this program again),
//     its time and peak RSS (ru_maxrss: the kernel's VmHWM);
//   - incr: a Sync after one file changed (median of 5);
//   - indexmd: a Sync whose only change is INDEX.md's budget (so it is
//     rendered again), next to a no-change Sync, and whether INDEX.md kept
//     within its budget (median of 6);
//   - search: 200 searches on one in-process Reader, p50 and p95;
//   - mcp: 200 search calls to `ctx mcp` on stdio (the real binary), p50 and p95.
//
// Once, not per scale:
//
//   - many: `ctx list`, `ctx status`, `ctx verify` in a project of 1,000
//     installed packages (median of 3);
//   - install: `ctx install --frozen` of 100 packages from a lock (fresh
//     clone, cold cache) against native git one after another (-rounds,
//     alternating), with the HTTP requests of each and the CPU time of
//     each with the server's (the git http-backend processes are this
//     program's children), and a no-op `ctx update` of the 100 (median
//     of 5).
//
// -searchonly DIR times searches by query length on a project already
// built (a kept -work's x10): bench/mcp's queries of one to four words,
// then 25 queries of each length from 5 to 12 words, each group -rounds
// times, with p50, p95 and CPU time per search. Two binaries run on the
// same DIR in turn compare two versions of the search.
//
// When every per-scale part is skipped, no project is laid out at any
// scale (-skip build,incr,indexmd,search,mcp,many runs only install).
//
// Every server is git http-backend on 127.0.0.1; nothing reaches the
// internet. It writes scale.md (the tables and the goals at 10×) and
// scale.png (build time, peak RSS and search p95 against chunks) into -out,
// and prints scale.md.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/bench/internal/loadavg"
	"github.com/ctx-dev/ctx/bench/internal/prof"
	"github.com/ctx-dev/ctx/project"
)

// corpusChunks is about the chunks of the corpus, used to size the
// generated part until a 1× build has measured it.
const corpusChunks = 20500

// scaleRow is what was measured at one scale.
type scaleRow struct {
	scale    int
	desc     string
	build    buildResult
	incr     time.Duration
	md       indexMDResult
	search   []time.Duration
	mcp      []time.Duration
	measured map[string]bool
}

func main() {
	childDir := flag.String("child-build", "", "internal: run a full build of this project and report it (the child process)")
	corpus := flag.String("corpus", "/work/shared/corpus", "the corpus: folders of markdown")
	scalesFlag := flag.String("scales", "1,3,10", "scales to measure, comma-separated")
	skipFlag := flag.String("skip", "", "parts to skip, comma-separated: build, incr, indexmd, search, mcp, many, install")
	work := flag.String("work", "", "work directory, reused between runs (default: a new temp dir, deleted after)")
	outDir := flag.String("out", "out", "where scale.md and scale.png go")
	ctxBin := flag.String("ctx", "", "ctx binary (default: go build ./cmd/ctx into the work dir)")
	nq := flag.Int("queries", 200, "searches per measurement")
	vecDims := flag.String("vectors", "", "also, per scale, stub vectors of these `DIMS` (comma-separated, e.g. 384,768) for every chunk, and lexical against hybrid search (issue 28); off when empty")
	rounds := flag.Int("rounds", 3, "install: alternating rounds of ctx and native git")
	budget := flag.Int("budget", 8000, "INDEX.md budget in tokens")
	searchOnly := flag.String("searchonly", "", "only time searches by query length (1-4 words, then 5 to 12) on the project `DIR` already built (say, -work's x10), -rounds passes, and print them; with -vectors, only lexical against hybrid search (-queries of each) with the vectors a -vectors run left there")
	cpuprofile := flag.String("cpuprofile", "", "with -searchonly: write a CPU profile of the searches to `FILE`")
	cold := flag.Int("cold", 0, "with -searchonly: also time -queries short queries on one Reader as the full run does, and `N` searches each on a new Reader (its index opened, as a server's after an idle pause), CPU a search and page faults")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("scale: ")
	if *searchOnly != "" {
		defer prof.CPU(*cpuprofile)()
		if *vecDims != "" {
			// The project's vectors.bin, already made by a -vectors run
			// (stub vectors of one of these dimensions): hybrid against
			// lexical only.
			for _, d := range strings.Split(*vecDims, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(d))
				if err != nil || n < 1 {
					log.Fatalf("-vectors: %q is not a whole number ≥ 1 (example: -vectors 384,768)", d)
				}
				vr, err := hybridSearches(vectorsResult{dims: n}, *searchOnly, *nq)
				if err != nil {
					log.Fatalf("-searchonly -vectors %d: %v (the project's vectors.bin must be a -vectors %d run's)", n, err, n)
				}
				fmt.Printf("%s, load %s\n", vr, loadavg.String())
			}
			return
		}
		if err := searchByLength(*searchOnly, *rounds); err != nil {
			log.Fatal(err)
		}
		if *cold > 0 {
			if err := searchCold(*searchOnly, *nq, *cold); err != nil {
				log.Fatal(err)
			}
		}
		return
	}
	if *childDir != "" {
		if err := childBuild(*childDir); err != nil {
			log.Fatal(err)
		}
		return
	}
	var scales []int
	for _, f := range strings.Split(*scalesFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			log.Fatalf("-scales: %q is not a whole number ≥ 1 (example: -scales 1,3,10)", f)
		}
		scales = append(scales, n)
	}
	slices.Sort(scales)
	skip := map[string]bool{}
	known := []string{"build", "incr", "indexmd", "search", "mcp", "many", "install"}
	for _, f := range strings.Split(*skipFlag, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if !slices.Contains(known, f) {
			log.Fatalf("-skip: unknown part %q; the parts are %s", f, strings.Join(known, ", "))
		}
		skip[f] = true
	}
	if *work == "" {
		d, err := os.MkdirTemp("", "ctx-scale-")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(d)
		*work = d
	}
	bin := *ctxBin
	if bin == "" && (!skip["mcp"] || !skip["many"] || !skip["install"]) {
		bin = filepath.Join(*work, "ctx")
		cmd := exec.Command("go", "build", "-o", bin, "github.com/ctx-dev/ctx/cmd/ctx")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			log.Fatalf("building ctx (run from the module root): %v", err)
		}
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		log.Fatal(err)
	}
	started := machine()

	pkgs, err := cutCorpus(*corpus)
	if err != nil {
		log.Fatalf("corpus %s: %v (give the corpus with -corpus)", *corpus, err)
	}
	v, err := buildVocab(*corpus, 50000)
	if err != nil {
		log.Fatal(err)
	}
	base := corpusChunks
	var rows []scaleRow
	perScale := false
	for _, part := range []string{"build", "incr", "indexmd", "search", "mcp"} {
		perScale = perScale || !skip[part]
	}
	perScale = perScale || strings.TrimSpace(*vecDims) != ""
	if !perScale {
		scales = nil // nothing to measure at a scale: no project, no index
	}
	for _, s := range scales {
		row := scaleRow{scale: s, measured: map[string]bool{}}
		dir := filepath.Join(*work, fmt.Sprintf("x%d", s))
		start := time.Now()
		if row.desc, err = scaleProject(dir, s, base, pkgs, v); err != nil {
			log.Fatal(err)
		}
		progress("%d×: %s (laid out in %v)", s, row.desc, time.Since(start).Round(time.Second))
		// The later parts need an index: built here even when build is
		// skipped, unless it is skipped and -work holds one already.
		if _, serr := os.Stat(filepath.Join(dir, project.DirName, project.IndexDir, "meta.json")); !skip["build"] || serr != nil {
			if row.build, err = fullBuild(dir); err != nil {
				log.Fatal(err)
			}
		}
		row.measured["build"] = !skip["build"]
		if s == 1 {
			base = row.build.Chunks
		}
		progress("%d×: build %d ms, %d chunks, peak RSS %d MB", s, row.build.Ms, row.build.Chunks, row.build.RSSMB)
		if !skip["incr"] {
			if row.incr, err = incremental(dir, 5); err != nil {
				log.Fatal(err)
			}
			row.measured["incr"] = true
		}
		if !skip["indexmd"] {
			if row.md, err = indexMD(dir, *budget, 6); err != nil {
				log.Fatal(err)
			}
			row.measured["indexmd"] = true
		}
		if !skip["search"] {
			if row.search, err = searchInProcess(dir, *nq); err != nil {
				log.Fatal(err)
			}
			row.measured["search"] = true
		}
		for _, d := range strings.Split(*vecDims, ",") {
			if d = strings.TrimSpace(d); d == "" {
				continue
			}
			n, err := strconv.Atoi(d)
			if err != nil || n < 1 {
				log.Fatalf("-vectors: %q is not a dimension", d)
			}
			vr, err := vectorsPart(dir, n, *nq)
			if err != nil {
				log.Fatal(err)
			}
			progress("%d×: %s", s, vr)
		}
		if !skip["mcp"] {
			if row.mcp, err = searchMCP(bin, dir, *nq); err != nil {
				log.Fatal(err)
			}
			row.measured["mcp"] = true
		}
		progress("%d×: done (load %s)", s, loadavg.String())
		rows = append(rows, row)
	}
	var many *manyResult
	if !skip["many"] {
		r, err := manyPackages(*work, bin, v, 1000, 3)
		if err != nil {
			log.Fatal(err)
		}
		many = &r
		progress("1,000 packages: list %v, status %v, verify %v", r.list, r.status, r.verify)
	}
	var inst *installResult
	if !skip["install"] {
		r, err := installVsNative(*work, bin, v, 100, *rounds)
		if err != nil {
			log.Fatal(err)
		}
		inst = &r
		progress("100 packages: ctx %v (%d requests, CPU with the server's %v), native %v (%d requests, CPU %v), no-op update %v", r.ctx, r.ctxRequests, r.ctxCPU, r.native, r.nativeRequests, r.nativeCPU, r.noop)
	}
	md := report(started, machine(), *budget, *nq, rows, many, inst)
	if err := os.WriteFile(filepath.Join(*outDir, "scale.md"), []byte(md), 0o644); err != nil {
		log.Fatal(err)
	}
	if len(rows) > 0 {
		if err := plotRows(filepath.Join(*outDir, "scale.png"), rows); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Print(md)
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "scale: "+format+"\n", args...)
}

func machine() string {
	cpu := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "model name") {
				cpu = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
				break
			}
		}
	}
	mem := ""
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		if f := strings.Fields(string(data)); len(f) > 1 {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			mem = fmt.Sprintf(", %.0f GiB", float64(kb)/(1<<20))
		}
	}
	return fmt.Sprintf("%s, %d vCPUs (%s)%s, %s, load %s", time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.NumCPU(), cpu, mem, runtime.Version(), loadavg.String())
}
