package gittest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctx-dev/ctx/internal/fileid"
)

// memoMaxBytes bounds what the process keeps for ServeOptions.Memo: past
// it, answers are no longer kept (they are still served).
const memoMaxBytes = 256 << 20

// uploadMemo holds the upload-pack answers git http-backend gave, for the
// whole process (every Server with Memo on), keyed by memoKey.
var uploadMemo struct {
	mu    sync.Mutex
	m     map[[32]byte]*recorded
	bytes int64
	// running holds, for each request git http-backend is answering now,
	// a channel closed when it is done: the same request meanwhile (the
	// parallel fetches of one test) waits for that answer instead of
	// starting git again.
	running map[[32]byte]chan struct{}
}

// serveMemo answers an upload-pack request (ServeOptions.Memo): from
// memory when git http-backend has answered the same request, under the
// same settings, from a repository holding the same bytes; else from git,
// streamed as it comes and kept when whole.
func (s *Server) serveMemo(w http.ResponseWriter, r *http.Request, clean string) {
	repo := strings.TrimSuffix(strings.TrimSuffix(clean, "/git-upload-pack"), "/info/refs")
	dir := filepath.Join(s.root, filepath.FromSlash(repo))
	state, ok := repoState(dir)
	if !ok {
		s.runBackend(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h := sha256.New()
	for _, e := range s.backend.Env {
		if !strings.HasPrefix(e, "GIT_PROJECT_ROOT=") {
			fmt.Fprintf(h, "%s\x00", e)
		}
	}
	// The repository is named by its bytes, not by its place: the same
	// fixture served as r0.git and r1.git gives the same answers.
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00", r.Method, strings.TrimPrefix(clean, repo), r.URL.RawQuery, r.Header.Get("Content-Type"), r.Header.Get("Content-Encoding"), r.Header.Get("Git-Protocol"))
	h.Write(state[:])
	h.Write(body)
	var key [32]byte
	h.Sum(key[:0])

	rec, done, ok := memoClaim(key, r.Context().Done(), s.memoWait.Load())
	if !ok {
		return // the client hung up while the same request ran
	}
	if rec != nil {
		for k, vs := range rec.header {
			w.Header()[k] = vs
		}
		w.WriteHeader(rec.status)
		_, _ = w.Write(rec.body)
		return
	}
	defer done()
	r.Body = io.NopCloser(bytes.NewReader(body))
	tw := &teeWriter{ResponseWriter: w}
	s.runBackend(tw, r)
	if tw.err != nil || tw.status != http.StatusOK {
		return // cut short, or git failed: ask git again next time
	}
	uploadMemo.mu.Lock()
	defer uploadMemo.mu.Unlock()
	if uploadMemo.m == nil {
		uploadMemo.m = map[[32]byte]*recorded{}
	}
	if uploadMemo.m[key] == nil && uploadMemo.bytes+int64(tw.buf.Len()) <= memoMaxBytes {
		uploadMemo.m[key] = &recorded{status: tw.status, header: tw.header, body: tw.buf.Bytes()}
		uploadMemo.bytes += int64(tw.buf.Len())
	}
}

// memoClaim returns the answer kept for key, or, when there is none and
// no other request with this key is being answered, done: the caller asks
// git and must call done when it has (kept the answer or not). While the
// same request is being answered it waits for that (calling wait first, a
// test's hook, when set) and looks again: an answer git gave that was not
// kept (cut short, too large) leaves the next waiter to ask git itself.
// ok is false when cancel closes first.
func memoClaim(key [32]byte, cancel <-chan struct{}, wait *func()) (rec *recorded, done func(), ok bool) {
	for {
		uploadMemo.mu.Lock()
		if rec := uploadMemo.m[key]; rec != nil {
			uploadMemo.mu.Unlock()
			return rec, nil, true
		}
		running := uploadMemo.running[key]
		if running == nil {
			if uploadMemo.running == nil {
				uploadMemo.running = map[[32]byte]chan struct{}{}
			}
			ch := make(chan struct{})
			uploadMemo.running[key] = ch
			uploadMemo.mu.Unlock()
			return nil, func() {
				uploadMemo.mu.Lock()
				delete(uploadMemo.running, key)
				uploadMemo.mu.Unlock()
				close(ch)
			}, true
		}
		uploadMemo.mu.Unlock()
		if wait != nil {
			(*wait)()
		}
		select {
		case <-running:
		case <-cancel:
			return nil, nil, false
		}
	}
}

// repoState digests every file under a repository directory (path, mode,
// content): two repositories with the same digest serve the same answers.
// It reports false for what its bytes do not describe: a directory that is
// not there, a symbolic link, borrowed objects (objects/info/alternates).
// The digest is made again only when something under the directory may
// have changed since the last one (stateWatches: where the system tells,
// and else every time, by walkState).
func repoState(dir string) ([32]byte, bool) {
	return stateWatches.digest(dir)
}

// walkState makes repoState's digest of dir, calling enter (when not nil)
// with each entry before anything of it is read (digestFolder). A file is
// read once: its content's sum is kept with its stamp, and while the
// stamp proves the file unchanged (fileid.Stamp.Proves) the sum is used
// again.
func walkState(dir string, enter func(p string, d fs.DirEntry) error) (sum [32]byte, ok bool) {
	clock, clockOK := fsClock()
	h := sha256.New()
	ok = digestFolder(h, dir, enter, func(rel, p string, d fs.DirEntry) ([]byte, error) {
		if !d.Type().IsRegular() || strings.HasSuffix(rel, "objects/info/alternates") || strings.HasSuffix(rel, "objects/info/http-alternates") {
			return nil, errNoDigest
		}
		var digest func([]byte) []byte
		if rel == "config" {
			digest = withoutRemotes
		}
		sum, err := contentSums.sum(p, d, clock, clockOK, digest, &stateReads)
		return sum[:], err
	})
	if !ok {
		return sum, false
	}
	h.Sum(sum[:0])
	return sum, true
}

// withoutRemotes is a repository's config without its [remote "…"]
// sections, which upload-pack does not read: a bare clone names the
// folder it was cloned from there, so two copies of one fixture would
// otherwise differ by a path.
func withoutRemotes(config []byte) []byte {
	var out []byte
	skip := false
	for _, l := range bytes.SplitAfter(config, []byte("\n")) {
		if t := bytes.TrimSpace(l); bytes.HasPrefix(t, []byte("[")) {
			skip = bytes.HasPrefix(t, []byte("[remote ")) || bytes.HasPrefix(t, []byte("[remote\t"))
		}
		if !skip {
			out = append(out, l...)
		}
	}
	return out
}

// teeWriter passes a response on and keeps a copy of it, and the first
// error writing it.
type teeWriter struct {
	http.ResponseWriter
	status int
	header http.Header
	buf    bytes.Buffer
	err    error
}

func (t *teeWriter) WriteHeader(code int) {
	if t.status == 0 {
		t.status, t.header = code, t.Header().Clone()
	}
	t.ResponseWriter.WriteHeader(code)
}

func (t *teeWriter) Write(p []byte) (int, error) {
	if t.status == 0 {
		t.WriteHeader(http.StatusOK)
	}
	n, err := t.ResponseWriter.Write(p)
	t.buf.Write(p[:n])
	if err != nil && t.err == nil {
		t.err = err
	}
	return n, err
}

func (t *teeWriter) Flush() {
	if f, ok := t.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// stateReads counts the files repoState has read, for this package's tests
// (a walk's reason, each repository's: stateWatches.walksOf).
var stateReads atomic.Int64

// contentSums keeps, for the process, the sum of each file repoState read
// (as it digests it: a config without its remotes), with the file's stamp
// then and the time before it was taken.
var contentSums sumMemo

type sumMemo struct {
	mu sync.Mutex
	m  map[string]keptSum
}

type keptSum struct {
	stamp fileid.Stamp
	at    int64 // the file system's clock before the stamp was taken
	sum   [32]byte
}

// get returns the sum kept for the file at p when its stamp now proves it
// unchanged since: the same stamp, with a ctime before the clock read
// before that stamp was taken, so any write since has moved it.
func (c *sumMemo) get(p string, now fileid.Stamp) ([32]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.m[p]
	if !ok || !k.stamp.Proves(now, k.at) {
		return [32]byte{}, false
	}
	return k.sum, true
}

// sum is the sum of the file at p (of what digest, when not nil, makes
// of its bytes): the one kept while its stamp proves the file unchanged,
// or else read (counted in reads, when not nil) and kept with its stamp
// and clock, the file system's clock read before d's stamp was taken
// (clockOK false: no clock, nothing kept).
func (c *sumMemo) sum(p string, d fs.DirEntry, clock clock, clockOK bool, digest func([]byte) []byte, reads *atomic.Int64) ([32]byte, error) {
	info, err := d.Info()
	if err != nil {
		return [32]byte{}, err
	}
	stamp := fileid.Of(info)
	if sum, ok := c.get(p, stamp); ok {
		return sum, nil
	}
	if reads != nil {
		reads.Add(1)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return [32]byte{}, err
	}
	if digest != nil {
		b = digest(b)
	}
	sum := sha256.Sum256(b)
	c.keep(p, info, clock, clockOK, sum)
	return sum, nil
}

// keep keeps sum for the file at p whose stat data, taken after clock was
// read, is info. Kept only when the clock is this file system's: another's
// may count in coarser ticks, where a later write keeps the ctime.
func (c *sumMemo) keep(p string, info fs.FileInfo, clock clock, clockOK bool, sum [32]byte) {
	if dev, ok := device(info); ok && clockOK && dev == clock.dev {
		c.put(p, fileid.Of(info), clock.at, sum)
	}
}

func (c *sumMemo) put(p string, stamp fileid.Stamp, at int64, sum [32]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]keptSum{}
	}
	c.m[p] = keptSum{stamp: stamp, at: at, sum: sum}
}

// clock is a reading of a file system's clock: the modification time
// of a file written on it (at), and the file system (dev).
type clock struct {
	at  int64
	dev uint64
}

// fsClock reads the clock of the temporary folder's file system (where
// the tests' repositories are): a file there whose ctime is before at was
// last changed before this moment, so a change after it moves its ctime.
func fsClock() (clock, bool) {
	f, err := os.CreateTemp("", "gittest-clock-")
	if err != nil {
		return clock{}, false
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := f.Write([]byte{0}); err != nil {
		return clock{}, false
	}
	fi, err := f.Stat()
	if err != nil {
		return clock{}, false
	}
	dev, ok := device(fi)
	return clock{at: fi.ModTime().UnixNano(), dev: dev}, ok
}
