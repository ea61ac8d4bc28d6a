package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/boundedfile"
	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/lockwait"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
)

const (
	// lockPollTime is how often Open tries the project lock again.
	lockPollTime = 50 * time.Millisecond
)

func (w *Workspace) log(format string, args ...any) {
	w.logMu.Lock()
	defer w.logMu.Unlock()
	fmt.Fprintln(w.opts.Log, safetext.Text(fmt.Sprintf(format, args...)))
}

// notice logs a note -q keeps (Options.Notice): one that records what the
// user trusts, or a change ctx made that they did not ask for.
func (w *Workspace) notice(format string, args ...any) {
	w.logMu.Lock()
	defer w.logMu.Unlock()
	fmt.Fprintln(w.opts.Notice, safetext.Text(fmt.Sprintf(format, args...)))
}

func (w *Workspace) path(elem ...string) string { return w.proj.Path(elem...) }

func newWorkspace(projectDir string, o Options) (*Workspace, error) {
	p, err := project.At(projectDir)
	if err != nil {
		return nil, err
	}
	p = p.WithHome(o.Home)
	if o.Jobs <= 0 {
		o.Jobs = DefaultJobs
	}
	if o.LockWait <= 0 {
		o.LockWait = DefaultLockWait
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Notice == nil {
		o.Notice = o.Log
	}
	return &Workspace{root: p.Root(), proj: p, opts: o, fs: confine.New(p.Dir())}, nil
}

// openExisting is what Open and OpenReadOnly check before anything else:
// projectDir is a ctx project (project.Check), and .context/ holds no
// symbolic link where ctx keeps its own entries (checkLinks).
func openExisting(projectDir string, o Options) (*Workspace, error) {
	w, err := newWorkspace(projectDir, o)
	if err != nil {
		return nil, err
	}
	if err := w.proj.Check(); err != nil {
		return nil, err
	}
	if err := w.checkLinks(); err != nil {
		return nil, err
	}
	if err := w.proj.CheckRecordsUntracked(project.StateDir, project.IndexDir, project.TmpDir); err != nil {
		return nil, err
	}
	return w, nil
}

// checkLinks refuses a project where .context/ itself or one of the
// entries ctx keeps in it is a symbolic link (a cloned repository can
// commit one), naming every such link at once.
func (w *Workspace) checkLinks() error {
	var errs []error
	for _, e := range append([]string{"."}, project.Owned()...) {
		if err := w.fs.Check(e); err != nil {
			errs = append(errs, err)
			if e == "." {
				break
			}
		}
	}
	return errors.Join(errs...)
}

// Init creates .context/ (manifest, .gitignore) in projectDir, or returns an
// error if it already exists.
func Init(projectDir string, io InitOptions, o Options) (*Workspace, error) {
	w, err := newWorkspace(projectDir, o)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(w.proj.Path(project.ManifestName)); err == nil {
		return nil, fmt.Errorf("%s already exists: this is a ctx project already (use `ctx add` to add packages)", project.Rel(project.ManifestName))
	}
	if err := w.checkLinks(); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(w.proj.Dir()); err == nil && !fi.IsDir() {
		// mkdir would say "not a directory" of the folder it cannot make.
		return nil, fmt.Errorf("%s is a file, not a folder: ctx keeps the project in the folder %s; move or remove the file, then run ctx init again", project.DirName, project.DirName+"/")
	}
	if err := w.fs.MkdirAll(".", 0o755); err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	if err := w.lock(); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			w.Close()
		}
	}()
	if err := w.fs.WriteFileAtomic(project.GitignoreName, []byte(project.Gitignore), 0o644); err != nil {
		return nil, err
	}
	m := &project.Manifest{Registry: io.Registry, Project: io.Project, Packages: []project.PackageSpec{}}
	if err := w.writeManifest(m); err != nil {
		return nil, err
	}
	ok = true
	return w, nil
}

// Open opens the project at projectDir. When there is no .context/ it returns
// an error wrapping project.ErrNoProject that says to run `ctx init`. It waits up to
// Options.LockWait for another ctx working in the project, then finishes
// (or undoes) whatever an interrupted command left in .context/.tmp/.
func Open(projectDir string, o Options) (*Workspace, error) {
	w, err := openExisting(projectDir, o)
	if err != nil {
		return nil, err
	}
	if err := w.lock(); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			w.Close()
		}
	}()
	if err := w.ignoreLocal(); err != nil {
		return nil, err
	}
	if err := w.loadManifest(); err != nil {
		return nil, err
	}
	if err := w.recover(); err != nil {
		return nil, err
	}
	w.sweepTemps()
	ok = true
	return w, nil
}

