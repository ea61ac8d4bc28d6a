package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ctx-dev/ctx/indexer"
	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/project"
	"github.com/dustin/go-humanize"
)

// embedConfig is the user's embedding endpoint, the one rule of where it
// comes from: CTX_EMBEDDINGS_URL and CTX_EMBEDDINGS_MODEL over the user
// config's embeddings.url and embeddings.model (ctx config), the key only
// from CTX_EMBEDDINGS_KEY. Never from a project's files: a committed
// manifest naming a URL would send every document to whoever wrote it.
// on is false when no URL is set (semantic search off); hybrid is the
// user's embeddings.hybrid (CTX_EMBEDDINGS_HYBRID over it): whether search
// is hybrid when neither --hybrid nor --lexical says. It is on unless the
// user turns it off: a configured endpoint is the user's choice of the
// hybrid, and with the one model the benchmarks could run (the Universal
// Sentence Encoder lite) the default fusion (a blend at semantic weight
// 0.1) was no worse than lexical on either bench/relevance set it was
// measured on (bench/relevance/README.md, "Hybrid"). With no endpoint,
// search is lexical whatever hybrid says.
func embedConfig(env environment) (c embed.Config, on, hybrid bool, err error) {
	var from string // where the URL came from, for messages
	path, perr := env.userConfigPath()
	var uc *userConfig
	if perr == nil {
		if uc, err = readUserConfig(path); err != nil {
			return c, false, false, err
		}
	} else {
		uc = &userConfig{}
	}
	if uc.Embeddings != nil {
		c.URL, c.Model, from = uc.Embeddings.URL, uc.Embeddings.Model, path
	}
	hybrid = true
	if uc.Embeddings != nil && uc.Embeddings.Hybrid != "" {
		on, ok := onOff(uc.Embeddings.Hybrid)
		if !ok {
			return c, false, true, fmt.Errorf("embeddings.hybrid %s in %s: %s (ctx config set embeddings.hybrid off)", safetext.Quote(uc.Embeddings.Hybrid), path, onOffWords)
		}
		hybrid = on
	}
	if v := env.Get("CTX_EMBEDDINGS_HYBRID"); strings.TrimSpace(v) != "" {
		on, ok := onOff(v)
		if !ok {
			return c, false, true, fmt.Errorf("CTX_EMBEDDINGS_HYBRID %s: %s", safetext.Quote(v), onOffWords)
		}
		hybrid = on
	}
	if v := strings.TrimSpace(env.Get("CTX_EMBEDDINGS_URL")); v != "" {
		c.URL, from = v, "CTX_EMBEDDINGS_URL"
	}
	if v := strings.TrimSpace(env.Get("CTX_EMBEDDINGS_MODEL")); v != "" {
		c.Model = v
	}
	c.Key = env.Get("CTX_EMBEDDINGS_KEY")
	if c.URL == "" {
		return c, false, hybrid, nil
	}
	if err := embed.CheckURL(c.URL); err != nil {
		return c, false, hybrid, fmt.Errorf("%w (from %s)", err, from)
	}
	if c.Model == "" {
		return c, false, hybrid, fmt.Errorf("embeddings.url is set (in %s) but no model: set it with 'ctx config set embeddings.model NAME' (or CTX_EMBEDDINGS_MODEL)", from)
	}
	return c, true, hybrid, nil
}

// queryEmbedTimeout bounds a search's wait for its query's vector: past
// it, the search answers lexically with a note.
var queryEmbedTimeout = 10 * time.Second

// searchSemantic is the semantic half of a search: nil when it is off
// (--lexical; embeddings.hybrid off without --hybrid; nothing
// configured); note is one line saying why it cannot
// be on when it is configured but broken. close releases the client.
func searchSemantic(env environment, lexical, hybrid bool) (s *indexer.Semantic, note string, close func()) {
	close = func() {}
	if lexical {
		return nil, "", close
	}
	cfg, on, byDefault, err := embedConfig(env)
	if !hybrid && !byDefault {
		return nil, "", close
	}
	if err != nil {
		return nil, "semantic search off: " + err.Error() + "; lexical results only", close
	}
	if !on {
		if hybrid {
			return nil, "semantic search off: no embedding endpoint is set (ctx config set embeddings.url URL); lexical results only", close
		}
		return nil, "", close
	}
	c, err := embed.New(cfg, embed.Options{Attempts: 1, Idle: queryEmbedTimeout})
	if err != nil {
		return nil, "semantic search off: " + err.Error() + "; lexical results only", close
	}
	return &indexer.Semantic{Model: cfg.Model, Embed: func(ctx context.Context, text string) ([]float32, error) {
		ctx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
		defer cancel()
		v, err := c.Embed(ctx, []string{text}, nil)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("embeddings at %s: no answer within %s", c.Endpoint(), queryEmbedTimeout)
			}
			return nil, err
		}
		return v[0], nil
	}}, "", c.Close
}

// printNote writes a search's note, one line, on w, in the terminal's
// marks (deepText: under LANG=C a note cut at safetext's bound ended in
// "…", agent22).
func (g *globalOptions) printNote(w io.Writer, note string) {
	if note != "" {
		fmt.Fprintf(w, "note: %s\n", g.deepText(note))
	}
}

