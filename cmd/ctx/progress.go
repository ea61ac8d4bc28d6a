package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/gitengine"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/spinner"
	"github.com/ctx-dev/ctx/internal/termenv"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/workspace"
)

// progress shows per-package transfer progress on stderr.
//
// When stderr is a terminal that moves the cursor (stderrDraws) it draws one line per package, sorted by alias,
// with a bar through the fetch phases (refs, trees, blobs, write), redrawn
// in place at most every redrawEvery. Otherwise it writes plain lines: a
// "fetching ALIAS…" line when a package's first transfer starts and, from
// Done, one "ALIAS: N objects, S, M files" (or "ALIAS: nothing to download")
// line per package sorted by alias, so the
// final output has a deterministic order however the fetches interleaved.
//
// Update may be called from several goroutines at once.
type progress struct {
	mu     sync.Mutex
	w      io.Writer // the bars, the spinner, the summary lines
	notes  io.Writer // the notes written through Log: w, or stderr with -q
	tty    bool
	pkgs   map[string]*pkgProgress
	drawn  int // lines currently drawn (tty)
	last   time.Time
	now    func() time.Time
	done   bool
	sym    termenv.Symbols  // the terminal's (Spin)
	spin   *spinner.Spinner // turning (Spin), nil when not
	paused int              // Pause calls not resumed
	held   [][]byte         // notes written through Log while paused, written at the last resume
}

type pkgProgress struct {
	phase  string
	phases map[string]gitengine.Progress // latest report of each phase
}

const redrawEvery = 80 * time.Millisecond

// phaseOrder gives each fetch phase its place on the bar.
// An https source has one phase, download, drawn halfway.
var phaseOrder = map[string]int{"refs": 0, "trees": 1, "blobs": 2, gitengine.PhaseDownload: 2, "write": 3}

// phaseSteps is how many steps the bar has: a git fetch's four phases.
const phaseSteps = 4

// newProgress is the progress of g's command: none with -q (g.quiet),
// whose notes (what -q keeps of them: workspaceOptions) still go to
// stderr through Log, held while git asks as without -q.
func newProgress(g *globalOptions) *progress {
	if g.quiet {
		return &progress{w: io.Discard, notes: g.IO.ErrOut, pkgs: map[string]*pkgProgress{}, now: time.Now}
	}
	return &progress{w: g.IO.ErrOut, notes: g.IO.ErrOut, tty: g.stderrDraws(), pkgs: map[string]*pkgProgress{}, now: time.Now,
		sym: g.symbols()}
}

// Spin shows message with a spinner while something slow runs before any
// transfer (a registry and its imports, setup's access checks), on a
// terminal only; notes written through Log meanwhile go above it, and it
// stops while git asks at the terminal (Pause). stop clears it and prints
// final, when not empty, marked by ok (spinner.Spinner.Stop).
func (p *progress) Spin(message string) (stop func(ok bool, final string)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.tty || p.done || p.spin != nil {
		return func(bool, string) {}
	}
	// Started paused while git asks: a spinner started and then paused
	// could draw its first frame over the question in between.
	s := spinner.Start(p.w, p.sym, message, p.paused > 0)
	p.spin = s
	return func(ok bool, final string) {
		p.mu.Lock()
		p.spin = nil
		p.mu.Unlock()
		s.Stop(ok, final)
	}
}

// Pause stops drawing (the spinner, the bars) until resume: it is
// gitengine.Options.Prompting, called while `git credential fill` may ask
// at the terminal, whose question a redraw hid. Pauses nest (fetches run
// in parallel); drawing goes on after the last resume.
func (p *progress) Pause() (resume func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused++
	if p.spin != nil {
		p.spin.SetPaused(true)
	}
	// The bars drawn are cleared, and git's question, if it asks, goes
	// where they were: the next frame is drawn below it, not over it.
	// (Left on the screen, they stayed as a stale copy above the next
	// frame each time a credential helper answered without asking.)
	if p.tty && !p.done && p.drawn > 0 {
		fmt.Fprintf(p.w, "\x1b[%dA\x1b[J", p.drawn)
	}
	p.drawn = 0
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.paused--
			if p.spin != nil {
				p.spin.SetPaused(p.paused > 0)
			}
			if p.paused == 0 {
				p.writeHeld()
			}
		})
	}
}

// Update records p for alias; it is workspace.Options.Progress.
func (p *progress) Update(alias string, pr gitengine.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	pp := p.pkgs[alias]
	if pp == nil {
		pp = &pkgProgress{phases: map[string]gitengine.Progress{}}
		p.pkgs[alias] = pp
		if !p.tty {
			fmt.Fprintf(p.w, "fetching %s%s\n", safetext.Escape(alias), p.sym.Ellipsis)
		}
	}
	pp.phase = pr.Phase
	pp.phases[pr.Phase] = pr
	if p.tty && p.paused == 0 {
		if t := p.now(); p.drawn == 0 || t.Sub(p.last) >= redrawEvery {
			p.last = t
			p.redraw(false)
		}
	}
}

// Log returns a writer for notes that keeps them from tearing the bars: on a
// terminal it clears the drawn lines first; they are drawn again below the
// note on the next update.
func (p *progress) Log() io.Writer { return logWriter{p} }

