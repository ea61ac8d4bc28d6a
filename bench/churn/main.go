// Command churn-bench measures `ctx update` of one package of many files
// after one file changed upstream (issues 18 and 31), with two ctx
// binaries and native git side by side: each ctx gets its own project and
// object cache, native git its own shallow clone (`git clone --depth 1`
// of the repository's file:// URL, then per round `git fetch --depth 1
// origin main` and `git reset --hard FETCH_HEAD`: what git does to bring
// a checkout to the new commit, with no index of documents), all of the
// same local repository, and the rounds rotate which one runs first.
//
//	go build -o /tmp/ctx-before ./cmd/ctx   # at the commit to compare with
//	go build -o /tmp/ctx-after ./cmd/ctx
//	go -C bench run ./churn -before /tmp/ctx-before -after /tmp/ctx-after
//
// Per update it reports the wall time, the CPU time (user + system, from
// the process's rusage; native git's is fetch's and reset's with their
// children), the bytes the process passed to write(2) (wchar of
// /proc/PID/io, read before the process is reaped: the stage, the state,
// the lock, the index; ctx only), the bytes it sent to the storage layer
// (write_bytes: what it dirtied in the page cache; ctx only), and how many
// files of the package folder it rewrote (a new inode or mtime); and the
// load average (1 minute) over the run, since the machine is shared. -before
// may be left out. Linux only; needs git.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ctx-dev/ctx/bench/internal/loadavg"
)

func main() {
	before := flag.String("before", "", "the ctx binary to compare with (`PATH`; optional)")
	after := flag.String("after", "", "the ctx binary under test (`PATH`)")
	files := flag.Int("files", 500, "files in the package")
	rounds := flag.Int("rounds", 10, "updates per binary")
	flag.Parse()
	if *after == "" {
		log.Fatal("give -after, and -before to compare with (see the doc comment)")
	}
	work, err := os.MkdirTemp("", "ctx-churn-bench-*")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)

	up := filepath.Join(work, "upstream")
	for i := range *files {
		write(filepath.Join(up, "docs", fmt.Sprintf("part%d", i%10), fmt.Sprintf("page%03d.md", i)),
			fmt.Sprintf("# Page %d\n\n%s\n", i, strings.Repeat("Some documentation text. ", 80)))
	}
	git(up, "init", "-q", "-b", "main")
	git(up, "add", "-A")
	git(up, "commit", "-q", "-m", "initial")

	type side struct {
		name, bin, proj, cache string
		wall, cpu              []time.Duration
		wchar, wbytes          int64
		rewritten              int
	}
	var sides []*side
	if *before != "" {
		sides = append(sides, &side{name: "before", bin: *before})
	}
	sides = append(sides, &side{name: "after", bin: *after}, &side{name: "native"})
	for _, s := range sides {
		s.proj, s.cache = filepath.Join(work, s.name), filepath.Join(work, s.name+"-cache")
		if s.bin == "" {
			git(work, "clone", "-q", "--depth", "1", "file://"+up, s.proj)
			continue
		}
		if err := os.MkdirAll(s.proj, 0o755); err != nil {
			log.Fatal(err)
		}
		ctx(s.bin, s.cache, "-C", s.proj, "init")
		ctx(s.bin, s.cache, "-C", s.proj, "add", up, "--path", "docs", "--alias", "docs")
	}
	loadMin, loadMax := 1e9, 0.0
	for r := range *rounds {
		page := filepath.Join(up, "docs", "part3", fmt.Sprintf("page%03d.md", 10*(r%50)+3))
		write(page, fmt.Sprintf("# Page, edition %d\n\n%s\n", r, strings.Repeat("Other text. ", 160)))
		git(up, "commit", "-q", "-am", "one change")
		l := loadavg.Minute()
		loadMin, loadMax = min(loadMin, l), max(loadMax, l)
		order := append(sides[r%len(sides):len(sides):len(sides)], sides[:r%len(sides)]...)
		for _, s := range order {
			pkg := filepath.Join(s.proj, ".context", "packages", "docs")
			var wall, cpu time.Duration
			var wchar, wbytes int64
			if s.bin == "" {
				pkg = filepath.Join(s.proj, "docs")
			}
			was := idents(pkg)
			if s.bin == "" {
				w1, c1, _, _ := run(s.proj, nil, "git", "fetch", "-q", "--depth", "1", "origin", "main")
				w2, c2, _, _ := run(s.proj, nil, "git", "reset", "-q", "--hard", "FETCH_HEAD")
				wall, cpu = w1+w2, c1+c2
			} else {
				wall, cpu, wchar, wbytes = ctx(s.bin, s.cache, "-C", s.proj, "update")
			}
			s.wall = append(s.wall, wall)
			s.cpu = append(s.cpu, cpu)
			s.wchar += wchar
			s.wbytes += wbytes
			now := idents(pkg)
			for p, id := range now {
				if was[p] != id {
					s.rewritten++
				}
			}
			if len(now) != *files {
				log.Fatalf("%s: %d files after the update, want %d", s.name, len(now), *files)
			}
		}
	}
	fmt.Printf("%d rounds: `ctx update` of a %d-file package, 1 file changed upstream; native: git fetch --depth 1 + reset --hard; load average %.1f–%.1f\n", *rounds, *files, loadMin, loadMax)
	fmt.Printf("%-7s %10s %10s %10s %10s %14s %14s %10s\n", "side", "wall p50", "wall min", "wall max", "CPU p50", "wchar/update", "written/update", "rewritten")
	for _, s := range sides {
		slices.Sort(s.wall)
		slices.Sort(s.cpu)
		n := int64(len(s.wall))
		fmt.Printf("%-7s %10v %10v %10v %10v %14d %14d %10.1f\n", s.name, s.wall[len(s.wall)/2].Round(time.Millisecond),
			s.wall[0].Round(time.Millisecond), s.wall[len(s.wall)-1].Round(time.Millisecond), s.cpu[len(s.cpu)/2].Round(time.Millisecond),
			s.wchar/n, s.wbytes/n, float64(s.rewritten)/float64(n))
	}
}

// ctx runs bin with args and CTX_CACHE=cache (run).
func ctx(bin, cache string, args ...string) (wall, cpu time.Duration, wchar, wbytes int64) {
	return run("", []string{"CTX_CACHE=" + cache}, bin, args...)
}

// run runs bin with args in dir with env added, and returns its wall
// time, its CPU time (user + system, its children's included), its wchar
// and write_bytes (from /proc/PID/io, read once it has exited and before
// it is reaped).
func run(dir string, env []string, bin string, args ...string) (wall, cpu time.Duration, wchar, wbytes int64) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), env...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		log.Fatal(err)
	}
	wall = time.Since(start)
	io, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", cmd.Process.Pid))
	if err != nil {
		log.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		log.Fatalf("%s %v: %v\n%s", bin, args, err, out.String())
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), field(io, "wchar"), field(io, "write_bytes")
}

func field(io []byte, name string) int64 {
	for _, line := range strings.Split(string(io), "\n") {
		if v, ok := strings.CutPrefix(line, name+": "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	log.Fatalf("no %s in /proc/PID/io", name)
	return 0
}

// idents is each file's inode and mtime under dir.
func idents(dir string) map[string][2]int64 {
	out := map[string][2]int64{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = [2]int64{int64(fi.Sys().(*syscall.Stat_t).Ino), fi.ModTime().UnixNano()}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	return out
}

func write(p, content string) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		log.Fatal(err)
	}
}

func git(dir string, args ...string) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@ctx.invalid",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@ctx.invalid", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		log.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
