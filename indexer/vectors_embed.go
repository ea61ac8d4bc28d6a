package indexer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	index "github.com/blevesearch/bleve_index_api"
	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/lockwait"
	"github.com/ctx-dev/ctx/project"
)

// Embedder is an embedding endpoint as the index uses it
// (internal/embed.Client).
type Embedder interface {
	Model() string
	// Embed returns one vector per text, in order; done is called with
	// the number of texts of each batch answered.
	Embed(ctx context.Context, texts []string, done func(n int)) ([][]float32, error)
}

// EmbedOptions configure EmbedIndex.
type EmbedOptions struct {
	// Progress, when not nil, is called as vectors arrive: done of total
	// chunks to embed, since start.
	Progress func(done, total int, elapsed time.Duration)
	// Group is how many chunks are handed to the endpoint between two
	// saves of vectors.bin (0: defaultEmbedGroup). A save happens at most
	// every SaveEvery (0: defaultSaveEvery) and at the end, so a kill
	// loses little.
	Group     int
	SaveEvery time.Duration
	// Warn receives notes (waiting for another embedder). May be nil.
	Warn func(string)
}

const (
	defaultEmbedGroup = 512
	defaultSaveEvery  = 30 * time.Second
)

// EmbedReport says what EmbedIndex did and what is stored.
type EmbedReport struct {
	Model    string
	Dims     int
	Chunks   int   // chunks in the index
	Embedded int   // chunks embedded by this call
	Reused   int   // vectors kept from before
	Vectors  int   // vectors stored now
	Bytes    int64 // size of vectors.bin
}

// VectorInfo is what is stored: the model, its dimension, how many
// vectors and bytes. Zero when nothing is.
type VectorInfo struct {
	Path    string `json:"path,omitempty"` // the vectors file, when there is one
	Model   string `json:"model"`
	Dims    int    `json:"dims"`
	Vectors int    `json:"vectors"`
	Bytes   int64  `json:"bytes"`
	Chunks  int    `json:"chunks"` // in the search index (meta.json)
}

// Vectors says what vectors.bin holds (a zero VectorInfo when there is
// none).
func Vectors(contextDir string) (VectorInfo, error) {
	indexDir := filepath.Join(contextDir, project.IndexDir)
	var m meta
	_ = readJSON(filepath.Join(indexDir, metaFile), &m) // no index: 0 chunks
	v, err := loadVectors(indexDir)
	if err != nil || v == nil {
		return VectorInfo{Chunks: m.Chunks}, err
	}
	return VectorInfo{Path: filepath.Join(indexDir, vectorsFile), Model: v.Model, Dims: v.Dims, Vectors: v.Count, Bytes: v.size, Chunks: m.Chunks}, nil
}

// embedText is what is embedded of a chunk: its heading trail and its
// text (without the title, compound parts and mnemonic words searchText
// puts before it for BM25F).
func embedText(heading string, body []byte) string {
	body = trimSpace(body)
	if heading == "" {
		return string(body)
	}
	return heading + "\n\n" + string(body)
}

func trimSpace(b []byte) []byte { return []byte(strings.TrimSpace(string(b))) }

// pending is a chunk to embed.
type pending struct {
	doc, chunk uint32
}