// embedIndex brings the project's vectors up to date when semantic search
// is configured (ctx index): a progress line on errOut while it works,
// and what is stored (printEmbedReport), nil when nothing is configured.
func embedIndex(ctx context.Context, g *globalOptions, contextDir string, hint *project.EmbeddingsHint, errOut io.Writer, tty bool) (*indexer.EmbedReport, error) {
	env := g.Env
	cfg, on, _, err := embedConfig(env)
	if err != nil {
		return nil, err
	}
	if hint != nil && hint.URL != "" {
		fmt.Fprintf(errOut, "warning: the manifest's embeddings.url is ignored: an embedding endpoint is only ever your own (ctx config set embeddings.url URL), as every document's text is sent to it\n")
	}
	if hint != nil && hint.Model != "" && hint.Model != cfg.Model {
		fmt.Fprintf(errOut, "note: this project recommends the embedding model %s (ctx config set embeddings.model %s)\n", g.symbols().Marks(safetext.Quote(hint.Model)), safetext.Text(hint.Model))
	}
	if !on {
		return nil, nil
	}
	c, err := embed.New(cfg, embed.Options{Idle: engineIdle(env)})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	p := &embedProgress{w: errOut, tty: tty}
	rep, err := indexer.EmbedIndex(ctx, contextDir, c, indexer.EmbedOptions{
		Progress: p.update,
		Warn:     func(msg string) { fmt.Fprintf(errOut, "%s\n", g.deepText(msg)) },
	})
	p.done()
	if err != nil {
		return nil, fmt.Errorf("semantic search: %s; the search index is up to date, and search ranks what is not embedded lexically", safetext.Text(err.Error()))
	}
	return rep, nil
}

// printEmbedReport is ctx index's line for the vectors embedIndex made
// current.
func printEmbedReport(out io.Writer, rep *indexer.EmbedReport) {
	fmt.Fprintf(out, "vectors: %d of %d chunks embedded with %s (%d dims, %s), %d new\n",
		rep.Vectors, rep.Chunks, safetext.Text(rep.Model), rep.Dims, humanize.Bytes(uint64(rep.Bytes)), rep.Embedded)
}

// engineIdle is CTX_NET_TIMEOUT's idle timeout, else 0 (the client's
// default).
func engineIdle(env environment) time.Duration {
	if o, err := env.engineOptions(); err == nil && o.IdleTimeout > 0 {
		return o.IdleTimeout
	}
	return 0
}

// embedProgress prints "embedding: N of M chunks, R/s, about T left":
// redrawn in place at most every second on a terminal, else a line every
// 10 seconds.
type embedProgress struct {
	w     io.Writer
	tty   bool
	last  time.Time
	shown bool
}

func (p *embedProgress) update(done, total int, el time.Duration) {
	every := 10 * time.Second
	if p.tty {
		every = time.Second
	}
	if time.Since(p.last) < every || done >= total {
		return
	}
	p.last = time.Now()
	rate := float64(done) / max(el.Seconds(), 0.001)
	left := time.Duration(float64(total-done)/max(rate, 0.001)) * time.Second
	line := fmt.Sprintf("embedding: %d of %d chunks, %.1f/s, about %s left", done, total, rate, left.Round(time.Second))
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
		p.shown = true
	} else {
		fmt.Fprintln(p.w, line)
	}
}

func (p *embedProgress) done() {
	if p.shown {
		fmt.Fprintln(p.w)
	}
}

// semanticReport is what ctx status (its line, and "semantic" in --json)
// says of semantic search in a project.
type semanticReport struct {
	On      bool   `json:"on"`                // an embedding endpoint is configured
	Hybrid  bool   `json:"hybrid"`            // search blends by default (else only with --hybrid)
	Model   string `json:"model,omitempty"`   // the configured model
	Chunks  int    `json:"chunks"`            // chunks in the search index
	Vectors int    `json:"embedded"`          // of them, embedded with Model
	Bytes   int64  `json:"bytes"`             // index/vectors.bin
	Problem string `json:"problem,omitempty"` // why search is lexical (the configuration, the vectors file, another model)

	vectorsModel string // the model vectors.bin was made with, when not Model
}

// semanticState reports on semantic search in the project at contextDir.
func semanticState(env environment, contextDir string) semanticReport {
	cfg, on, byDefault, err := embedConfig(env)
	if err != nil {
		return semanticReport{Problem: err.Error()}
	}
	r := semanticReport{On: on, Hybrid: on && byDefault, Model: cfg.Model}
	if !on {
		return r
	}
	info, err := indexer.Vectors(contextDir)
	r.Chunks = info.Chunks
	switch {
	case err != nil:
		r.Problem = err.Error()
	case info.Model != "" && info.Model != cfg.Model:
		r.vectorsModel, r.Bytes = info.Model, info.Bytes
		r.Problem = fmt.Sprintf("nothing embedded with model %s (the vectors are of %s): run `ctx index`", cfg.Model, info.Model)
	default:
		r.Vectors, r.Bytes = info.Vectors, info.Bytes
	}
	return r
}

// semanticStatus is ctx status's line about semantic search: "" when no
// endpoint is configured.
func semanticStatus(r semanticReport) string {
	switch {
	case r.Problem != "" && !r.On:
		return "semantic search: off: " + safetext.Text(r.Problem)
	case !r.On:
		return ""
	case r.vectorsModel != "":
		return fmt.Sprintf("semantic search: model %s: nothing embedded with it (the vectors are of %s): run `ctx index`", safetext.Text(r.Model), safetext.Text(r.vectorsModel))
	case r.Problem != "":
		return "semantic search: " + safetext.Text(r.Problem)
	}
	how := "only with ctx search --hybrid (embeddings.hybrid is off)"
	if r.Hybrid {
		how = "hybrid by default (ctx search --lexical, or embeddings.hybrid off, for words alone)"
	}
	return fmt.Sprintf("semantic search: model %s: %d of %d chunks embedded (%s); %s", safetext.Text(r.Model), r.Vectors, r.Chunks, humanize.Bytes(uint64(r.Bytes)), how)
}
