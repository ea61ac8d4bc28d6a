package indexer

import (
	"os"
	"strconv"

	"github.com/blevesearch/bleve/v2/analysis"
)

// Anchor text (issue 27, round 22; prototype): the words other pages use
// when they link to a page say what the page is about.

// anchorDoc is the link texts that lead to one document: per analysed
// term, how many other documents link to it with a text that holds the
// term; dl the sum over those documents of their texts' distinct terms.
type anchorDoc struct {
	tf map[string]int
	dl int
}

// anchorIndex is the anchorDoc of each document with any link text to
// it, by chunk key (package and path), and the mean of their dl.
type anchorIndex struct {
	docs  map[string]*anchorDoc
	avgdl float64
}

// anchorTerms is the anchorIndex of the Reader's link graph (built once
// per graph).
func (r *Reader) anchorTerms(a analysis.Analyzer) (*anchorIndex, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	g, _, err := r.graphLocked()
	if err != nil {
		return nil, err
	}
	if r.anchors != nil && r.anchorsOf == g {
		return r.anchors, nil
	}
	out := &anchorIndex{docs: map[string]*anchorDoc{}}
	total := 0
	for k, links := range g.in {
		bySrc := map[docKey]map[string]bool{}
		for _, l := range links {
			from := docKey{l.From.Package, l.From.Path}
			if l.Label == "" || from == k {
				continue
			}
			for _, tok := range a.Analyze([]byte(l.Label)) {
				if bySrc[from] == nil {
					bySrc[from] = map[string]bool{}
				}
				bySrc[from][string(tok.Term)] = true
			}
		}
		if len(bySrc) == 0 {
			continue
		}
		d := &anchorDoc{tf: map[string]int{}}
		for _, set := range bySrc {
			for t := range set {
				d.tf[t]++
			}
			d.dl += len(set)
		}
		out.docs[k.alias+"\x00"+k.path] = d
		total += d.dl
	}
	if len(out.docs) > 0 {
		out.avgdl = float64(total) / float64(len(out.docs))
	}
	r.anchors, r.anchorsOf = out, g
	return out, nil
}

func envFloat(name string) float64 {
	f, err := strconv.ParseFloat(os.Getenv(name), 64)
	if err != nil {
		return 0
	}
	return f
}

// anchorBonus is the prototype's weight of A, the coverage multiplier
// (CTX_ANCHOR_BONUS; 0 turns it off); anchorWeight B's, the link texts as
// a BM25F field (CTX_ANCHOR_FIELD).
var (
	anchorBonus  = envFloat("CTX_ANCHOR_BONUS")
	anchorWeight = envFloat("CTX_ANCHOR_FIELD")
)

// anchorCoverage is titleCoverage for the link texts that lead to
// candidate i's page (d).
func (ft *freqTable) anchorCoverage(i int, terms []string, d *anchorDoc) float64 {
	if d == nil {
		return 0
	}
	all, in := 0.0, 0.0
	for j := range terms {
		if !ft.content[j] {
			continue
		}
		w := ft.weight[j] * ft.idf[j]
		all += w
		if d.tf[terms[j]] > 0 {
			in += w
		}
	}
	if all <= 0 {
		return 0
	}
	return in / all
}
