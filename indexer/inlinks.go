package indexer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctx-dev/ctx/internal/confine"
)

// The in-link prior (issue 27, round 4: links as evidence about the page
// they point to). A page that many other pages of its package link to is
// the canonical page of its topic: its chunks' scores are multiplied by
//
//	inlinkPrior(n) = 1 + inlinkWeight · n / (n + inlinkHalf)
//
// n being the number of other documents of the same package with a link
// that resolves to it (the link graph's resolution, graph.go: markdown,
// wiki, front-matter, rst and AsciiDoc links). Each linking document
// counts once however many links it has to the page (a table of contents
// that links 200 pages adds one to each), and the prior saturates: 1 page
// ×1.03, 5 ×1.10, 20 ×1.16, never more than ×1.2. Chosen on the five
// query sets of bench/relevance (README, round 4): the logarithmic form
// 1 + w·ln(1+n) helped at w 0.02–0.05 and hurt from 0.1; the saturated
// one with half-point 5 and weight 0.2 was the best of the 2–20 × 0.1–0.3
// tried.
//
// The counts need the whole link graph, which needs every package's
// records: too slow to build for one search (decoding the catalogue's
// parts is 30 ms of a CLI search's 70 at 1x). So Sync writes them to
// index/inlinks.json when the link graph changed (linkGraphInput, recorded
// in the catalogue's top as InLinks), and a Reader reads that file when it
// changed (a stat per search).
//
// Hub pages (round 5): an overview page that is mostly links to other
// pages of its package (a section's index.mdx, a list of commands, a
// "Getting started" that links each step) names every topic it links to
// and answers none of them. A page with at least hubMinLinks distinct
// resolved links to other documents of its package, and at least
// hubLinksPer100 of them per 100 tokens of its text, is a hub (hubPage):
// its chunks' scores are multiplied by hubPrior, with the in-link prior.
// The navigation-chunk rule (nav.go) catches a chunk that is a list of
// links by its lines; this one a page whose links are spread through its
// prose (Sphinx and MDX overview pages, a toctree and a paragraph per
// section), from the link graph the in-links are counted from.
const (
	inlinkWeight   = 0.2
	inlinkHalf     = 5.0
	inlinksFile    = "inlinks.json"
	hubPrior       = 0.7
	hubMinLinks    = 3
	hubLinksPer100 = 1.5
	// inlinksFormat is recorded with the link graph inlinks.json was
	// counted from (catalogue.InLinks): a file of an older format (no
	// hubs) is written again at the next Sync.
	inlinksFormat = "2:"
)

// inlinkPrior is the factor of a chunk of a document that n other
// documents of its package link to.
func inlinkPrior(n int) float64 {
	if n <= 0 {
		return 1
	}
	return 1 + inlinkWeight*float64(n)/(float64(n)+inlinkHalf)
}

// hubPage reports whether a document of tokens tokens (its chunks' text)
// that links to out other documents of its package is a hub.
func hubPage(out int, tokens int64) bool {
	return out >= hubMinLinks && float64(out)*100 >= hubLinksPer100*float64(max(tokens, 1))
}

// linkPrior is the factor of a chunk of a document that n other documents
// of its package link to: inlinkPrior(n), × hubPrior for a hub.
func linkPrior(n int, hub bool) float64 {
	f := inlinkPrior(n)
	if hub {
		f *= hubPrior
	}
	return f
}

// inLinksData is the content of inlinks.json: the link graph it was
// counted from (inlinksFormat and linkGraphInput), by package and path
// the number of other documents of the package that link to each
// document (those with none left out), and by package the hub pages
// (hubPage).
type inLinksData struct {
	Graph string                    `json:"graph"`
	Docs  map[string]map[string]int `json:"docs"`
	Hubs  map[string][]string       `json:"hubs,omitempty"`
}

// jsonNames writes data's paths for JSON (jsonName): a name that is not
// UTF-8 was filed under U+FFFD for each invalid byte, and its document
// lost its prior (review of red23). Paths that are UTF-8 are left as
// they are (no copy).
func jsonNames(data *inLinksData) {
	for _, docs := range data.Docs {
		for path, n := range docs {
			if k := jsonName(path); k != path {
				delete(docs, path)
				docs[k] = n
			}
		}
	}
	for _, paths := range data.Hubs {
		for i, path := range paths {
			paths[i] = jsonName(path)
		}
	}
}

