package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressEvery is how often a call that waits for a re-index sends
// notifications/progress (when its client sent a progressToken).
const progressEvery = time.Second

// reindexJob is a re-index running detached from the call that started it:
// under the server's own context, so that a cancelled call (a client
// timeout, notifications/cancelled) does not throw the work away. Close
// stops it. At most one runs at a time.
type reindexJob struct {
	what    string // "packages a, b" or "the index"
	started time.Time
	done    chan struct{} // closed when it ends
	err     error         // set before done is closed
}

// inProgress is the note for an answer given while job runs.
func (j *reindexJob) inProgress() string {
	return fmt.Sprintf("note: re-indexing %s is in progress (started %s ago); this answer is from the index as it is now and may miss the latest changes: call again shortly",
		j.what, time.Since(j.started).Round(time.Second))
}

// failed is the warning for an answer after job failed (a note when the
// project is read-only, as in a container mount: the index is served as it
// is).
func (j *reindexJob) failed() string {
	if confine.CannotWrite(j.err) {
		return "note: " + indexer.Behind(j.what, j.err)
	}
	return "warning: " + indexer.Behind(j.what, j.err)
}

// startReindex starts a re-index of snap's packages (stale names what
// changed; gen is the watch's change count before the check that found
// them) in the background and returns it. The caller holds syncMu (lockSync), and no
// job is running. Once the re-index holds the index's lock it reads the
// project again (indexer.Options.Packages) and indexes that view, recorded
// with its own sentinel: another ctx that changed the project since snap
// was read (`ctx add` writes the manifest and the lock, then its index)
// is not undone by the older view.
func (s *Server) startReindex(snap snapshot, sent stamps, gen uint64, stale []string) *reindexJob {
	job := &reindexJob{what: "the index", started: time.Now(), done: make(chan struct{})}
	if len(stale) > 0 {
		job.what = "packages " + strings.Join(stale, ", ")
	}
	s.mu.Lock()
	s.job = job
	s.mu.Unlock()
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		s.stopRender() // it holds the index's lock
		rep, err := s.sync(s.life, s.ctxDir, snap.pkgs, indexer.Options{
			BudgetTokens: s.budget(),
			Warn:         func(msg string) { s.log.Warn(msg) },
			DeferIndexMD: true,
			Packages: func() []indexer.Package {
				if now := s.snapshot(); !now.unusable() {
					snap, sent = now, s.sentinel(now)
				}
				return snap.pkgs
			},
		})
		if err == nil {
			s.held.reindexed() // a package's files may be the lock's text now
		}
		s.mu.Lock()
		s.job, job.err = nil, err
		s.fresh = freshState{sentinel: sent, gen: gen, checkedAt: time.Now(), fresh: err == nil}
		if err == nil {
			s.md.dirty = true
		}
		s.kickRenderLocked() // as the job ends: no moment with neither running
		s.mu.Unlock()
		close(job.done)
		if err != nil && confine.CannotWrite(err) {
			s.log.Warn("cannot re-index: the project is read-only", "error", err)
			return
		}
		if err != nil {
			s.log.Error("re-indexing failed", "error", err)
			return
		}
		s.log.Info("re-indexed changed packages", "stale", stale, "added", rep.Added, "updated", rep.Updated,
			"removed", rep.Removed, "took", time.Since(job.started).Round(time.Millisecond))
	}()
	return job
}

// mdState is INDEX.md's render, put off from the re-index (guarded by
// Server.mu). A re-index publishes the search index and the catalogue
// first (indexer.Options.DeferIndexMD: the render reads every part of the
// catalogue, most of a one-file re-index's work), so an edit is searchable
// without waiting for INDEX.md; the render runs after, when no re-index
// runs, and a re-index that starts stops it (the next render does its
// work). The catalogue records what INDEX.md was last rendered from, so
// INDEX.md is never left behind for good: indexer.RenderIndexMD, or any
// later Sync (ctx index, install), renders what is missing.
type mdState struct {
	// dirty: INDEX.md may be behind the catalogue (a re-index published
	// since the last render, or a render was stopped, or the server has
	// not checked yet).
	dirty   bool
	running *mdRender // the render in progress, or nil
	err     error     // the last render's error (nil once one succeeds)
}

