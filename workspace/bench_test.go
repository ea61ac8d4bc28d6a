package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/fileid"
	"github.com/ctx-dev/ctx/internal/gittest"
	"github.com/ctx-dev/ctx/project"
)

// benchRepos serves n repositories over smart HTTP on 127.0.0.1, each with a
// docs/ folder of 40 markdown files and 200 other files around it, and
// returns the server and a project that has all n docs/ folders added.
func benchRepos(b *testing.B, n int) (*gittest.Server, string) {
	b.Helper()
	if !gittest.Available() {
		b.Skip("git not installed")
	}
	tmp := b.TempDir()
	root := filepath.Join(tmp, "srv")
	for i := range n {
		files := map[string]string{}
		for j := range 40 {
			files[fmt.Sprintf("docs/section%d/page%d.md", j%5, j)] = fmt.Sprintf("# Page %d of repo %d\n\n%s\n", j, i, strings.Repeat("Some documentation text. ", 80))
		}
		for j := range 200 {
			files[fmt.Sprintf("src/pkg%d/file%d.go", j%10, j)] = fmt.Sprintf("package pkg\n\n// %d %d\n%s\n", i, j, strings.Repeat("// code\n", 100))
		}
		src := filepath.Join(tmp, fmt.Sprintf("src%d", i))
		gittest.NewRepo(b, src, files)
		gittest.MustGit(b, tmp, "clone", "-q", "--bare", src, filepath.Join(root, fmt.Sprintf("r%d.git", i)))
	}
	srv, err := gittest.Serve(root, gittest.ServeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	proj := filepath.Join(tmp, "proj")
	os.MkdirAll(proj, 0o755)
	w, err := Init(proj, InitOptions{}, Options{EngineOptions: gitengine.Options{CacheDir: filepath.Join(tmp, "cache0")}})
	if err != nil {
		b.Fatal(err)
	}
	var specs []project.PackageSpec
	for i := range n {
		specs = append(specs, project.PackageSpec{Alias: fmt.Sprintf("p%d", i), Source: fmt.Sprintf("%s/r%d.git", srv.URL, i), Path: "docs"})
	}
	r, err := w.Add(bg, specs, AddOptions{})
	if err != nil || r.Partial() {
		b.Fatalf("add: %v %+v", err, r)
	}
	w.Close()
	return srv, proj
}

// BenchmarkInstallFromLock: `ctx install` of 10 packages from a lock into a
// fresh clone of the project, with a cold object cache.
func BenchmarkInstallFromLock(b *testing.B) {
	_, proj := benchRepos(b, 10)
	for b.Loop() {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "clone")
		copyBenchProject(b, proj, dir)
		b.StartTimer()
		installFromLock(b, dir, filepath.Join(dir, "..", "cache"))
	}
}

// installFromLock is `ctx install --frozen` of the 10 bench packages in
// dir, in this process, with its object cache in cache.
func installFromLock(b *testing.B, dir, cache string) {
	w, err := Open(dir, Options{Jobs: benchJobs, EngineOptions: gitengine.Options{CacheDir: cache}})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	r, err := w.Install(bg, InstallOptions{Frozen: true})
	if err != nil || r.Partial() || len(r.Packages) != 10 {
		b.Fatalf("install: %v %+v", err, r)
	}
}

// BenchmarkInstallVsNative alternates the two ways in one run (so both see
// the same machine load) and reports their wall times and the speed-up.
func BenchmarkInstallVsNative(b *testing.B) {
	versusNative(b, func(dir, cache string) { installFromLock(b, dir, cache) })
}

// BenchmarkInstallCLIVsNative is BenchmarkInstallVsNative with ctx run as
// the command a user types, `ctx install --frozen`, in its own process (so
// process start and one-time loads count), built once before the loop.
func BenchmarkInstallCLIVsNative(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "ctx")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/ctx-dev/ctx/cmd/ctx").CombinedOutput(); err != nil {
		b.Fatalf("build ctx: %v\n%s", err, out)
	}
	versusNative(b, func(dir, cache string) {
		cmd := exec.Command(bin, "-C", dir, "install", "--frozen")
		cmd.Env = append(os.Environ(), "CTX_CACHE="+cache)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("ctx install: %v\n%s", err, out)
		}
	})
}

// versusNative times install (into a fresh copy of the project, with a
// cold cache) against nativeInstall, alternating, and reports both and the
// speed-up.
func versusNative(b *testing.B, install func(dir, cache string)) {
	srv, proj := benchRepos(b, 10)
	env := gittest.Env(b.TempDir())
	var ctxTime, gitTime time.Duration
	n := 0
	for b.Loop() {
		n++
		dir := filepath.Join(b.TempDir(), "clone")
		copyBenchProject(b, proj, dir)
		start := time.Now()
		install(dir, filepath.Join(dir, "..", "cache"))
		ctxTime += time.Since(start)

		start = time.Now()
		nativeInstall(b, srv.URL, b.TempDir(), env)
		gitTime += time.Since(start)
	}
	b.ReportMetric(float64(ctxTime.Milliseconds())/float64(n), "ctx-ms/op")
	b.ReportMetric(float64(gitTime.Milliseconds())/float64(n), "git-ms/op")
	b.ReportMetric(float64(gitTime)/float64(ctxTime), "speedup")
}

