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
// them) in the background and returns it. The caller holds syncMu, and no
// job is running.
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
		rep, err := s.sync(s.life, s.ctxDir, snap.pkgs, indexer.Options{
			BudgetTokens: s.budget(),
			Warn:         func(msg string) { s.log.Warn(msg) },
		})
		s.mu.Lock()
		s.job, job.err = nil, err
		s.fresh = freshState{sentinel: sent, gen: gen, checkedAt: time.Now(), fresh: err == nil}
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

// await waits for job on behalf of a call: until it ends (the answer then
// uses the new index), or the call is cancelled (the job goes on). While it
// waits it sends notifications/progress to a client that asked for them.
func (s *Server) await(ctx context.Context, req mcp.Request, job *reindexJob) string {
	progress := progressSender(req)
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