// mdRender is one render of INDEX.md in the background.
type mdRender struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when it ends
}

// kickRender starts INDEX.md's render in the background when it may be
// behind and neither a render nor a re-index runs.
func (s *Server) kickRender() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kickRenderLocked()
}

// kickRenderLocked is kickRender for a caller that holds s.mu.
func (s *Server) kickRenderLocked() {
	if !s.md.dirty || s.md.running != nil || s.job != nil || s.life.Err() != nil {
		return
	}
	ctx, cancel := context.WithCancel(s.life)
	run := &mdRender{cancel: cancel, done: make(chan struct{})}
	s.md.running, s.md.dirty = run, false
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer cancel()
		start := time.Now()
		rep, err := s.renderMD(ctx, s.ctxDir, indexer.Options{BudgetTokens: s.budget(), Warn: func(msg string) { s.log.Warn(msg) }})
		stopped := err != nil && ctx.Err() != nil
		s.mu.Lock()
		s.md.running = nil
		switch {
		case stopped:
			s.md.dirty = true // by a re-index, which starts the render again when it ends
		default:
			s.md.err = err
		}
		s.mu.Unlock()
		close(run.done)
		switch {
		case stopped:
		case err != nil && confine.CannotWrite(err):
			s.log.Warn("cannot render INDEX.md: the project is read-only", "error", err)
		case err != nil:
			s.log.Error("rendering INDEX.md failed", "error", err)
		default:
			s.log.Debug("INDEX.md is current", "tokens", rep.IndexTokens, "took", time.Since(start).Round(time.Millisecond))
		}
	}()
}

// stopRender stops INDEX.md's render in progress, if any, and waits for it
// to end.
func (s *Server) stopRender() {
	s.mu.Lock()
	run := s.md.running
	s.mu.Unlock()
	if run != nil {
		run.cancel()
		<-run.done
	}
}

// awaitIndexMD waits, on behalf of a call about to read INDEX.md, for its
// render to end (starting it when it may be behind), unless ctx ends or a
// re-index stops it first (the answer then uses INDEX.md as it is). It
// returns a warning when the last render failed.
func (s *Server) awaitIndexMD(ctx context.Context) string {
	for {
		s.kickRender()
		s.mu.Lock()
		run, err := s.md.running, s.md.err
		s.mu.Unlock()
		if run == nil {
			if err != nil {
				return "warning: INDEX.md may be behind the index: " + err.Error()
			}
			return ""
		}
		select {
		case <-run.done:
		case <-ctx.Done():
			spentOnIndex(ctx)
			return ""
		}
	}
}

// await waits for job on behalf of a call: until it ends (the answer then
// uses the new index), or the call is cancelled (the job goes on). While it
// waits it sends notifications/progress to a client that asked for them.
func (s *Server) await(ctx context.Context, req mcp.Request, job *reindexJob) string {
	progress := progressSender(req)
	ended := ctx.Err() != nil // the bound was spent before: not on the index
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for n := 0; ; n++ {
		progress(ctx, float64(n), fmt.Sprintf("re-indexing %s (%s so far)", job.what, time.Since(job.started).Round(time.Second)))
		select {
		case <-job.done:
			if job.err != nil {
				return job.failed()
			}
			return ""
		case <-ctx.Done():
			if !ended {
				spentOnIndex(ctx)
			}
			return job.inProgress()
		case <-tick.C:
		}
	}
}

// progressSender returns a function that sends notifications/progress for
// req, or one that does nothing when req has no progressToken.
func progressSender(req mcp.Request) func(ctx context.Context, n float64, msg string) {
	var tok any
	var ss *mcp.ServerSession
	switch r := req.(type) {
	case *mcp.CallToolRequest:
		if r != nil && r.Params != nil {
			tok, ss = r.Params.GetProgressToken(), r.Session
		}
	case *mcp.ReadResourceRequest:
		if r != nil && r.Params != nil {
			tok, ss = r.Params.GetProgressToken(), r.Session
		}
	}
	if tok == nil || ss == nil {
		return func(context.Context, float64, string) {}
	}
	return func(ctx context.Context, n float64, msg string) {
		_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: n, Message: msg})
	}
}
