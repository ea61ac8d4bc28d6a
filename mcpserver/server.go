// Package mcpserver serves a project's installed context packages read-only
// over the Model Context Protocol: tools to list, search and read the
// documents, and resources for INDEX.md, the manifest and each document.
//
// Every file is opened through os.Root on .context/packages, so no path or
// symlink reaches outside it. Nothing heavy happens before the first call:
// the lock, the index and the files are read on demand, and a call that finds
// the index older than the packages on disk re-indexes them first.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/tokens"
	"github.com/ctx-dev/ctx/project"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure a Server.
type Options struct {
	// ProjectDir is the project whose .context/ is served (absolute).
	ProjectDir string
	// Version is reported to clients; "" means "dev".
	Version string
	// Log receives the server's log lines (stderr); nil discards them.
	Log io.Writer
	// Home is the user's home folder, never served as a dir source
	// (project.WithHome); "" = not known.
	Home string
	// CallTimeout is the most one tool call may take: 0 is
	// DefaultCallTimeout; New refuses one that is negative or over
	// MaxCallTimeout (cmd/ctx: ctx mcp --call-timeout).
	CallTimeout time.Duration
	// Changes answers what_changed (workspace.Changes, from cmd/ctx); nil:
	// the tool says it is not available.
	Changes ChangesFunc
	// Installed reads what ctx installed of a locked package
	// (workspace.ReadInstalled, from cmd/ctx): a file it does not hold is
	// served as a local edit of the locked revision, never as that
	// revision's text (red22). nil: every installed file is taken as the
	// revision's.
	Installed InstalledFunc
	// Semantic, when not nil, makes search and read_relevant hybrid
	// (indexer.SearchHybrid): the user's embedding endpoint, from
	// cmd/ctx's embedConfig. SemanticNote, when not "", says why the
	// configured endpoint cannot be used (each answer's warning).
	Semantic     *indexer.Semantic
	SemanticNote string
}

// Server is ctx's MCP server for one project.
type Server struct {
	proj    project.Project // what it reads: the lock, the manifest, the layout
	ctxDir  string          // <project>/.context
	pkgsDir string          // <project>/.context/packages
	// gitIndex finds the project's git index (looked for again while the
	// project is outside git, trust23): its stamp is in the snapshot's and
	// the sentinel's (gitIndexStamp).
	gitIndex *project.GitIndexWatch
	log      *slog.Logger
	logOut   io.Writer // where log goes (Options.Log)
	srv      *mcp.Server
	sem      *indexer.Semantic // Options.Semantic
	semNote  string            // Options.SemanticNote
	// bounds are each tool's numeric inputs' ranges (addTool; set in New,
	// read only after), for explainRange.
	bounds map[string]map[string]bound
	// callTimeout is the bound of one tool call (0: DefaultCallTimeout;
	// tests set a tiny one).
	callTimeout time.Duration
	// optional are each tool's optional input properties (addTool; set in
	// New, read only after), for dropNulls.
	optional map[string]map[string]bool
	// args are each tool's input properties in the schema's order
	// (addTool; set in New, read only after), for explainRange's unknown
	// argument.
	args map[string][]string
	// argDocs are each tool's input properties' descriptions (addTool; set
	// in New, read only after), for explainRange's missing argument.
	argDocs map[string]map[string]string

	mu          sync.Mutex // guards the fields below
	rd          *indexer.Reader
	snap        snapshot
	snapStamp   stamps // the lock, packages/ and the manifest when snap was taken
	snapValid   bool
	refusedSaid string // the refused dir sources last logged (snapshot)
	heldSaid    string // the held-back documents last logged (sayHeld)
	fresh       freshState
	job         *reindexJob    // the re-index running, or nil
	md          mdState        // INDEX.md's render after re-indexes (reindex.go)
	live        liveState      // the watch of the project and the changes it saw (watch.go)
	bg          sync.WaitGroup // background freshness checks and re-indexes

	// life is the server's own context: re-indexes run under it, detached
	// from the calls that start them; Close cancels it (stop).
	life context.Context
	stop context.CancelFunc

	// syncMu is one freshness check and re-index start at a time: a
	// channel of one slot, so that a call waiting for it gives up when
	// its context ends (lockSync), which a sync.Mutex cannot.
	syncMu chan struct{}
	// changes is Options.Changes.
	changes ChangesFunc
	// installed is Options.Installed; held its answers (snapshot.holder).
	installed InstalledFunc
	held      *heldFiles
	// counts holds the counts of the last large texts counted.
	counts countCache
	// tokens counts o200k tokens for response caps (internal/tokens).
	tokens tokens.Counter
	// warm starts loading the codec in the background on the first call, so
	// that it loads while that call searches or reads (addTool).
	warm sync.Once
	// sync is indexer.Sync (a field so tests can make it fail).
	sync func(context.Context, string, []indexer.Package, indexer.Options) (*indexer.SyncReport, error)
	// renderMD is indexer.RenderIndexMD (a field so tests can hold it).
	renderMD func(context.Context, string, indexer.Options) (*indexer.SyncReport, error)
	// freshness is indexer.Reader.Freshness, the walk of every package's
	// files (a field so tests can count it).
	freshness func(*indexer.Reader, []indexer.Package) (indexer.Freshness, error)
}