type logWriter struct{ p *progress }

func (l logWriter) Write(b []byte) (int, error) {
	p := l.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hold(b) {
		return len(b), nil
	}
	return p.writeNote(b)
}

// hold keeps a note b while git may be asking at the
// terminal ("Username for …: "), the cursor after its question: a note
// then would land on that line, where the user types. It is written after
// the last resume (writeHeld). p.mu is held.
func (p *progress) hold(b []byte) bool {
	if p.paused == 0 || p.done {
		return false
	}
	p.held = append(p.held, slices.Clone(b))
	return true
}

// writeNote writes a note b (whole lines) above the spinner or the bars;
// p.mu is held.
func (p *progress) writeNote(b []byte) (int, error) {
	if p.spin != nil {
		return p.spin.Write(b)
	}
	if p.tty && p.drawn > 0 {
		fmt.Fprintf(p.w, "\x1b[%dA\x1b[J", p.drawn)
		p.drawn = 0
	}
	return p.notes.Write(b)
}

// writeHeld writes the notes held while git may have asked (Log); p.mu is
// held.
func (p *progress) writeHeld() {
	for _, b := range p.held {
		_, _ = p.writeNote(b)
	}
	p.held = nil
}

// Done draws the final state (terminal) or writes the per-package summary
// lines sorted by alias (plain). Later updates are ignored.
func (p *progress) Done() { p.DoneWith(nil) }

// DoneWith is Done after rep, the command's report (nil: none): the plain
// summary lines leave out the packages rep says were skipped or failed,
// whose report line says what happened ("nothing to download" would be
// the wrong news).
func (p *progress) DoneWith(rep *workspace.Report) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	p.writeHeld() // whatever pauses remain: the command is over
	p.done = true
	if p.tty {
		if len(p.pkgs) > 0 {
			p.redraw(true)
		}
		return
	}
	notDone := map[string]bool{}
	if rep != nil {
		for _, r := range rep.Packages {
			if r.Action == workspace.Skipped || r.Action == workspace.Failed {
				notDone[r.Alias] = true
			}
		}
	}
	for _, alias := range p.aliases() {
		if !notDone[alias] {
			fmt.Fprintf(p.w, "%s: %s\n", safetext.Escape(alias), p.pkgs[alias].summary())
		}
	}
}

func (p *progress) aliases() []string {
	return slices.Sorted(maps.Keys(p.pkgs))
}

// totals sums what was received (objects of the trees and blobs phases;
// bytes of every phase but "write") and the files written.
func (pp *pkgProgress) totals() (objects int, bytes int64, files int) {
	for name, ph := range pp.phases {
		switch name {
		case "write":
			files = ph.Objects
			continue
		case "refs": // Objects counts refs here, not objects
		default:
			objects += ph.Objects
		}
		bytes += ph.Bytes
	}
	return objects, bytes, files
}

// summary is "12 objects, 34 KB" ("3 downloads, 34 KB" for an https
// source: pages, or one archive whatever it holds) or "nothing to
// download", plus ", N files" once files were written. Files written from
// a repository on this machine, whose objects are read in place (nothing
// is ever downloaded), are "N files from the local repository" (walk22).
func (pp *pkgProgress) summary() string {
	objs, bytes, files := pp.totals()
	if w, ok := pp.phases["write"]; ok && objs == 0 && bytes == 0 && files > 0 && w.URL != "" && naming.IsLocal(w.URL) {
		return fmt.Sprintf("%d %s from the local repository", files, wording.Plural(files, "file", "files"))
	}
	s := "nothing to download"
	if objs > 0 || bytes > 0 {
		noun, nouns := "object", "objects"
		if _, ok := pp.phases[gitengine.PhaseDownload]; ok {
			noun, nouns = "download", "downloads"
		}
		s = fmt.Sprintf("%d %s, %s", objs, wording.Plural(objs, noun, nouns), formatBytes(bytes))
	}
	if files > 0 {
		s += fmt.Sprintf(", %d %s", files, wording.Plural(files, "file", "files"))
	}
	return s
}

const barWidth = 20

func (p *progress) redraw(final bool) {
	var b strings.Builder
	if p.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", p.drawn)
	}
	aliases := p.aliases()
	width := 0
	for _, a := range aliases {
		width = max(width, len(safetext.Escape(a)))
	}
	for _, a := range aliases {
		pp := p.pkgs[a]
		shown := safetext.Escape(a)
		frac := 1.0
		phase := "done"
		if !final {
			idx, ok := phaseOrder[pp.phase]
			if !ok {
				idx = 0
			}
			frac = float64(idx) / phaseSteps
			phase = pp.phase
		}
		fill := int(frac * barWidth)
		fmt.Fprintf(&b, "\r\x1b[2K%-*s [%s%s] %-5s %s\n", width, shown,
			strings.Repeat("=", fill), strings.Repeat(" ", barWidth-fill), phase, pp.summary())
	}
	p.drawn = len(aliases)
	io.WriteString(p.w, b.String())
}

// formatBytes renders n as "512 B", "34 KB" or "1.3 MB" (powers of 1024).
func formatBytes(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%d KB", (n+512)/1024)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
}
