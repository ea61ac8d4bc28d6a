package indexer

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/bits"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"unsafe"
)

// The vectors of semantic search (issue 28): one per chunk, of its
// heading trail and text (embedText), from the user's embedding endpoint
// (internal/embed), stored in <contextDir>/index/vectors.bin. This file
// owns their storage and the nearest-neighbour scan; vectors_embed.go
// brings them up to date (EmbedIndex), vectors_search.go fuses them with
// BM25F (SearchHybrid).
//
// vectors.bin is one file, written whole through a temporary file, fsync
// and rename (confine.Dir.WriteFileAtomic, as meta.json and the
// catalogue are): a kill leaves the old vectors or the new, never a mix.
// Its layout, little-endian:
//
//	"CTXVEC\x00\x01"                       magic and version
//	u32 n, n bytes                          header (JSON: vectorHeader)
//	per document: u16+alias u16+path u8+hash   the catalogue's content hash
//	per vector: u32 document, u32 chunk, 16-byte key
//	per vector: f32 scale
//	per vector: ceil(dims/64) u64            the signs (a 1 bit per dimension ≥ 0)
//	per vector: dims int8                    the unit vector / scale, rounded
//
// A vector's key is sha256(model, 0, embedText)[:16]: a chunk whose text
// and model are the same keeps its vector whatever file or place it moves
// to; a document whose content hash is the catalogue's keeps all of its
// vectors without its chunks being read.
//
// Storage: int8 with one scale per vector (a quarter of float32, half of
// float16); ranking by the int8 dot product loses little against float32
// on unit vectors (vectors_test.go). The scan: see nearest.

const (
	vectorsFile = "vectors.bin"
	vectorsLock = ".vectors.lock"
	vecMagic    = "CTXVEC\x00\x01"
	keyLen      = 16
)

// vectorHeader is vectors.bin's header.
type vectorHeader struct {
	Model  string `json:"model"`
	Dims   int    `json:"dims"`
	Count  int    `json:"count"`
	Docs   int    `json:"docs"`
	Schema int    `json:"schema"` // the index's schemaVersion when embedded (chunking rules)
}

type vecDoc struct {
	alias, path, hash string
}

// vectorSet is vectors.bin in memory.
type vectorSet struct {
	vectorHeader
	docs   []vecDoc
	doc    []uint32 // per vector: its document
	chunk  []uint32 // per vector: its chunk within the document
	keys   []byte   // per vector: keyLen bytes
	scales []float32
	signs  []uint64 // per vector: words() words
	vecs   []int8   // per vector: Dims values
	size   int64    // bytes of the file
}

func (v *vectorSet) words() int { return (v.Dims + 63) / 64 }

func (v *vectorSet) key(i int) [keyLen]byte {
	return [keyLen]byte(v.keys[i*keyLen : (i+1)*keyLen])
}

// vectorKey is the key of a chunk's text under model.
func vectorKey(model, text string) [keyLen]byte {
	h := sha256.New()
	h.Write([]byte(model))
	h.Write([]byte{0})
	h.Write([]byte(text))
	return [keyLen]byte(h.Sum(nil))
}

// quantize turns v into a unit vector stored as int8 values and a scale,
// and its signs; ok is false for a zero vector.
func quantize(v []float32, q []int8, signs []uint64) (scale float32, ok bool) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return 0, false
	}
	n = math.Sqrt(n)
	var mx float64
	for _, x := range v {
		mx = max(mx, math.Abs(float64(x)/n))
	}
	s := mx / 127
	clear(signs)
	for i, x := range v {
		q[i] = int8(math.Round(float64(x) / n / s))
		if x >= 0 {
			signs[i/64] |= 1 << (i % 64)
		}
	}
	return float32(s), true
}

// add appends a vector; false for a zero vector (not stored).
func (v *vectorSet) add(doc, chunk uint32, key [keyLen]byte, vec []float32) bool {
	w := v.words()
	q := make([]int8, v.Dims)
	signs := make([]uint64, w)
	scale, ok := quantize(vec, q, signs)
	if !ok {
		return false
	}
	v.doc = append(v.doc, doc)
	v.chunk = append(v.chunk, chunk)
	v.keys = append(v.keys, key[:]...)
	v.scales = append(v.scales, scale)
	v.signs = append(v.signs, signs...)
	v.vecs = append(v.vecs, q...)
	v.Count++
	return true
}

// copyFrom appends vector i of o (of the same dimension).
func (v *vectorSet) copyFrom(o *vectorSet, i int, doc, chunk uint32) {
	w := v.words()
	v.doc = append(v.doc, doc)
	v.chunk = append(v.chunk, chunk)
	v.keys = append(v.keys, o.keys[i*keyLen:(i+1)*keyLen]...)
	v.scales = append(v.scales, o.scales[i])
	v.signs = append(v.signs, o.signs[i*w:(i+1)*w]...)
	v.vecs = append(v.vecs, o.vecs[i*v.Dims:(i+1)*v.Dims]...)
	v.Count++
}