// Instructions tell a model when and how to use the server.
const Instructions = `This server gives read-only access to the team documentation installed in this project with ctx (context packages under .context/packages).
Use it before answering questions about the project's conventions, APIs, architecture or tools.
Start with get_overview (the catalogue, INDEX.md) or list_contexts; use search to find the right passages (filter by package, path prefix or tag), then read them with get_section or get_document.
To answer a question in one call, read_relevant returns the best sections whole, within maxTokens (the ask-docs prompt shows the steps).
Every hit and every read names its package and its lines, and every answer the commit each package's files are from (live: the project's own files): cite them.
Answers stay within about 10,000 tokens; ask for up to 20,000 with maxTokens. Long documents and listings come in pages: when a result says truncated, call again with its nextOffset as offset, or its nextCursor as cursor.
Errors explain what went wrong and suggest the nearest valid package, path or heading.`

// New returns a server for opts.ProjectDir. It does no I/O: the lock, the
// index and the files are read when a client first asks.
func New(opts Options) (*Server, error) {
	if opts.ProjectDir == "" || !filepath.IsAbs(opts.ProjectDir) {
		return nil, fmt.Errorf("mcpserver: project dir %q must be an absolute path", opts.ProjectDir)
	}
	w := opts.Log
	if w == nil {
		w = io.Discard
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	proj, err := project.At(opts.ProjectDir)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	proj = proj.WithHome(opts.Home)
	if opts.CallTimeout < 0 || opts.CallTimeout > MaxCallTimeout {
		return nil, fmt.Errorf("mcpserver: call timeout %s: not between 0 and %s", opts.CallTimeout, MaxCallTimeout)
	}
	life, stop := context.WithCancel(context.Background())
	s := &Server{
		callTimeout: opts.CallTimeout,
		life:        life,
		stop:        stop,
		proj:        proj,
		ctxDir:      proj.Dir(),
		pkgsDir:     proj.Path(project.PackagesDir),
		gitIndex:    proj.WatchGitIndex(),
		changes:     opts.Changes,
		installed:   opts.Installed,
		held:        &heldFiles{read: opts.Installed, state: proj.StatePath, m: map[string]heldState{}},
		log:         slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})),
		logOut:      w,
		sem:         opts.Semantic,
		semNote:     opts.SemanticNote,
		sync:        indexer.Sync,
		renderMD:    indexer.RenderIndexMD,
		// INDEX.md may be behind the catalogue (a server stopped between
		// a re-index and its render): the first read of it checks.
		md:     mdState{dirty: true},
		syncMu: make(chan struct{}, 1),
		// The freshness walk runs in the background (freshen): it ends
		// with the server, not with the call that started it.
		freshness: func(r *indexer.Reader, pkgs []indexer.Package) (indexer.Freshness, error) {
			return r.FreshnessContext(life, pkgs)
		},
	}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "ctx", Title: "ctx context packages", Version: version},
		&mcp.ServerOptions{
			Instructions: Instructions,
			// The SDK's session chatter only at warning level and above.
			Logger: slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn})),
			// Tools, resources, prompts, completions; no logging capability,
			// no list changes (resources/list answers from the live index).
			Capabilities: &mcp.ServerCapabilities{
				Tools:     &mcp.ToolCapabilities{},
				Resources: &mcp.ResourceCapabilities{},
				Prompts:   &mcp.PromptCapabilities{},
			},
			// Completes the alias and path of document URIs (resources_list.go).
			CompletionHandler: s.complete,
		})
	s.srv.AddReceivingMiddleware(s.recoverPanics, s.checkResourceRead, s.listResourcesPaged, s.explainRange, s.dropNulls, s.secondInitialize)
	s.addTools()
	s.addLinkTools()
	s.addReadTools()
	s.addPrompts()
	s.addNavTools()
	s.addChangesTool()
	s.addResources()
	return s, nil
}

// MCP returns the underlying SDK server (to connect other transports).
func (s *Server) MCP() *mcp.Server { return s.srv }

// Run serves one session on t until the client disconnects or ctx is done.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	s.snapshot() // says at once on stderr which dir sources are refused
	return s.srv.Run(ctx, t)
}

// Close stops a re-index that is running, waits for background work and
// releases the index reader.
func (s *Server) Close() error {
	s.stop()
	s.live.loops.Wait() // the watch, whose re-checks may start re-indexes
	s.bg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rd != nil {
		err := s.rd.Close()
		s.rd = nil
		return err
	}
	return nil
}

// recoverPanics turns a panic in any handler into an error: an isError tool
// result for tools/call, a JSON-RPC error otherwise. The server keeps serving.
func (s *Server) recoverPanics(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("handler panic", "method", method, "panic", p, "stack", string(debug.Stack()))
				msg := fmt.Errorf("internal error in ctx while handling %s: %v; the server is still running, try again or report this bug", method, p)
				if method == "tools/call" {
					r := &mcp.CallToolResult{}
					r.SetError(msg)
					res, err = r, nil
					return
				}
				res, err = nil, msg
			}
		}()
		return next(ctx, method, req)
	}
}

// secondInitialize gives a second initialize in one session the JSON-RPC
// error code of an invalid request (-32600), with what to do, where the
// SDK answers a plain error (code 0).
func (s *Server) secondInitialize(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var wire *jsonrpc.Error
		if method == "initialize" && err != nil && !errors.As(err, &wire) && strings.Contains(err.Error(), "duplicate") {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: "this session is initialized already: a second initialize is refused; to start over, open a new session (initialize without Mcp-Session-Id)"}
		}
		return res, err
	}
}
