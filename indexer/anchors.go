package indexer

import (
	"os"
	"strconv"

	"github.com/blevesearch/bleve/v2/analysis"
)

// Anchor text (issue 27, round 22; prototype): the words other pages use
// when they link to a page say what the page is about. anchorTerms is, by
// chunk key (package and path), the analysed terms of the link texts of
// the resolved links to each document from other documents.
func (r *Reader) anchorTerms(a analysis.Analyzer) (map[string]map[string]bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	g, _, err := r.graphLocked()
	if err != nil {
		return nil, err
	}
	if r.anchors != nil && r.anchorsOf == g {
		return r.anchors, nil
	}
	out := map[string]map[string]bool{}
	for k, links := range g.in {
		var set map[string]bool
		for _, l := range links {
			if l.Label == "" || (l.From.Package == k.alias && l.From.Path == k.path) {
				continue
			}
			for _, tok := range a.Analyze([]byte(l.Label)) {
				if set == nil {
					set = map[string]bool{}
				}
				set[string(tok.Term)] = true
			}
		}
		if set != nil {
			out[k.alias+"\x00"+k.path] = set
		}
	}
	r.anchors, r.anchorsOf = out, g
	return out, nil
}

// anchorBonus is the prototype's weight (CTX_ANCHOR_BONUS; 0 turns it off).
var anchorBonus = func() float64 {
	f, err := strconv.ParseFloat(os.Getenv("CTX_ANCHOR_BONUS"), 64)
	if err != nil {
		return 0
	}
	return f
}()

// anchorCoverage is titleCoverage for the link texts that lead to
// candidate i's page (set: their terms).
func (ft *freqTable) anchorCoverage(i int, terms []string, set map[string]bool) float64 {
	if len(set) == 0 {
		return 0
	}
	all, in := 0.0, 0.0
	for j := range terms {
		if !ft.content[j] {
			continue
		}
		w := ft.weight[j] * ft.idf[j]
		all += w
		if set[terms[j]] {
			in += w
		}
	}
	if all <= 0 {
		return 0
	}
	return in / all
}
