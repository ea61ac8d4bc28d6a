// Command gebench compares gitengine with native git on a large repository
// served over smart HTTP on 127.0.0.1. bench/gitengine/run.sh drives it.
//
//	gebench gen DIR FILES BYTES            write FILES generated text files (about BYTES in all) under DIR
//	gebench materialize URL COMMIT PATH DEST CACHE
//	                                       one gitengine.Materialize; prints bytes received and files
//	gebench run -root R -repo NAME -src S -folder F [-runs N]
//	                                       serve R, time native git and gebench materialize, then an update
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/gittest"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gebench gen|materialize|run ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "materialize":
		err = materialize(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gebench:", err)
		os.Exit(1)
	}
}

var words = strings.Fields(`the a of to and in is for on that with as by this be are from or it an
at not can your will use when which if has have more each all one only new file folder package index
token budget search registry commit tree blob fetch cache lock update install remote branch tag server
client request response context document section heading chunk markdown agent model query result`)

// gen writes deterministic pseudo-random markdown: n files, total about size bytes.
func gen(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("usage: gen DIR FILES BYTES")
	}
	n, err1 := strconv.Atoi(args[1])
	size, err2 := strconv.ParseInt(args[2], 10, 64)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("FILES and BYTES must be numbers")
	}
	rng := rand.New(rand.NewSource(42))
	per := size / int64(n)
	for i := 0; i < n; i++ {
		dir := filepath.Join(args[0], fmt.Sprintf("area%02d", i%40), fmt.Sprintf("topic%03d", (i/40)%50))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("page%05d.md", i)))
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		fmt.Fprintf(w, "# Page %d\n\n", i)
		var written int64
		for written < per {
			// Mix words with random hex so packs do not compress to nothing.
			line := fmt.Sprintf("%s %s %x %s %s %x\n", words[rng.Intn(len(words))], words[rng.Intn(len(words))],
				rng.Uint64(), words[rng.Intn(len(words))], words[rng.Intn(len(words))], rng.Uint32())
			n, _ := w.WriteString(line)
			written += int64(n)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

func materialize(args []string) error {
	if len(args) != 5 {
		return fmt.Errorf("usage: materialize URL COMMIT PATH DEST CACHE")
	}
	e := gitengine.New(gitengine.Options{CacheDir: args[4], Warn: func(_, m string) { fmt.Fprintln(os.Stderr, "warning:", m) }})
	res, err := e.Materialize(context.Background(), gitengine.FetchRequest{URL: args[0], Commit: args[1], Path: args[2], Ref: "master"}, args[3])
	if err != nil {
		return err
	}
	fmt.Printf("bytes=%d files=%d\n", res.Bytes, len(res.Files))
	return nil
}

// measure is one timed command.
type measure struct {
	wall  time.Duration
	rssKB int64
	bytes int64
}

// timed runs argv under /usr/bin/time -v and returns wall time and peak RSS.
func timed(env []string, dir string, argv ...string) (measure, error) {
	cmd := exec.Command("/usr/bin/time", append([]string{"-v"}, argv...)...)
	cmd.Env = env
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return measure{}, fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, out)
	}
	var m measure
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "Maximum resident set size (kbytes): "); ok {
			m.rssKB, _ = strconv.ParseInt(v, 10, 64)
		}
		if v, ok := strings.CutPrefix(line, "Elapsed (wall clock) time (h:mm:ss or m:ss): "); ok {
			m.wall = parseClock(v)
		}
	}
	return m, nil
}

func parseClock(s string) time.Duration {
	parts := strings.Split(s, ":")
	var d float64
	for _, p := range parts {
		v, _ := strconv.ParseFloat(p, 64)
		d = d*60 + v
	}
	return time.Duration(d * float64(time.Second))
}

func add(ms ...measure) measure {
	var t measure
	for _, m := range ms {
		t.wall += m.wall
		t.bytes += m.bytes
		t.rssKB = max(t.rssKB, m.rssKB)
	}
	return t
}

