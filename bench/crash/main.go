// Command crash kills the shipped ctx binary at random moments of its
// commands and checks, after each kill, what a user would check: the next
// commands recover without help, every package's files match the lock,
// the lock names commits the source has, a local edit is still there, no
// staging or journal is left behind, and search still answers.
//
//	go build -o /tmp/ctx ./cmd/ctx
//	go -C bench run ./crash -ctx /tmp/ctx -kills 200
//
// The upstream is a local git repository (file://) with three folders,
// each a package; before each round a random part of their files is
// rewritten, added or deleted and committed. A round runs one command
// (update, a reinstall of a deleted package, remove and add, or index), kills
// it with SIGKILL after a random delay within the time the command takes
// undisturbed (and, after one in three kills, kills the status or install
// that recovers from it too), then runs status, install and verify. The seed is printed;
// -seed repeats a run. On the first broken invariant it stops, prints the
// round, and keeps the project (-keep).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

var (
	ctxBin = flag.String("ctx", "", "the ctx binary to kill (go build -o /tmp/ctx ./cmd/ctx)")
	kills  = flag.Int("kills", 100, "rounds: one killed command each")
	files  = flag.Int("files", 200, "files per package")
	seed   = flag.Uint64("seed", 0, "random seed (0: from the clock; printed)")
	keep   = flag.Bool("keep", false, "keep the temporary folder")
)

// run is one command's outcome.
type run struct {
	args     []string
	code     int
	out, err string // stdout, stderr
	killed   bool
	after    time.Duration
}

func (r run) String() string {
	s := fmt.Sprintf("ctx %s: exit %d", strings.Join(r.args, " "), r.code)
	if r.killed {
		s = fmt.Sprintf("ctx %s: killed after %v", strings.Join(r.args, " "), r.after.Round(time.Millisecond))
	}
	return s + "\n" + indent(r.out) + indent(r.err)
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ") + "\n"
}

type bench struct {
	dir, upstream, proj string
	rng                 *rand.Rand
	gen                 int
	commits             map[string]bool // every upstream commit
	edit                string          // the local edit's file, in package c
	env                 []string
}

