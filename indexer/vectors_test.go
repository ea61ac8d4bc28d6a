package indexer

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// synthVectors makes n unit-ish vectors of dims around a few hundred
// topics (as real embeddings cluster), deterministic from seed.
func synthVectors(n, dims int, seed uint64) (*vectorSet, [][]float32) {
	r := rand.New(rand.NewPCG(seed, 1))
	topics := make([][]float32, 300)
	for i := range topics {
		topics[i] = make([]float32, dims)
		for j := range topics[i] {
			topics[i][j] = float32(r.NormFloat64())
		}
	}
	v := &vectorSet{vectorHeader: vectorHeader{Model: "m", Dims: dims}, docs: []vecDoc{{"a", "p", "h"}}}
	raw := make([][]float32, n)
	vec := make([]float32, dims)
	for i := range n {
		t := topics[r.IntN(len(topics))]
		for j := range vec {
			vec[j] = t[j] + 0.9*float32(r.NormFloat64())
		}
		raw[i] = append([]float32(nil), vec...)
		v.add(0, uint32(i), [keyLen]byte{}, vec)
	}
	return v, raw
}

func TestVectorsRoundTrip(t *testing.T) {
	v, _ := synthVectors(50, 70, 1)
	v.docs = []vecDoc{{"pkg", "a/b.md", "abc"}, {"p2", "c.md", ""}}
	v.doc[3] = 1
	data, err := v.marshal()
	if err != nil {
		t.Fatal(err)
	}
	w, err := unmarshalVectors(data)
	if err != nil {
		t.Fatal(err)
	}
	if w.Count != 50 || w.Dims != 70 || w.Model != "m" || len(w.docs) != 2 || w.docs[0] != v.docs[0] || w.doc[3] != 1 || w.chunk[7] != 7 {
		t.Fatalf("round trip: %+v", w.vectorHeader)
	}
	for i := range v.vecs {
		if v.vecs[i] != w.vecs[i] {
			t.Fatal("vectors differ")
		}
	}
	// Every cut of the file is refused, never read as fewer vectors.
	for _, n := range []int{0, 5, 12, 40, len(data) - 1} {
		if _, err := unmarshalVectors(data[:n]); err == nil {
			t.Errorf("a file cut at %d bytes was read", n)
		}
	}
}

// TestNearestSigns: the signs' shortlist then the int8 order finds what
// the exact int8 scan finds (recall@10 on clustered vectors).
func TestNearestSigns(t *testing.T) {
	v, raw := synthVectors(20000, 384, 2)
	found, total := 0, 0
	for qi := 0; qi < 40; qi++ {
		q := raw[qi*97]
		exactScan = true
		want := v.nearest(q, 10, nil)
		exactScan = false
		got := v.nearest(q, 10, nil)
		in := map[int]bool{}
		for _, h := range got {
			in[h.i] = true
		}
		for _, h := range want {
			total++
			if in[h.i] {
				found++
			}
		}
	}
	if r := float64(found) / float64(total); r < 0.95 {
		t.Errorf("recall@10 of the signs' shortlist = %.3f, want ≥ 0.95", r)
	}
	// keep filters.
	hits := v.nearest(raw[0], 5, func(i int) bool { return i%2 == 1 })
	for _, h := range hits {
		if h.i%2 == 0 {
			t.Errorf("hit %d not kept", h.i)
		}
	}
}

// BenchmarkNearest: the scan at 10× the corpus (216,000 chunks) at the
// dimensions of common models: go test ./indexer -run - -bench Nearest.
func BenchmarkNearest(b *testing.B) {
	for _, dims := range []int{384, 768} {
		v, raw := synthVectors(216000, dims, 3)
		for _, exact := range []bool{false, true} {
			b.Run(fmt.Sprintf("dims=%d/exact=%v", dims, exact), func(b *testing.B) {
				exactScan = exact
				defer func() { exactScan = false }()
				for i := 0; b.Loop(); i++ {
					v.nearest(raw[i%len(raw)], 50, nil)
				}
			})
		}
	}
}