// marshal is vectors.bin's bytes.
func (v *vectorSet) marshal() ([]byte, error) {
	v.Docs = len(v.docs)
	hdr, err := json.Marshal(v.vectorHeader)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(64 + len(hdr) + v.Count*(24+4+v.words()*8+v.Dims))
	b.WriteString(vecMagic)
	le := binary.LittleEndian
	b.Write(le.AppendUint32(nil, uint32(len(hdr))))
	b.Write(hdr)
	for _, d := range v.docs {
		if len(d.alias) > math.MaxUint16 || len(d.path) > math.MaxUint16 || len(d.hash) > math.MaxUint8 {
			return nil, fmt.Errorf("vectors: a name too long in %s", d.path)
		}
		b.Write(le.AppendUint16(nil, uint16(len(d.alias))))
		b.WriteString(d.alias)
		b.Write(le.AppendUint16(nil, uint16(len(d.path))))
		b.WriteString(d.path)
		b.WriteByte(byte(len(d.hash)))
		b.WriteString(d.hash)
	}
	buf := make([]byte, 0, 24)
	for i := range v.Count {
		buf = le.AppendUint32(buf[:0], v.doc[i])
		buf = le.AppendUint32(buf, v.chunk[i])
		b.Write(buf)
		b.Write(v.keys[i*keyLen : (i+1)*keyLen])
	}
	for _, s := range v.scales {
		b.Write(le.AppendUint32(buf[:0], math.Float32bits(s)))
	}
	for _, s := range v.signs {
		b.Write(le.AppendUint64(buf[:0], s))
	}
	for _, x := range v.vecs {
		b.WriteByte(byte(x))
	}
	return b.Bytes(), nil
}

var errVectorsDamaged = errors.New("vectors.bin is damaged: run `ctx index` to embed again")

// unmarshalVectors reads vectors.bin's bytes, checking every length.
func unmarshalVectors(data []byte) (*vectorSet, error) {
	le := binary.LittleEndian
	bad := func(what string) error { return fmt.Errorf("%w (%s)", errVectorsDamaged, what) }
	if len(data) < len(vecMagic)+4 || string(data[:len(vecMagic)]) != vecMagic {
		return nil, bad("not a vectors file of this ctx")
	}
	p := data[len(vecMagic):]
	n := int(le.Uint32(p))
	p = p[4:]
	if n > len(p) {
		return nil, bad("header")
	}
	v := &vectorSet{size: int64(len(data))}
	if err := json.Unmarshal(p[:n], &v.vectorHeader); err != nil {
		return nil, bad("header")
	}
	p = p[n:]
	if v.Dims <= 0 || v.Dims > 1<<16 || v.Count < 0 || v.Docs < 0 || v.Docs > len(p) {
		return nil, bad("header")
	}
	v.docs = make([]vecDoc, 0, v.Docs)
	str := func(l int) (string, bool) {
		if l > len(p) {
			return "", false
		}
		s := string(p[:l])
		p = p[l:]
		return s, true
	}
	for range v.Docs {
		var d vecDoc
		var ok bool
		if len(p) < 2 {
			return nil, bad("documents")
		}
		l := int(le.Uint16(p))
		p = p[2:]
		if d.alias, ok = str(l); !ok || len(p) < 2 {
			return nil, bad("documents")
		}
		l = int(le.Uint16(p))
		p = p[2:]
		if d.path, ok = str(l); !ok || len(p) < 1 {
			return nil, bad("documents")
		}
		l = int(p[0])
		p = p[1:]
		if d.hash, ok = str(l); !ok {
			return nil, bad("documents")
		}
		v.docs = append(v.docs, d)
	}
	w := v.words()
	per := 24 + 4 + w*8 + v.Dims
	if v.Count > len(p)/per || len(p) != v.Count*per {
		return nil, bad("vectors")
	}
	c := v.Count
	v.doc, v.chunk, v.keys = make([]uint32, c), make([]uint32, c), make([]byte, c*keyLen)
	for i := range c {
		v.doc[i] = le.Uint32(p)
		v.chunk[i] = le.Uint32(p[4:])
		copy(v.keys[i*keyLen:], p[8:24])
		p = p[24:]
		if int(v.doc[i]) >= len(v.docs) {
			return nil, bad("a vector's document")
		}
	}
	v.scales = make([]float32, c)
	for i := range c {
		v.scales[i] = math.Float32frombits(le.Uint32(p))
		p = p[4:]
	}
	v.signs = make([]uint64, c*w)
	for i := range v.signs {
		v.signs[i] = le.Uint64(p)
		p = p[8:]
	}
	// The int8 values are the file's bytes as they are: the slice shares
	// data's memory (most of the file) instead of copying it one by one.
	if c > 0 {
		v.vecs = unsafe.Slice((*int8)(unsafe.Pointer(&p[0])), c*v.Dims)
	}
	return v, nil
}

