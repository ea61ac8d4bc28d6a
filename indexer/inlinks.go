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
const (
	inlinkWeight = 0.2
	inlinkHalf   = 5.0
	inlinksFile  = "inlinks.json"
)

// inlinkPrior is the factor of a chunk of a document that n other
// documents of its package link to.
func inlinkPrior(n int) float64 {
	if n <= 0 {
		return 1
	}
	return 1 + inlinkWeight*float64(n)/(float64(n)+inlinkHalf)
}

// inLinksData is the content of inlinks.json: the link graph it was
// counted from (linkGraphInput) and, by package and path, the number of
// other documents of the package that link to each document (those with
// none left out).
type inLinksData struct {
	Graph string                    `json:"graph"`
	Docs  map[string]map[string]int `json:"docs"`
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

// publishInLinks writes inlinks.json for cat when its link graph is not
// the one the file was counted from (last) or the file is missing, and
// returns the graph the file now holds. It reads every part of cat then.
func publishInLinks(d confine.Dir, indexDir string, cat *catalog, last string) (string, error) {
	graph := linkGraphInput(cat.Packages, cat.Parts)
	p := filepath.Join(indexDir, inlinksFile)
	if graph == last {
		if _, err := os.Stat(p); err == nil {
			return graph, nil
		}
	}
	if err := cat.loadAllCtx(context.Background(), indexDir); err != nil {
		return last, fmt.Errorf("indexer: %w", err)
	}
	data := inLinksData{Graph: graph, Docs: inLinkCounts(cat.linkGraph())}
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

// inLinksLocked returns the in-link counts of index/inlinks.json by chunk
// key (package and path as in chunkID, without the chunk number), read
// again when the file changed; none when there is no file (an index
// written before it: every prior is 1).
func (r *Reader) inLinksLocked() (map[string]int, error) {
	p := filepath.Join(r.indexDir(), inlinksFile)
	if err := confine.New(r.contextDir).Check(p); err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	st, err := stamp(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			r.inl, r.inlStat = nil, fileStamp{}
			return nil, nil
		}
		return nil, fmt.Errorf("indexer: %w", err)
	}
	if st.same(r.inlStat) {
		return r.inl, nil
	}
	var data inLinksData
	if err := readJSON(p, &data); err != nil {
		if errors.Is(err, fs.ErrNotExist) { // replaced between the stat and the read
			return r.inl, nil
		}
		return nil, fmt.Errorf("indexer: %w", err)
	}
	inl := map[string]int{}
	for alias, docs := range data.Docs {
		for path, n := range docs {
			inl[alias+"\x00"+path] = n
		}
	}
	r.inl, r.inlStat = inl, st
	return inl, nil
}

// inLinks is inLinksLocked under r.mu.
func (r *Reader) inLinks() (map[string]int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inLinksLocked()
}