func main() {
	log.SetFlags(0)
	flag.Parse()
	if *ctxBin == "" {
		log.Fatal("crash: -ctx is required (go build -o /tmp/ctx ./cmd/ctx)")
	}
	bin, err := filepath.Abs(*ctxBin)
	if err != nil {
		log.Fatal(err)
	}
	*ctxBin = bin
	s := *seed
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	fmt.Printf("seed %d\n", s)
	dir, err := os.MkdirTemp("", "ctx-crash-")
	if err != nil {
		log.Fatal(err)
	}
	b := &bench{dir: dir, upstream: filepath.Join(dir, "upstream"), proj: filepath.Join(dir, "proj"),
		rng: rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15)), commits: map[string]bool{}}
	b.env = append(os.Environ(), "CTX_CACHE="+filepath.Join(dir, "cache"), "HOME="+filepath.Join(dir, "home"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	err = b.main()
	if err != nil || *keep {
		fmt.Printf("project kept in %s\n", dir)
	} else {
		os.RemoveAll(dir)
	}
	if err != nil {
		log.Fatalf("FAIL: %v", err)
	}
}

func (b *bench) main() error {
	if err := b.setup(); err != nil {
		return err
	}
	// How long each command takes undisturbed, to spread the kills over it.
	dur := map[string]time.Duration{}
	for _, name := range []string{"update", "reinstall", "readd", "index"} {
		b.change()
		start := time.Now()
		// 3: c, the package with a local edit, is skipped.
		if r := b.command(name, 0); r.code != 0 && r.code != 3 {
			return fmt.Errorf("undisturbed %s", r)
		}
		dur[name] = time.Since(start)
		if err := b.check(); err != nil {
			return fmt.Errorf("after an undisturbed %s: %w", name, err)
		}
	}
	fmt.Printf("undisturbed: update %v, reinstall %v, remove+add %v, index %v\n",
		dur["update"].Round(time.Millisecond), dur["reinstall"].Round(time.Millisecond), dur["readd"].Round(time.Millisecond), dur["index"].Round(time.Millisecond))
	killed := map[string]int{}
	start := time.Now()
	for i := 1; i <= *kills; i++ {
		b.change()
		names := []string{"update", "update", "reinstall", "readd", "index"}
		name := names[b.rng.IntN(len(names))]
		at := time.Duration(b.rng.Int64N(int64(dur[name]*6/5) + 1))
		r := b.command(name, at)
		if r.killed {
			killed[name]++
			// A crash during recovery: status and install finish an
			// interrupted change; kill one of them too, now and then.
			if b.rng.IntN(3) == 0 {
				rec := []string{"status", "install"}[b.rng.IntN(2)]
				if b.ctxKill(time.Duration(b.rng.Int64N(int64(dur["update"])+1)), rec).killed {
					killed["recovery"]++
				}
			}
		}
		if err := b.check(); err != nil {
			return fmt.Errorf("round %d (%s killed after %v): %w", i, name, at.Round(time.Microsecond), err)
		}
		if i%25 == 0 {
			fmt.Printf("%d rounds, %v\n", i, time.Since(start).Round(time.Second))
		}
	}
	fmt.Printf("PASS: %d rounds, %d commands killed (update %d, reinstall %d, remove+add %d, index %d; and %d of the status or install after them), every check held\n",
		*kills, killed["update"]+killed["reinstall"]+killed["readd"]+killed["index"], killed["update"], killed["reinstall"], killed["readd"], killed["index"], killed["recovery"])
	return nil
}

// setup makes the upstream (three folders), the project with one package
// per folder, and a local edit in package c.
func (b *bench) setup() error {
	for _, d := range []string{b.upstream, b.proj, filepath.Join(b.dir, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := b.git("init", "-q", "-b", "main"); err != nil {
		return err
	}
	for _, pkg := range []string{"a", "b", "c"} {
		for i := range *files {
			b.write(pkg, i)
		}
	}
	if err := b.commit(); err != nil {
		return err
	}
	if r := b.ctx("init"); r.code != 0 {
		return fmt.Errorf("%s", r)
	}
	for _, pkg := range []string{"a", "b", "c"} {
		if r := b.ctx("add", "file://"+b.upstream, "--path", pkg, "--alias", pkg); r.code != 0 {
			return fmt.Errorf("%s", r)
		}
	}
	// A local edit, in a file that upstream never changes: every command
	// must keep it (the guard skips c, or leaves that file alone).
	b.edit = filepath.Join(b.proj, ".context", "packages", "c", "c", "f0000.md")
	if _, err := os.Stat(b.edit); err != nil {
		// the package's files may sit at its root
		b.edit = filepath.Join(b.proj, ".context", "packages", "c", "f0000.md")
	}
	f, err := os.OpenFile(b.edit, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("the local edit: %w", err)
	}
	defer f.Close()
	_, err = f.WriteString("\nmy local note, never to be lost\n")
	return err
}

// write writes file i of pkg for the current generation.
func (b *bench) write(pkg string, i int) {
	p := filepath.Join(b.upstream, pkg, fmt.Sprintf("f%04d.md", i))
	os.MkdirAll(filepath.Dir(p), 0o755)
	var body strings.Builder
	fmt.Fprintf(&body, "# %s file %d\n\ngeneration gen%d of %s/%d.\n\n", pkg, i, b.gen, pkg, i)
	for j := range 20 + b.rng.IntN(40) {
		fmt.Fprintf(&body, "Line %d of the text about %s %d, with words to index: sidecar pod node %d.\n", j, pkg, i, b.rng.IntN(1000))
	}
	os.WriteFile(p, []byte(body.String()), 0o644)
}

// change rewrites, adds and deletes a random share of the upstream files
// (never c/f0000.md, the locally edited one) and commits.
func (b *bench) change() {
	b.gen++
	for _, pkg := range []string{"a", "b", "c"} {
		n := b.rng.IntN(*files/4 + 1)
		for range n {
			i := 1 + b.rng.IntN(*files+*files/10)
			p := filepath.Join(b.upstream, pkg, fmt.Sprintf("f%04d.md", i))
			if _, err := os.Stat(p); err == nil && b.rng.IntN(8) == 0 {
				os.Remove(p)
				continue
			}
			b.write(pkg, i)
		}
	}
	if err := b.commit(); err != nil {
		log.Fatal(err)
	}
}

func (b *bench) commit() error {
	if err := b.git("add", "-A"); err != nil {
		return err
	}
	if err := b.git("commit", "-q", "--allow-empty", "-m", fmt.Sprintf("gen %d", b.gen)); err != nil {
		return err
	}
	out, err := b.gitOut("rev-parse", "HEAD")
	if err != nil {
		return err
	}
	b.commits[strings.TrimSpace(out)] = true
	return nil
}

// command runs one round's command, killed after at (0: not killed).
func (b *bench) command(name string, at time.Duration) run {
	switch name {
	case "update":
		return b.ctxKill(at, "update")
	case "reinstall":
		// A teammate's checkout: the package folder is gone, install
		// brings it back as the lock says.
		os.RemoveAll(filepath.Join(b.proj, ".context", "packages", "b"))
		return b.ctxKill(at, "install")
	case "readd":
		if r := b.ctxKill(at, "remove", "a"); r.killed || r.code != 0 {
			return r
		}
		return b.ctxKill(at, "add", "file://"+b.upstream, "--path", "a", "--alias", "a")
	case "index":
		return b.ctxKill(at, "index", "--rebuild")
	}
	panic(name)
}

// check runs what a user runs after a crash and checks the invariants.
func (b *bench) check() error {
	var log strings.Builder
	st := b.ctx("status")
	log.WriteString(st.String())
	if st.code != 0 {
		return fmt.Errorf("status after the kill:\n%s", log.String())
	}
	in := b.ctx("install")
	log.WriteString(in.String())
	// 3: a package was skipped; only c, the edited one, may be.
	if in.code != 0 && in.code != 3 {
		return fmt.Errorf("install after the kill:\n%s", log.String())
	}
	man, err := os.ReadFile(filepath.Join(b.proj, ".context", "context.config.json"))
	if err != nil {
		return err
	}
	if !bytes.Contains(man, []byte(`"a"`)) {
		// a killed remove+add may leave a removed: add it back, as a user would
		if r := b.ctx("add", "file://"+b.upstream, "--path", "a", "--alias", "a"); r.code != 0 {
			return fmt.Errorf("adding a back:\n%s%s", log.String(), r)
		}
	}
	v := b.ctx("verify", "--json")
	log.WriteString(v.String())
	var res []struct {
		Alias string `json:"alias"`
		OK    bool   `json:"ok"`
	}
	if err := json.Unmarshal([]byte(v.out), &res); err != nil {
		return fmt.Errorf("verify --json: %v\n%s", err, log.String())
	}
	for _, r := range res {
		if !r.OK && r.Alias != "c" {
			return fmt.Errorf("package %s does not match the lock:\n%s", r.Alias, log.String())
		}
	}
	if len(res) != 3 {
		return fmt.Errorf("verify lists %d packages, want 3:\n%s", len(res), log.String())
	}
	edit, err := os.ReadFile(b.edit)
	if err != nil || !bytes.Contains(edit, []byte("my local note, never to be lost")) {
		return fmt.Errorf("the local edit in %s is lost (%v):\n%s", b.edit, err, log.String())
	}
	lock, err := os.ReadFile(filepath.Join(b.proj, ".context", "context.lock"))
	if err != nil {
		return err
	}
	var lk struct {
		Packages map[string]struct {
			Rev    string `json:"rev"`    // lock v2
			Commit string `json:"commit"` // lock v1 (a git-only project)
		} `json:"packages"`
	}
	if err := json.Unmarshal(lock, &lk); err != nil {
		return fmt.Errorf("the lock: %v", err)
	}
	for alias, p := range lk.Packages {
		if rev := p.Rev + p.Commit; !b.commits[rev] {
			return fmt.Errorf("the lock pins %s at %q, not an upstream commit:\n%s", alias, rev, log.String())
		}
	}
	// Nothing half-done is left: no staging folder or journal in
	// .context/.tmp. A killed index build may leave its unfinished bleve
	// directory until the next write of the index removes it (a command
	// with nothing to re-index does not open the index for writing), so
	// there may be one more than the live one, never two.
	var left []string
	tmps, _ := os.ReadDir(filepath.Join(b.proj, ".context", ".tmp"))
	for _, e := range tmps {
		left = append(left, ".tmp/"+e.Name())
	}
	idx, _ := filepath.Glob(filepath.Join(b.proj, ".context", "index", "bleve-*"))
	if len(idx) > 2 {
		for _, p := range idx {
			left = append(left, "index/"+filepath.Base(p))
		}
	}
	if len(left) > 0 {
		slices.Sort(left)
		return fmt.Errorf("left behind after recovery: %s\n%s", strings.Join(left, ", "), log.String())
	}
	s := b.ctx("search", "sidecar", "-n", "1")
	if s.code != 0 || !strings.Contains(s.out, "sidecar") {
		return fmt.Errorf("search after the kill:\n%s%s", log.String(), s)
	}
	return nil
}

func (b *bench) ctx(args ...string) run { return b.ctxKill(0, args...) }

// ctxKill runs ctx in the project, killing it with SIGKILL after at
// (0: never).
func (b *bench) ctxKill(at time.Duration, args ...string) run {
	cmd := exec.Command(*ctxBin, args...)
	cmd.Dir, cmd.Env = b.proj, b.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r := run{args: args, after: at}
	if err := cmd.Start(); err != nil {
		r.code, r.err = -1, err.Error()
		return r
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	if at > 0 {
		select {
		case err = <-done:
		case <-time.After(at):
			cmd.Process.Signal(syscall.SIGKILL)
			err = <-done
			r.killed = cmd.ProcessState != nil && !cmd.ProcessState.Exited()
		}
	} else {
		err = <-done
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		r.code = -1
	}
	r.out, r.err = stdout.String(), stderr.String()
	return r
}

func (b *bench) git(args ...string) error {
	_, err := b.gitOut(args...)
	return err
}

func (b *bench) gitOut(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = b.upstream, b.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}