func nativeInstall(b *testing.B, url, dir string, env []string) {
	for i := range 10 {
		dst := filepath.Join(dir, fmt.Sprintf("p%d", i))
		for _, args := range [][]string{
			{"clone", "-q", "--filter=blob:none", "--depth", "1", "--sparse", "--no-checkout", fmt.Sprintf("%s/r%d.git", url, i), dst},
			// no-cone with an anchored folder: the fastest native variant
			// (DESIGN.md: 0.30 s against 1.7 s for cone mode on git/git).
			{"-C", dst, "sparse-checkout", "set", "--no-cone", "/docs/"},
			{"-C", dst, "checkout", "-q"},
		} {
			cmd := exec.Command("git", args...)
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
}

// BenchmarkNativeGitSparse installs the same 10 folders with git one after
// another: a blobless, shallow, sparse (no-cone) clone each.
func BenchmarkNativeGitSparse(b *testing.B) {
	srv, _ := benchRepos(b, 10)
	env := gittest.Env(b.TempDir())
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		nativeInstall(b, srv.URL, dir, env)
	}
}

// BenchmarkUpdateNothingNew: `ctx update` of 10 packages when no repository
// has anything new (open, resolve over loopback HTTP, close).
func BenchmarkUpdateNothingNew(b *testing.B) {
	_, proj := benchRepos(b, 10)
	for b.Loop() {
		w, err := Open(proj, Options{Jobs: 4, EngineOptions: gitengine.Options{CacheDir: filepath.Join(filepath.Dir(proj), "cache0")}})
		if err != nil {
			b.Fatal(err)
		}
		r, err := w.Update(bg, nil, UpdateOptions{})
		if err != nil || r.Partial() {
			b.Fatalf("update: %v %+v", err, r)
		}
		for _, p := range r.Packages {
			if p.Action != Unchanged {
				b.Fatalf("%s: %s", p.Alias, p.Action)
			}
		}
		w.Close()
	}
}

func copyBenchProject(b *testing.B, from, to string) {
	for _, n := range []string{project.ManifestName, project.LockName} {
		data, err := os.ReadFile(filepath.Join(from, project.DirName, n))
		if err != nil {
			b.Fatal(err)
		}
		os.MkdirAll(filepath.Join(to, project.DirName), 0o755)
		if err := os.WriteFile(filepath.Join(to, project.DirName, n), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// benchJobs is ctx's default parallelism (Options.Jobs 0).
const benchJobs = DefaultJobs

// BenchmarkUpdateOneOf500: `ctx update` of a package of 500 documents
// (about 2 KB each, from a local repository: no network) after one of them
// changed upstream, file by file (patch) and, alternating in the same run,
// with the whole folder swapped as before issue 18 (swap). It reports
// each one's wall time, the bytes the process passed to write(2) during
// the update (wchar in /proc/self/io: the stage, the state, the lock, the
// index), and how many files of the package folder were rewritten (a new
// inode or mtime).
func BenchmarkUpdateOneOf500(b *testing.B) {
	if !gittest.Available() {
		b.Skip("git not installed")
	}
	tmp := b.TempDir()
	up := filepath.Join(tmp, "upstream")
	files := map[string]string{}
	for i := range 500 {
		files[fmt.Sprintf("docs/part%d/page%03d.md", i%10, i)] = fmt.Sprintf("# Page %d\n\n%s\n", i, strings.Repeat("Some documentation text. ", 80))
	}
	gittest.NewRepo(b, up, files)
	type side struct {
		name  string
		w     *Workspace
		time  time.Duration
		wchar int64
		files int
	}
	var sides []*side
	for _, name := range []string{"patch", "swap"} {
		proj := filepath.Join(tmp, name)
		os.MkdirAll(proj, 0o755)
		o := Options{EngineOptions: gitengine.Options{CacheDir: filepath.Join(tmp, "cache")}, wholeFolders: name == "swap"}
		w, err := Init(proj, InitOptions{}, o)
		if err != nil {
			b.Fatal(err)
		}
		if r, err := w.Add(bg, []project.PackageSpec{{Alias: "docs", Source: up, Path: "docs"}}, AddOptions{}); err != nil || r.Partial() {
			b.Fatalf("add: %v %+v", err, r)
		}
		b.Cleanup(func() { w.Close() })
		sides = append(sides, &side{name: name, w: w})
	}
	n := 0
	for b.Loop() {
		n++
		b.StopTimer()
		gittest.Commit(b, up, "one change", map[string]string{fmt.Sprintf("docs/part3/page%03d.md", 10*(n%50)+3): fmt.Sprintf("# Page, edition %d\n\n%s\n", n, strings.Repeat("Other text. ", 160))})
		b.StartTimer()
		for _, s := range sides {
			pkg := s.w.pkgDir("docs")
			before := benchIdents(b, pkg)
			w0 := wchar(b)
			start := time.Now()
			r, err := s.w.Update(bg, nil, UpdateOptions{})
			s.time += time.Since(start)
			s.wchar += wchar(b) - w0
			if err != nil || r.Partial() || r.Packages[0].Action != Updated {
				b.Fatalf("%s: update: %v %+v", s.name, err, r)
			}
			after := benchIdents(b, pkg)
			for p, id := range after {
				if before[p] != id {
					s.files++
				}
			}
		}
	}
	for _, s := range sides {
		b.ReportMetric(float64(s.time.Microseconds())/1000/float64(n), s.name+"-ms/op")
		b.ReportMetric(float64(s.wchar)/float64(n), s.name+"-wchar-B/op")
		b.ReportMetric(float64(s.files)/float64(n), s.name+"-files-rewritten/op")
	}
}

// benchIdents is each file's inode and mtime under dir.
func benchIdents(b *testing.B, dir string) map[string][2]int64 {
	out := map[string][2]int64{}
	err := walkFiles(dir, func(rel string, fi fs.FileInfo) error {
		_, ino := fileid.Change(fi)
		out[rel] = [2]int64{int64(ino), fi.ModTime().UnixNano()}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// wchar is the bytes this process has passed to write(2) and its kin
// (Linux's /proc/self/io).
func wchar(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		b.Skip("no /proc/self/io")
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	b.Skip("no wchar in /proc/self/io")
	return 0
}