// EmbedIndex brings vectors.bin up to date with the index: a vector for
// every chunk, from e. A document whose content hash is the one its
// vectors were made from keeps them unread; a chunk whose text is one
// already embedded with the same model (by key) keeps its vector; the
// others are embedded, Group at a time, vectors.bin saved along the way
// (a partly embedded index is searched for what it has). A model other
// than the stored one embeds everything again, and so does an endpoint
// whose vectors are of another dimension than the stored ones. One
// embedder at a time (a lock beside the index's); searches never wait.
func EmbedIndex(ctx context.Context, contextDir string, e Embedder, o EmbedOptions) (*EmbedReport, error) {
	if o.Group <= 0 {
		o.Group = defaultEmbedGroup
	}
	if o.SaveEvery <= 0 {
		o.SaveEvery = defaultSaveEvery
	}
	d := confine.New(contextDir)
	indexDir := filepath.Join(contextDir, project.IndexDir)
	lp := filepath.Join(indexDir, vectorsLock)
	if err := d.Check(lp); err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	lock := lockwait.File(lp) // never through a link, never waiting on a fifo (red22)
	ok, err := lockwait.Exclusive(ctx, lock, 0)
	if err != nil {
		return nil, fmt.Errorf("indexer: lock %s: %w", lp, err)
	}
	if !ok {
		if o.Warn != nil {
			o.Warn("waiting for another ctx process that is embedding " + indexDir + " ...") // ASCII: no terminal here (see lockIndex)
		}
		if ok, err = lockwait.Exclusive(ctx, lock, lockwait.Forever); !ok {
			return nil, fmt.Errorf("indexer: wait for another ctx embedding %s: %w", indexDir, err)
		}
	}
	defer lock.Close()

	r, err := OpenReader(contextDir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	r.mu.Lock()
	cat, err := r.loadCatalogLocked()
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	// The index is held open only while chunks are read (a plan, then
	// each group), never while the endpoint works: an open reader makes a
	// writer wait.
	withReader := func(f func(index.IndexReader) error) error {
		open, release, err := r.acquire()
		if err != nil {
			return err
		}
		defer release()
		adv, err := open.idx.Advanced()
		if err != nil {
			return fmt.Errorf("indexer: embed: %w", err)
		}
		rdr, err := adv.Reader()
		if err != nil {
			return fmt.Errorf("indexer: embed: %w", err)
		}
		defer rdr.Close()
		return f(rdr)
	}
	old, err := loadVectors(indexDir)
	if err != nil && !errors.Is(err, errVectorsDamaged) {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	model := e.Model()
	if old != nil && old.Model != model {
		old = nil // a new model: everything again
	}
	for restart := 0; ; restart++ {
		rep, err := embedOnce(ctx, d, indexDir, cat, withReader, old, e, o)
		if errors.Is(err, errDimsChanged) && restart == 0 {
			old = nil // the model behind the name changed
			continue
		}
		return rep, err
	}
}

var errDimsChanged = errors.New("the endpoint's vectors changed dimension")

// probeText is what EmbedIndex embeds to check the endpoint's dimension
// when no chunk needs a vector.
const probeText = "ctx: dimension check"

// chunkText reads chunk i of a document from the index: its embedText;
// ok is false when the index has no such chunk.
func chunkText(rdr index.IndexReader, alias, path string, i int) (string, bool, error) {
	h, body, err := loadHit(rdr, chunkID(alias, path, i))
	if err != nil {
		return "", false, err
	}
	if h.Path == "" && body == nil {
		return "", false, nil
	}
	_, _, prefix := parseLines(h.lines)
	if prefix > len(body) {
		prefix = 0
	}
	return embedText(h.Heading, body[prefix:]), true, nil
}

func embedOnce(ctx context.Context, d confine.Dir, indexDir string, cat *catalog, withReader func(func(index.IndexReader) error) error, old *vectorSet, e Embedder, o EmbedOptions) (*EmbedReport, error) {
	model := e.Model()
	next := &vectorSet{vectorHeader: vectorHeader{Model: model, Schema: schemaVersion}}
	if old != nil {
		next.Dims = old.Dims
	}
	byKey, oldDoc := old.byKeyAndDoc()
	rep := &EmbedReport{Model: model}
	todo, err := planEmbed(cat, withReader, old, next, byKey, oldDoc, rep)
	if err != nil {
		return nil, err
	}
	save := func() error {
		data, err := next.marshal()
		if err != nil {
			return err
		}
		if err := d.WriteFileAtomic(filepath.Join(indexDir, vectorsFile), data, 0o644); err != nil {
			return fmt.Errorf("indexer: save vectors: %w", err)
		}
		rep.Vectors, rep.Bytes, rep.Dims = next.Count, int64(len(data)), next.Dims
		return nil
	}
	if len(todo) == 0 && old != nil && old.Count > 0 {
		// Nothing to embed: one short text checks that the endpoint's
		// vectors are still of the stored dimension (the same model
		// name may now be another model), which a search cannot mend.
		v, err := e.Embed(ctx, []string{probeText}, nil)
		if err != nil {
			return rep, fmt.Errorf("indexer: embed: %w", err)
		}
		if len(v) == 1 && len(v[0]) != old.Dims {
			return nil, errDimsChanged
		}
	}
	start := time.Now()
	lastSave := start
	done := 0
	var progressMu sync.Mutex
	changed := old == nil || rep.Reused != old.Count || len(todo) > 0 ||
		!slices.Equal(old.docs, next.docs) || !slices.Equal(old.doc, next.doc) || !slices.Equal(old.chunk, next.chunk)
	for g := 0; g < len(todo); g += o.Group {
		var group []pending
		var texts []string
		err := withReader(func(rdr index.IndexReader) error {
			for _, p := range todo[g:min(g+o.Group, len(todo))] {
				dd := next.docs[p.doc]
				t, ok, err := chunkText(rdr, dd.alias, dd.path, int(p.chunk))
				if err != nil {
					return err
				}
				if ok { // else gone since the plan: the next run sees it
					group, texts = append(group, p), append(texts, t)
				}
			}
			return nil
		})
		if err != nil {
			return rep, err
		}
		vecs, err := e.Embed(ctx, texts, func(n int) {
			// Called from the client's goroutines: one at a time here.
			progressMu.Lock()
			defer progressMu.Unlock()
			done += n
			if o.Progress != nil {
				o.Progress(done, len(todo), time.Since(start))
			}
		})
		if err != nil {
			// Keep what was embedded: a partly embedded index is
			// searched for what it has.
			if rep.Embedded > 0 {
				if serr := save(); serr != nil {
					return rep, serr
				}
			}
			return rep, fmt.Errorf("indexer: embed: %w (%d of %d chunks embedded)", err, rep.Embedded, len(todo))
		}
		for j, p := range group {
			v := vecs[j]
			if next.Dims == 0 {
				next.Dims = len(v)
			}
			if len(v) != next.Dims {
				if old != nil && rep.Embedded == 0 && j == 0 {
					return nil, errDimsChanged
				}
				return rep, fmt.Errorf("indexer: embed: the endpoint's vectors have %d dimensions, the others %d: the model changed while embedding; run `ctx index` again", len(v), next.Dims)
			}
			next.add(p.doc, p.chunk, vectorKey(model, texts[j]), v)
			rep.Embedded++
		}
		if time.Since(lastSave) >= o.SaveEvery && g+o.Group < len(todo) {
			if err := save(); err != nil {
				return rep, err
			}
			lastSave = time.Now()
		}
	}
	if next.Dims == 0 {
		next.Dims = 1 // nothing to embed: an empty set of this model
	}
	if !changed {
		rep.Vectors, rep.Bytes, rep.Dims = old.Count, old.size, old.Dims
		return rep, nil
	}
	return rep, save()
}

// byKeyAndDoc indexes old's vectors (nil: none) by key, and by document
// (alias\0path\0hash → its vectors, by chunk; -1 for a chunk it lacks).
func (old *vectorSet) byKeyAndDoc() (map[[keyLen]byte]int, map[string][]int) {
	byKey := map[[keyLen]byte]int{}
	oldDoc := map[string][]int{}
	if old == nil {
		return byKey, oldDoc
	}
	for i := range old.Count {
		byKey[old.key(i)] = i
		dd := old.docs[old.doc[i]]
		k := dd.alias + "\x00" + dd.path + "\x00" + dd.hash
		c := int(old.chunk[i])
		s := oldDoc[k]
		for len(s) <= c {
			s = append(s, -1)
		}
		s[c] = i
		oldDoc[k] = s
	}
	return byKey, oldDoc
}

// planEmbed lays out next's documents in the catalogue's order, copies
// the vectors old has for a chunk (the same document and chunk, or the
// same text), and returns the chunks left to embed.
func planEmbed(cat *catalog, withReader func(func(index.IndexReader) error) error, old, next *vectorSet, byKey map[[keyLen]byte]int, oldDoc map[string][]int, rep *EmbedReport) ([]pending, error) {
	var todo []pending
	aliases := slices.Sorted(maps.Keys(cat.Files))
	err := withReader(func(rdr index.IndexReader) error {
		for _, alias := range aliases {
			for _, rec := range cat.Files[alias] {
				if rec.Skipped != "" || rec.Chunks == 0 {
					continue
				}
				rep.Chunks += rec.Chunks
				di := uint32(len(next.docs))
				next.docs = append(next.docs, vecDoc{alias: alias, path: rec.Path, hash: rec.Hash})
				have := oldDoc[alias+"\x00"+rec.Path+"\x00"+rec.Hash]
				for c := range rec.Chunks {
					if c < len(have) && have[c] >= 0 {
						next.copyFrom(old, have[c], di, uint32(c))
						rep.Reused++
						continue
					}
					text, ok, err := chunkText(rdr, alias, rec.Path, c)
					if err != nil {
						return err
					}
					if !ok {
						continue
					}
					if i, ok := byKey[vectorKey(next.Model, text)]; ok {
						next.copyFrom(old, i, di, uint32(c))
						rep.Reused++
						continue
					}
					todo = append(todo, pending{di, uint32(c)})
				}
			}
		}
		return nil
	})
	return todo, err
}