// sweepTemps removes the temps of atomic writes (atomicfile.Stale: older
// than atomicfile.StaleAge) that a killed ctx left in .context/ (of the
// files ctx writes there only, sweptHere) and .state/, the folders whose files workspace writes under the project
// lock; the project's .gitignore hides them until then (review22-upd22
// F2). The age, not the lock, keeps a live write's temp: ctx mcp writes
// INDEX.md without the project lock. Only Open sweeps, after recover: a
// command that changes the project reads the two folders once more;
// search and status (OpenReadOnly) read nothing more. index/ is the
// indexer's. Errors are ignored: a leftover only costs disk space.
func (w *Workspace) sweepTemps() {
	now := time.Now()
	for _, rel := range []string{".", project.StateDir} {
		if w.fs.Check(rel) != nil {
			continue
		}
		ents, err := os.ReadDir(w.path(rel))
		if err != nil {
			continue
		}
		for _, name := range atomicfile.Stale(ents, now) {
			if rel == "." && !sweptHere[tempTarget(name)] {
				continue // .context/ is the user's too: a temp of a file ctx does not write there is not ctx's
			}
			_ = w.fs.Remove(filepath.Join(rel, name))
		}
	}
}

// sweptHere is the files ctx writes atomically in .context/ itself: only
// their temps are swept there (a user's own ".notes.1.tmp" stays, though
// named like one; .state/ is ctx's alone).
var sweptHere = map[string]bool{
	project.ManifestName: true, project.LocalName: true, project.LockName: true,
	project.IndexName: true, project.GitignoreName: true,
}

func tempTarget(name string) string {
	t, _ := atomicfile.TempOf(name)
	return t
}

// OpenReadOnly opens the project at projectDir to read it (list, status,
// verify): at once, from its last committed state (the lock, the state
// files, the packages as they are). It does not wait for the project lock
// and writes nothing, so it works while another ctx changes the project
// and on a read-only file system; when a change is in progress (another
// ctx holds the lock) it says so on Options.Log. One exception: when a
// killed ctx left an interrupted change in .tmp/ (a journal) and no ctx
// holds the lock, it first finishes that change as Open does, if it can
// take the lock at once and write; when it cannot, it reads the last
// committed state and says so. (A killed update may already have changed
// some of a package's files in place: without that, what is read would
// not be true to the disk.) Methods that change the project fail on a
// Workspace opened this way.
func OpenReadOnly(projectDir string, o Options) (*Workspace, error) {
	w, err := openExisting(projectDir, o)
	if err != nil {
		return nil, err
	}
	w.fs = w.fs.ReadOnly()
	note, interrupted := w.changeInProgress()
	if interrupted {
		o.LockWait = time.Nanosecond // try the lock once: a reader never waits
		rw, err := Open(projectDir, o)
		if err == nil {
			rw.Close()
			note, _ = w.changeInProgress() // another ctx may have started since
		} else {
			note += fmt.Sprintf(" (it could not be finished now: %v)", err)
		}
	}
	if err := w.loadManifest(); err != nil {
		return nil, err
	}
	if note != "" {
		w.log("%s", note)
	}
	return w, nil
}

// changeInProgress says, without waiting, taking the lock or creating
// anything, whether another ctx is changing the project (it holds the
// project lock) or an interrupted change waits in .tmp/ (a journal, and
// then interrupted is true): what a read-only open shows is then the last
// committed state.
func (w *Workspace) changeInProgress() (note string, interrupted bool) {
	p := w.path(project.ProjectLock)
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
		// A shared lock for an instant, on the file opened read-only: it
		// fails at once while a writer holds the lock. (A writer that
		// tries at that very instant tries again 50 ms later.)
		fl := lockwait.Existing(p) // the file may be swapped since the Lstat (red22)
		got, err := lockwait.Shared(context.Background(), fl, 0)
		fl.Close()
		if err == nil && !got {
			return fmt.Sprintf("note: another ctx (%s) is changing this project; showing its last committed state", lockHolder(p)), false
		}
	}
	if ents, err := os.ReadDir(w.path(project.TmpDir)); err == nil {
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".journal") && !strings.HasPrefix(e.Name(), ".") {
				return fmt.Sprintf("note: an interrupted change of %s is waiting in %s; showing the last committed state (the next ctx install, update, add or remove finishes it)",
					strings.TrimSuffix(e.Name(), ".journal"), project.Rel(project.TmpDir)), true
			}
		}
	}
	return "", false
}

