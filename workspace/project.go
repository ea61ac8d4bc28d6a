package workspace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/gofrs/flock"
)

// Generated things inside .context/.
const (
	packagesDir = "packages"
	stateDir    = ".state"
	tmpDir      = ".tmp"
	backupDir   = "backup"
	indexDir    = "index"
	indexMD     = "INDEX.md"
	projectLock = ".lock"
	gitignore   = ".gitignore"
	// lockPollTime is how often Open tries the project lock again.
	lockPollTime = 50 * time.Millisecond
)

const gitignoreText = `# Written by ctx. Everything here is generated except context.config.json
# and context.lock, which you commit.
/packages/
/index/
/INDEX.md
/.state/
/.tmp/
/backup/
/.lock
`

func (w *Workspace) log(format string, args ...any) {
	w.logMu.Lock()
	defer w.logMu.Unlock()
	fmt.Fprintln(w.opts.Log, safetext.Text(fmt.Sprintf(format, args...)))
}

func (w *Workspace) path(elem ...string) string {
	return filepath.Join(append([]string{w.Dir()}, elem...)...)
}

func newWorkspace(projectDir string, o Options) (*Workspace, error) {
	abs, err := filepath.Abs(projectDir)
	if err != nil {
		return nil, err
	}
	if o.Jobs <= 0 {
		o.Jobs = DefaultJobs
	}
	if o.LockWait <= 0 {
		o.LockWait = DefaultLockWait
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return &Workspace{root: abs, opts: o, fs: confine.New(filepath.Join(abs, DirName))}, nil
}

// ownedEntries is everything ctx keeps directly in .context/.
var ownedEntries = []string{ManifestName, LockName, packagesDir, stateDir, tmpDir, backupDir, indexDir, indexMD, projectLock, gitignore}

// checkLinks refuses a project where .context/ itself or one of the
// entries ctx keeps in it is a symbolic link (a cloned repository can
// commit one), naming every such link at once.
func (w *Workspace) checkLinks() error {
	var errs []error
	for _, e := range append([]string{"."}, ownedEntries...) {
		if err := w.fs.Check(e); err != nil {
			errs = append(errs, err)
			if e == "." {
				break
			}
		}
	}
	return errors.Join(errs...)
}

func initProject(projectDir string, io InitOptions, o Options) (*Workspace, error) {
	w, err := newWorkspace(projectDir, o)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(w.manifestPath()); err == nil {
		return nil, fmt.Errorf("%s already exists: this is a ctx project already (use `ctx add` to add packages)", displayName(ManifestName))
	}
	if err := w.checkLinks(); err != nil {
		return nil, err
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
			w.unlock()
		}
	}()
	if err := w.fs.WriteFileAtomic(gitignore, []byte(gitignoreText), 0o644); err != nil {
		return nil, err
	}
	m := &Manifest{Registry: io.Registry, Project: io.Project, Packages: []PackageSpec{}}
	if err := w.writeManifest(m); err != nil {
		return nil, err
	}
	ok = true
	return w, nil
}

func open(projectDir string, o Options) (*Workspace, error) {
	w, err := newWorkspace(projectDir, o)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(w.manifestPath()); err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: %w (run `ctx init` to start one)", w.root, ErrNoProject)
		}
		return nil, err
	}
	if err := w.checkLinks(); err != nil {
		return nil, err
	}
	if err := w.lock(); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			w.unlock()
		}
	}()
	if err := w.loadManifest(); err != nil {
		return nil, err
	}
	if err := w.recover(); err != nil {
		return nil, err
	}
	ok = true
	return w, nil
}

func openReadOnly(projectDir string, o Options) (*Workspace, error) {
	w, err := newWorkspace(projectDir, o)
	if err != nil {
		return nil, err
	}
	w.fs = w.fs.ReadOnly()
	if _, err := os.Stat(w.manifestPath()); err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: %w (run `ctx init` to start one)", w.root, ErrNoProject)
		}
		return nil, err
	}
	if err := w.checkLinks(); err != nil {
		return nil, err
	}
	if err := w.loadManifest(); err != nil {
		return nil, err
	}
	if note := w.changeInProgress(); note != "" {
		w.log("%s", note)
	}
	return w, nil
}

// changeInProgress says, without waiting, taking the lock or creating
// anything, whether another ctx is changing the project (it holds the
// project lock) or an interrupted change waits in .tmp/ (a journal): what
// a read-only open shows is then the last committed state.
func (w *Workspace) changeInProgress() string {
	p := w.path(projectLock)
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
		// A shared lock for an instant, on the file opened read-only: it
		// fails at once while a writer holds the lock. (A writer that
		// tries at that very instant tries again 50 ms later.)
		fl := flock.New(p, flock.SetFlag(os.O_RDONLY))
		got, err := fl.TryRLock()
		fl.Close()
		if err == nil && !got {
			return fmt.Sprintf("note: another ctx (%s) is changing this project; showing its last committed state", lockHolder(p))
		}
	}
	if ents, err := os.ReadDir(w.path(tmpDir)); err == nil {
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".journal") && !strings.HasPrefix(e.Name(), ".") {
				return fmt.Sprintf("note: an interrupted change of %s is waiting in %s; showing the last committed state (the next ctx install, update, add or remove finishes it)",
					strings.TrimSuffix(e.Name(), ".journal"), displayName(tmpDir))
			}
		}
	}
	return ""
}

// lock takes the project lock, waiting up to LockWait for another process.
func (w *Workspace) lock() error {
	p := w.path(projectLock)
	if err := w.fs.Check(projectLock); err != nil {
		return err
	}
	fl := flock.New(p)
	deadline := time.Now().Add(w.opts.LockWait)
	said := false
	for {
		got, err := fl.TryLock()
		if err != nil {
			return fmt.Errorf("lock %s: %w", p, err)
		}
		if got {
			break
		}
		holder := lockHolder(p)
		if time.Now().After(deadline) {
			return fmt.Errorf("another ctx (%s) is working in %s; wait for it to finish and try again (if it is gone, delete %s)", holder, w.root, displayName(projectLock))
		}
		if !said {
			w.log("waiting for another ctx (%s) working in this project...", holder)
			said = true
		}
		time.Sleep(lockPollTime)
	}
	// Say who holds it, for whoever waits next.
	_ = w.fs.WriteFile(projectLock, []byte(fmt.Sprintf("pid %d\n", os.Getpid())), 0o644)
	w.plock = fl
	return nil
}

func lockHolder(p string) string {
	data, err := os.ReadFile(p)
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

func (w *Workspace) unlock() error {
	if w.plock == nil {
		return nil
	}
	_ = w.fs.Truncate(projectLock)
	err := w.plock.Unlock()
	w.plock = nil
	return err
}

// engine returns the engine for one package's fetches, reporting progress
// under its alias.
func (w *Workspace) engine(alias string) *gitengine.Engine {
	if w.opts.Engine != nil {
		return w.opts.Engine
	}
	o := w.opts.EngineOptions
	o.Warn = func(msg string) { w.log("%s: %s", alias, msg) }
	if w.opts.Progress != nil {
		o.Progress = func(p gitengine.Progress) { w.opts.Progress(alias, p) }
	}
	return gitengine.New(o)
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
