// Command churn-bench measures `ctx update` of one package of many files
// after one file changed upstream (issue 18), with two ctx binaries side
// by side: each gets its own project and object cache, the same local
// repository, and the rounds alternate which one runs first.
//
//	go build -o /tmp/ctx-before ./cmd/ctx   # at the commit to compare with
//	go build -o /tmp/ctx-after ./cmd/ctx
//	go -C bench run ./churn -before /tmp/ctx-before -after /tmp/ctx-after
//
// Per update it reports the wall time, the bytes the process passed to
// write(2) (wchar of /proc/PID/io, read before the process is reaped: the
// stage, the state, the lock, the index), the bytes it sent to the storage
// layer (write_bytes: what it dirtied in the page cache), and how many
// files of the package folder it rewrote (a new inode or mtime). Linux
// only; needs git.
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
)

func main() {
	before := flag.String("before", "", "the ctx binary to compare with (`PATH`)")
	after := flag.String("after", "", "the ctx binary under test (`PATH`)")
	files := flag.Int("files", 500, "files in the package")
	rounds := flag.Int("rounds", 10, "updates per binary")
	flag.Parse()
	if *before == "" || *after == "" {
		log.Fatal("give -before and -after (see the doc comment)")
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
		wall                   []time.Duration
		wchar, wbytes          int64
		rewritten              int
	}
	sides := []*side{{name: "before", bin: *before}, {name: "after", bin: *after}}
	for _, s := range sides {
		s.proj, s.cache = filepath.Join(work, s.name), filepath.Join(work, s.name+"-cache")
		if err := os.MkdirAll(s.proj, 0o755); err != nil {
			log.Fatal(err)
		}
		ctx(s.bin, s.cache, "-C", s.proj, "init")
		ctx(s.bin, s.cache, "-C", s.proj, "add", up, "--path", "docs", "--alias", "docs")
	}
	for r := range *rounds {
		page := filepath.Join(up, "docs", "part3", fmt.Sprintf("page%03d.md", 10*(r%50)+3))
		write(page, fmt.Sprintf("# Page, edition %d\n\n%s\n", r, strings.Repeat("Other text. ", 160)))
		git(up, "commit", "-q", "-am", "one change")
		order := sides
		if r%2 == 1 {
			order = []*side{sides[1], sides[0]}
		}
		for _, s := range order {
			pkg := filepath.Join(s.proj, ".context", "packages", "docs")
			was := idents(pkg)
			wall, wchar, wbytes := ctx(s.bin, s.cache, "-C", s.proj, "update")
			s.wall = append(s.wall, wall)
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
	fmt.Printf("%d rounds: `ctx update` of a %d-file package, 1 file changed upstream\n", *rounds, *files)
	fmt.Printf("%-7s %10s %10s %10s %14s %14s %10s\n", "binary", "wall p50", "wall min", "wall max", "wchar/update", "written/update", "rewritten")
	for _, s := range sides {
		slices.Sort(s.wall)
		n := int64(len(s.wall))
		fmt.Printf("%-7s %10v %10v %10v %14d %14d %10.1f\n", s.name, s.wall[len(s.wall)/2].Round(time.Millisecond),
			s.wall[0].Round(time.Millisecond), s.wall[len(s.wall)-1].Round(time.Millisecond),
			s.wchar/n, s.wbytes/n, float64(s.rewritten)/float64(n))
	}
}

// ctx runs bin with args and CTX_CACHE=cache, and returns its wall time,
// its wchar and write_bytes (from /proc/PID/io, read once it has exited
// and before it is reaped).
func ctx(bin, cache string, args ...string) (time.Duration, int64, int64) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(cmd.Environ(), "CTX_CACHE="+cache)
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
	wall := time.Since(start)
	io, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", cmd.Process.Pid))
	if err != nil {
		log.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		log.Fatalf("%s %v: %v\n%s", bin, args, err, out.String())
	}
	return wall, field(io, "wchar"), field(io, "write_bytes")
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