// lock takes the project lock, waiting up to LockWait for another process
// (internal/lockwait), with a line on the log that names the holder and
// the bound; Options.Context ending (Ctrl-C) ends the wait. A LockWait
// shorter than one poll tries once, silently (a reader's freshening).
func (w *Workspace) lock() error {
	p := w.path(project.ProjectLock)
	if err := w.fs.Check(project.ProjectLock); err != nil {
		return err
	}
	fl := lockwait.File(p) // never through a link, never waiting on a fifo (red22)
	got, err := lockwait.Exclusive(context.Background(), fl, 0)
	if err != nil {
		return fmt.Errorf("lock %s: %w", p, err)
	}
	if !got && w.opts.LockWait >= lockPollTime {
		w.log("waiting for another ctx (%s) working in this project, up to %s (CTX_LOCK_WAIT sets how long)...", lockHolder(p), waitText(w.opts.LockWait))
		ctx := w.opts.Context
		if ctx == nil {
			ctx = context.Background()
		}
		got, err = lockwait.Exclusive(ctx, fl, w.opts.LockWait)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			return fmt.Errorf("lock %s: %w", p, err)
		}
	}
	if !got {
		return &BusyError{Holder: lockHolder(p), Root: w.root, Waited: w.opts.LockWait}
	}
	// Say who holds it, for whoever waits next.
	_ = w.fs.WriteFile(project.ProjectLock, []byte(fmt.Sprintf("pid %d\n", os.Getpid())), 0o644)
	w.plock = fl
	return nil
}

// waitText is a wait as messages say it: 10m, 90s, 1h30m.
func waitText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// BusyError is Open's error when another ctx held the project lock for
// all of Options.LockWait.
type BusyError struct {
	Holder string        // "pid 123", or "pid unknown"
	Root   string        // the project directory
	Waited time.Duration // how long Open waited (LockWait; under one poll: not at all)
}

func (e *BusyError) Error() string {
	waited := ""
	if e.Waited >= lockPollTime {
		waited = fmt.Sprintf(" (waited %s: CTX_LOCK_WAIT sets how long)", waitText(e.Waited))
	}
	return fmt.Sprintf("another ctx (%s) is working in %s%s; wait for it to finish and try again (if it is gone, delete %s)", e.Holder, e.Root, waited, project.Rel(project.ProjectLock))
}

func lockHolder(p string) string {
	// What ctx writes there is short; a link, a fifo or /dev/zero put
	// there since the lock was checked is not read (red22).
	data, _, err := boundedfile.Read(p, 256, boundedfile.Options{NoFollow: true})
	s := strings.TrimSpace(string(data))
	if err != nil || s == "" {
		return "pid unknown"
	}
	if pid, ok := strings.CutPrefix(s, "pid "); ok {
		if _, err := strconv.Atoi(pid); err == nil {
			return s
		}
	}
	return "pid unknown"
}

// Close releases the project lock.
func (w *Workspace) Close() error {
	if w.webc != nil {
		w.webc.Close()
	}
	if w.plock == nil {
		return nil
	}
	_ = w.fs.Truncate(project.ProjectLock)
	err := w.plock.Unlock()
	w.plock = nil
	return err
}

// engine returns the Engine of one operation: Options.Engine, else a new
// one that reports to this workspace's Log and Progress.
func (w *Workspace) engine() *gitengine.Engine {
	if w.opts.Engine != nil {
		return w.opts.Engine
	}
	return newEngine(w.opts, w.log)
}

// NewEngine returns the Engine for one command run with o, to share
// between everything the command does (Options.Engine, the registry
// loader, setup's access checks) so that each remote is asked for its refs
// once. It reports to o like a Workspace does: warnings to o.Log, as
// "ALIAS: msg" for a package's calls and "note: msg" for the others;
// transfer progress to o.Progress, by alias.
func NewEngine(o Options) *gitengine.Engine {
	if o.Log == nil {
		o.Log = io.Discard
	}
	var mu sync.Mutex
	return newEngine(o, func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(o.Log, safetext.Text(fmt.Sprintf(format, args...)))
	})
}

func newEngine(o Options, logf func(format string, args ...any)) *gitengine.Engine {
	eo := o.EngineOptions
	eo.Warn = func(label, msg string) {
		if label == "" {
			logf("note: %s", msg)
			return
		}
		logf("%s: %s", label, msg)
	}
	if o.Progress != nil {
		eo.Progress = func(p gitengine.Progress) {
			if p.Label != "" {
				o.Progress(p.Label, p)
			}
		}
	}
	return gitengine.New(eo)
}

var errStopped = errors.New("stopped by test hook")

func (w *Workspace) hook(stage, alias string) error {
	if w.opts.testHook == nil {
		return nil
	}
	if err := w.opts.testHook(stage, alias); err != nil {
		return fmt.Errorf("%w: %w", errStopped, err)
	}
	return nil
}