func median(ms []measure) measure {
	pick := func(less func(a, b measure) bool) measure {
		c := append([]measure(nil), ms...)
		sort.Slice(c, func(i, j int) bool { return less(c[i], c[j]) })
		return c[len(c)/2]
	}
	return measure{
		wall:  pick(func(a, b measure) bool { return a.wall < b.wall }).wall,
		rssKB: pick(func(a, b measure) bool { return a.rssKB < b.rssKB }).rssKB,
		bytes: pick(func(a, b measure) bool { return a.bytes < b.bytes }).bytes,
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	root := fs.String("root", "", "folder holding the bare repository")
	repo := fs.String("repo", "big.git", "repository name under root")
	src := fs.String("src", "", "work tree of the repository (for the update commit)")
	folder := fs.String("folder", "", "sub-path to install")
	runs := fs.Int("runs", 3, "runs of each cold install")
	work := fs.String("work", "", "scratch folder")
	if err := fs.Parse(args); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	srv, err := gittest.Serve(*root, gittest.ServeOptions{})
	if err != nil {
		return err
	}
	defer srv.Close()
	url := srv.URL + "/" + *repo
	home := filepath.Join(*work, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	env := gittest.Env(home)
	bare := filepath.Join(*root, *repo)
	commit, err := gittest.Git(bare, "rev-parse", "HEAD")
	if err != nil {
		return err
	}

	native := func(dir string) (measure, error) {
		srv.ResetCounters()
		m1, err := timed(env, *work, "git", "clone", "-q", "--filter=blob:none", "--depth", "1", "--sparse", url, dir)
		if err != nil {
			return measure{}, err
		}
		m2, err := timed(env, dir, "git", "sparse-checkout", "set", "--no-cone", "/"+*folder+"/")
		if err != nil {
			return measure{}, err
		}
		t := add(m1, m2)
		t.bytes = srv.BytesSent()
		return t, nil
	}
	engine := func(commit, dest, cache string) (measure, error) {
		srv.ResetCounters()
		m, err := timed(env, *work, self, "materialize", url, commit, *folder, dest, cache)
		m.bytes = srv.BytesSent()
		return m, err
	}

	var nat, eng []measure
	for i := 0; i < *runs; i++ {
		m, err := native(filepath.Join(*work, fmt.Sprintf("native%d", i)))
		if err != nil {
			return err
		}
		nat = append(nat, m)
		m, err = engine(commit, filepath.Join(*work, fmt.Sprintf("engine%d", i)), filepath.Join(*work, fmt.Sprintf("cache%d", i)))
		if err != nil {
			return err
		}
		eng = append(eng, m)
		fmt.Fprintf(os.Stderr, "run %d: native %v %d B %d KB | gitengine %v %d B %d KB\n", i,
			nat[i].wall, nat[i].bytes, nat[i].rssKB, eng[i].wall, eng[i].bytes, eng[i].rssKB)
	}
	warm, err := engine(commit, filepath.Join(*work, "engine-warm"), filepath.Join(*work, "cache0"))
	if err != nil {
		return err
	}

	// Update: change one file in the folder upstream.
	files, err := gittest.Git(*src, "ls-files", *folder)
	if err != nil {
		return err
	}
	one := strings.Split(files, "\n")[0]
	f, err := os.OpenFile(filepath.Join(*src, one), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(f, "\nupdated at %s\n", time.Now().UTC().Format(time.RFC3339Nano))
	f.Close()
	if _, err := gittest.Git(*src, "commit", "-q", "-am", "bench: one change"); err != nil {
		return err
	}
	if _, err := gittest.Git(*src, "push", "-q", bare, "HEAD:master"); err != nil {
		return err
	}
	newCommit, _ := gittest.Git(bare, "rev-parse", "HEAD")

	srv.ResetCounters()
	nd := filepath.Join(*work, "native0")
	u1, err := timed(env, nd, "git", "fetch", "-q", "--depth", "1", "origin", "master")
	if err != nil {
		return err
	}
	u2, err := timed(env, nd, "git", "reset", "-q", "--hard", "FETCH_HEAD")
	if err != nil {
		return err
	}
	natUpd := add(u1, u2)
	natUpd.bytes = srv.BytesSent()
	engUpd, err := engine(newCommit, filepath.Join(*work, "engine-update"), filepath.Join(*work, "cache0"))
	if err != nil {
		return err
	}

	n, g := median(nat), median(eng)
	fmt.Printf("| measure | native git | gitengine | ratio |\n|---|---|---|---|\n")
	fmt.Printf("| cold install, wall (median of %d) | %.2f s | %.2f s | %.2f× |\n", *runs, n.wall.Seconds(), g.wall.Seconds(), g.wall.Seconds()/n.wall.Seconds())
	fmt.Printf("| cold install, bytes sent by server | %d | %d | %.2f× |\n", n.bytes, g.bytes, float64(g.bytes)/float64(n.bytes))
	fmt.Printf("| cold install, peak RSS | %d MB | %d MB | %.2f× |\n", n.rssKB/1024, g.rssKB/1024, float64(g.rssKB)/float64(n.rssKB))
	fmt.Printf("| second install, warm cache: bytes | – | %d | |\n", warm.bytes)
	fmt.Printf("| update after one file change: bytes | %d | %d | %.2f× |\n", natUpd.bytes, engUpd.bytes, float64(engUpd.bytes)/float64(natUpd.bytes))
	fmt.Printf("| update bytes / first install bytes | %.2f%% | %.2f%% | |\n", 100*float64(natUpd.bytes)/float64(n.bytes), 100*float64(engUpd.bytes)/float64(g.bytes))
	fmt.Printf("| update, wall | %.2f s | %.2f s | |\n", natUpd.wall.Seconds(), engUpd.wall.Seconds())
	return nil
}