// vecCache keeps the last vectors.bin read per path, by its stamp, so a
// server reads it once per change.
var vecCache struct {
	sync.Mutex
	m map[string]cachedVectors
}

type cachedVectors struct {
	st FileVersion
	v  *vectorSet
}

// loadVectors reads indexDir's vectors.bin (mapped: mapFile); nil, nil
// when there is none.
func loadVectors(indexDir string) (*vectorSet, error) {
	p := filepath.Join(indexDir, vectorsFile)
	st, err := stamp(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	vecCache.Lock()
	c, ok := vecCache.m[p]
	vecCache.Unlock()
	if ok && c.st.Same(st) {
		return c.v, nil
	}
	data, release, err := mapFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v, err := unmarshalVectors(data)
	if err != nil {
		release()
		return nil, err
	}
	// The int8 vectors are the mapping's bytes (unmarshalVectors): it is
	// unmapped once nothing holds the set, the cache included.
	runtime.AddCleanup(v, func(release func()) { release() }, release)
	vecCache.Lock()
	if vecCache.m == nil || len(vecCache.m) > 4 {
		vecCache.m = map[string]cachedVectors{}
	}
	vecCache.m[p] = cachedVectors{st: st, v: v}
	vecCache.Unlock()
	return v, nil
}

// vecHit is one vector near a query: its index and cosine similarity.
type vecHit struct {
	i   int
	sim float32
}

// exactScan, when set, makes nearest score every vector (tests and the
// benchmark compare both ways).
var exactScan = false

// nearest returns the k vectors most similar to q (cosine), best first,
// among those keep accepts (nil: all). The scan: every vector's signs
// against the query's (Hamming distance, popcount over ceil(dims/64)
// words), then the int8 dot product of the best shortlist(k) of those,
// which gives the order. Measured at 216,000 vectors (vectors_test.go's
// BenchmarkNearest): the exact int8 scan of all of them costs about
// 10× the signs' pass, which is what makes the 20 ms goal at 10×.
func (v *vectorSet) nearest(q []float32, k int, keep func(i int) bool) []vecHit {
	if v == nil || v.Count == 0 || len(q) != v.Dims || k <= 0 {
		return nil
	}
	w := v.words()
	qq := make([]int8, v.Dims)
	qs := make([]uint64, w)
	qscale, ok := quantize(q, qq, qs)
	if !ok {
		return nil
	}
	dot := func(i int) float32 {
		row := v.vecs[i*v.Dims : (i+1)*v.Dims]
		var s int32
		for j, x := range row {
			s += int32(x) * int32(qq[j])
		}
		return float32(s) * v.scales[i] * qscale
	}
	if exactScan || v.Count <= shortlist(k) {
		return topK(v.Count, k, keep, dot)
	}
	// Pass 1: Hamming distance of the signs, the shortlist with the
	// fewest differing bits.
	ham := func(i int) float32 {
		var d int
		row := v.signs[i*w : (i+1)*w]
		for j, x := range row {
			d += bits.OnesCount64(x ^ qs[j])
		}
		return -float32(d)
	}
	short := topK(v.Count, shortlist(k), keep, ham)
	out := make([]vecHit, len(short))
	for j, h := range short {
		out[j] = vecHit{i: h.i, sim: dot(h.i)}
	}
	slices.SortFunc(out, func(a, b vecHit) int { return cmp.Or(cmp.Compare(b.sim, a.sim), cmp.Compare(a.i, b.i)) })
	return out[:min(k, len(out))]
}

// shortlist is how many vectors the signs' pass keeps for k.
func shortlist(k int) int { return max(20*k, 1000) }

// topK scores n items in parallel slices and keeps the k best.
func topK(n, k int, keep func(i int) bool, score func(i int) float32) []vecHit {
	parts := 1
	if n >= 50000 {
		parts = min(runtime.GOMAXPROCS(0), 8)
	}
	res := make([][]vecHit, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			h := make(minHeap, 0, k+1)
			for i := p * n / parts; i < (p+1)*n/parts; i++ {
				if keep != nil && !keep(i) {
					continue
				}
				s := score(i)
				if len(h) == k && s <= h[0].sim {
					continue
				}
				h.push(vecHit{i: i, sim: s})
				if len(h) > k {
					h.pop()
				}
			}
			res[p] = h
		}(p)
	}
	wg.Wait()
	var all []vecHit
	for _, r := range res {
		all = append(all, r...)
	}
	slices.SortFunc(all, func(a, b vecHit) int { return cmp.Or(cmp.Compare(b.sim, a.sim), cmp.Compare(a.i, b.i)) })
	return all[:min(k, len(all))]
}

// minHeap holds the best hits so far, the worst at the top.
type minHeap []vecHit

func (h *minHeap) push(x vecHit) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p].sim <= s[i].sim {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *minHeap) pop() {
	s := *h
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && s[l].sim < s[m].sim {
			m = l
		}
		if r < n && s[r].sim < s[m].sim {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
}