// fromJSONNames reads back what jsonNames wrote.
func fromJSONNames(data *inLinksData) error {
	for _, docs := range data.Docs {
		for k, n := range docs {
			if path, err := fromJSONName(k); err != nil {
				return err
			} else if path != k {
				delete(docs, k)
				docs[path] = n
			}
		}
	}
	for _, paths := range data.Hubs {
		for i, k := range paths {
			path, err := fromJSONName(k)
			if err != nil {
				return err
			}
			paths[i] = path
		}
	}
	return nil
}

// inLinkCounts counts, for every document of g, the other documents of its
// package that link to it.
func inLinkCounts(g *graph) map[string]map[string]int {
	out := map[string]map[string]int{}
	for k, links := range g.in {
		from := map[string]bool{}
		for _, l := range links {
			if l.From.Package == k.alias && l.From.Path != k.path {
				from[l.From.Path] = true
			}
		}
		if len(from) == 0 {
			continue
		}
		if out[k.alias] == nil {
			out[k.alias] = map[string]int{}
		}
		out[k.alias][k.path] = len(from)
	}
	return out
}

// hubPages lists, by package, the documents of g that are hubs (hubPage),
// each package's in path order.
func hubPages(g *graph) map[string][]string {
	out := map[string][]string{}
	for _, k := range g.order {
		to := map[string]bool{}
		for _, l := range g.out[k] {
			if l.To != nil && l.To.Package == k.alias && l.To.Path != k.path {
				to[l.To.Path] = true
			}
		}
		if rec := g.recs[k]; rec != nil && hubPage(len(to), rec.Tokens) {
			out[k.alias] = append(out[k.alias], k.path)
		}
	}
	return out
}

// publishInLinks writes inlinks.json for cat when its link graph is not
// the one the file was counted from (last) or the file is missing or not
// a regular file (red23: a fifo there was kept, and every search failed
// on it), and returns the graph the file now holds. It reads every part
// of cat then. A rebuild passes no last (readPlanState): it writes the
// file again, as DamagedFileError's hint says.
func publishInLinks(d confine.Dir, indexDir string, cat *catalog, last string) (string, error) {
	graph := inlinksFormat + linkGraphInput(cat.Packages, cat.Parts)
	p := filepath.Join(indexDir, inlinksFile)
	if graph == last {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			return graph, nil
		}
	}
	if err := cat.loadAllCtx(context.Background(), indexDir); err != nil {
		return last, fmt.Errorf("indexer: %w", err)
	}
	g := cat.linkGraph()
	data := inLinksData{Graph: graph, Docs: inLinkCounts(g), Hubs: hubPages(g)}
	jsonNames(&data)
	if err := writeJSONAtomic(d, p, data); err != nil {
		return last, fmt.Errorf("indexer: write %s: %w", inlinksFile, err)
	}
	return graph, nil
}

// linkGraph is the link graph of c's packages and records, built once:
// publish counts both INDEX.md's in-degrees and the in-links from it. Call
// it with every part of c read.
func (c *catalog) linkGraph() *graph {
	if c.graph == nil {
		c.graph = buildGraph(c.Packages, c.Files)
	}
	return c.graph
}

// inLinksLocked returns the link priors (linkPrior) of the documents of
// index/inlinks.json by chunk key (package and path as in chunkID,
// without the chunk number), read again when the file changed; a document
// not in it has prior 1, and so has every document when there is no file
// (an index written before it).
func (r *Reader) inLinksLocked() (map[string]float64, error) {
	p := filepath.Join(r.indexDir(), inlinksFile)
	if err := confine.New(r.contextDir).Check(p); err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	st, err := stamp(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			r.inl, r.inlStat = nil, FileVersion{}
			return nil, nil
		}
		return nil, fmt.Errorf("indexer: %w", err)
	}
	if st.Same(r.inlStat) {
		return r.inl, nil
	}
	var data inLinksData
	if err := readJSON(p, &data); err != nil {
		if errors.Is(err, fs.ErrNotExist) { // replaced between the stat and the read
			return r.inl, nil
		}
		return nil, fmt.Errorf("indexer: %w", err)
	}
	if err := fromJSONNames(&data); err != nil {
		return nil, fmt.Errorf("indexer: %w", &DamagedFileError{Path: p, Err: err})
	}
	inl := map[string]float64{}
	for alias, docs := range data.Docs {
		for path, n := range docs {
			inl[alias+"\x00"+path] = linkPrior(n, false)
		}
	}
	for alias, paths := range data.Hubs {
		for _, path := range paths {
			k := alias + "\x00" + path
			inl[k] = linkPrior(data.Docs[alias][path], true)
		}
	}
	r.inl, r.inlStat = inl, st
	return inl, nil
}

// inLinks is inLinksLocked under r.mu.
func (r *Reader) inLinks() (map[string]float64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inLinksLocked()
}
