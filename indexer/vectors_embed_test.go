package indexer

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/embed/embedtest"
)

// semanticCorpus: documents whose words the concept table of embedtest
// knows, and filler that shares words with the queries lexically.
func semanticCorpus(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".context")
	writeFiles(t, dir, "unix", map[string]string{
		"crontab.md": "# crontab\n\nThe crontab file lists commands for cron to run at fixed times.\n",
		"sed.md":     "# sed\n\nsed edits streams; the s command takes a regex and a replacement.\n",
		"convert.md": "# convert\n\nconvert can resize an image to a thumbnail.\n",
		"jobs.md":    "# Jobs\n\nJobs run in the background of the shell; fg brings one back.\n",
		"words.md":   "# Words\n\nwc counts the words of a file.\n",
	})
	writeFiles(t, dir, "food", map[string]string{
		"orchard.md": "# Orchard\n\nAn orchard of apple trees.\n",
	})
	pkgs := []Package{{Alias: "unix", Rev: strings.Repeat("1", 40)}, {Alias: "food", Rev: strings.Repeat("2", 40)}}
	if _, err := Sync(context.Background(), dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func stubSemantic(t *testing.T, c *embed.Client) *Semantic {
	return &Semantic{Model: c.Model(), Embed: func(ctx context.Context, text string) ([]float32, error) {
		v, err := c.Embed(ctx, []string{text}, nil)
		if err != nil {
			return nil, err
		}
		return v[0], nil
	}}
}

func paths(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Package+"/"+h.Path)
	}
	return out
}

func TestHybridFindsVocabularyGap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := semanticCorpus(t)
	stub := embedtest.Start(t)
	c, err := embed.New(embed.Config{URL: stub.BaseURL(), Model: "stub"}, embed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := EmbedIndex(ctx, dir, c, EmbedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Embedded != 6 || rep.Vectors != 6 || rep.Dims != embedtest.Dims || rep.Chunks != 6 {
		t.Fatalf("report %+v", rep)
	}
	info, err := Vectors(dir)
	if err != nil || info.Vectors != 6 || info.Model != "stub" || info.Bytes != rep.Bytes {
		t.Fatalf("Vectors = %+v, %v", info, err)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	s := stubSemantic(t, c)
	for q, want := range map[string]string{
		"recurring tasks":           "unix/crontab.md",
		"regular expression syntax": "unix/sed.md",
		"shrink a photo":            "unix/convert.md",
	} {
		lex, note, err := r.SearchHybrid(ctx, Query{Text: q}, nil)
		if err != nil || note != "" || slices.Contains(paths(lex), want) {
			t.Errorf("lexical %q: %v (note %q, err %v): should not find %s", q, paths(lex), note, err, want)
		}
		hits, note, err := r.SearchHybrid(ctx, Query{Text: q, Limit: 3}, s)
		if err != nil || note != "" || !slices.Contains(paths(hits), want) {
			t.Errorf("hybrid %q: %v (note %q, err %v): want %s in the top 3", q, paths(hits), note, err, want)
		}
	}
	// Qualifiers and exclusions filter the semantic half too.
	for _, q := range []string{"recurring tasks package:food", "recurring tasks -crontab", "recurring tasks path:sed", `recurring "fixed times" -cron`} {
		hits, _, err := r.SearchHybrid(ctx, Query{Text: q}, s)
		if err != nil || slices.Contains(paths(hits), "unix/crontab.md") {
			t.Errorf("%q: %v, %v: crontab.md should be filtered out", q, paths(hits), err)
		}
	}
	hits, _, _ := r.SearchHybrid(ctx, Query{Text: "fruit package:food"}, s)
	if !slices.Equal(paths(hits), []string{"food/orchard.md"}) {
		t.Errorf("fruit package:food = %v", paths(hits))
	}
	hits, _, _ = r.SearchHybrid(ctx, Query{Text: `recurring "fixed times"`}, s)
	if len(hits) == 0 || hits[0].Path != "crontab.md" {
		t.Errorf(`recurring "fixed times" = %v`, paths(hits))
	}

	// A stopped endpoint: lexical results and one note.
	stub.Close()
	hits, note, err := r.SearchHybrid(ctx, Query{Text: "crontab"}, s)
	if err != nil || len(hits) == 0 || hits[0].Path != "crontab.md" || !strings.HasPrefix(note, "semantic search off: ") || !strings.Contains(note, "lexical results only") {
		t.Errorf("stopped endpoint: %v, note %q, err %v", paths(hits), note, err)
	}
	// Another model than the vectors': lexical, with a note.
	s2 := *s
	s2.Model = "other"
	if _, note, _ := r.SearchHybrid(ctx, Query{Text: "crontab"}, &s2); !strings.Contains(note, `of model "stub", not "other"`) {
		t.Errorf("model note = %q", note)
	}
}

func TestEmbedIndexOnlyChanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := semanticCorpus(t)
	stub := embedtest.Start(t)
	c, _ := embed.New(embed.Config{URL: stub.BaseURL(), Model: "stub"}, embed.Options{})
	if _, err := EmbedIndex(ctx, dir, c, EmbedOptions{}); err != nil {
		t.Fatal(err)
	}
	// Nothing changed: no request, the file untouched.
	st1, _ := os.Stat(filepath.Join(dir, "index", vectorsFile))
	if rep, err := EmbedIndex(ctx, dir, c, EmbedOptions{}); err != nil || rep.Embedded != 0 || rep.Reused != 6 {
		t.Fatalf("no change: %+v, %v", rep, err)
	}
	if _, n := stub.Counts(); n != 7 {
		t.Errorf("%d texts embedded, want 6 and the dimension check", n)
	}
	st2, _ := os.Stat(filepath.Join(dir, "index", vectorsFile))
	if !os.SameFile(st1, st2) {
		t.Error("vectors.bin rewritten with nothing changed")
	}
	// One document edited, one added, one removed: only the two new texts.
	writeFiles(t, dir, "unix", map[string]string{
		"crontab.md": "# crontab\n\nThe crontab file schedules periodic commands.\n",
		"at.md":      "# at\n\nat runs a command once, later.\n",
	})
	os.Remove(filepath.Join(dir, "packages", "unix", "words.md"))
	pkgs := []Package{{Alias: "unix", Rev: strings.Repeat("1", 40)}, {Alias: "food", Rev: strings.Repeat("2", 40)}}
	if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
		t.Fatal(err)
	}
	before := len(stub.Texts())
	rep, err := EmbedIndex(ctx, dir, c, EmbedOptions{})
	if err != nil || rep.Embedded != 2 || rep.Reused != 4 || rep.Vectors != 6 {
		t.Fatalf("after an edit: %+v, %v", rep, err)
	}
	sent := stub.Texts()[before:]
	slices.Sort(sent)
	if len(sent) != 2 || !strings.Contains(sent[0], "at runs a command") || !strings.Contains(sent[1], "periodic") {
		t.Errorf("embedded %q", sent)
	}
	// A new model embeds everything again.
	c2, _ := embed.New(embed.Config{URL: stub.BaseURL(), Model: "stub-2"}, embed.Options{})
	if rep, err := EmbedIndex(ctx, dir, c2, EmbedOptions{}); err != nil || rep.Embedded != 6 || rep.Reused != 0 || rep.Model != "stub-2" {
		t.Fatalf("new model: %+v, %v", rep, err)
	}
	// The same model name with another dimension: everything again,
	// whether a chunk changed or not.
	for i, dims := range []int{9, 11} {
		stub.Set(0, dims)
		c3, _ := embed.New(embed.Config{URL: stub.BaseURL(), Model: "stub-2"}, embed.Options{})
		if i == 0 {
			writeFiles(t, dir, "unix", map[string]string{"at.md": "# at\n\nat runs a command once, much later.\n"})
			if _, err := Sync(ctx, dir, pkgs, Options{}); err != nil {
				t.Fatal(err)
			}
		}
		if rep, err := EmbedIndex(ctx, dir, c3, EmbedOptions{}); err != nil || rep.Embedded != 6 || rep.Dims != dims {
			t.Fatalf("new dimension %d: %+v, %v", dims, rep, err)
		}
	}
}

// TestEmbedIndexPartial: an endpoint failing half-way keeps what was
// embedded (saved), and the next run embeds only the rest.
func TestEmbedIndexPartial(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := semanticCorpus(t)
	stub := embedtest.Start(t)
	c, _ := embed.New(embed.Config{URL: stub.BaseURL(), Model: "stub"}, embed.Options{Batch: 2, Parallel: 1, Attempts: 1})
	fail := &failAfter{Client: c, n: 1}
	rep, err := EmbedIndex(ctx, dir, fail, EmbedOptions{Group: 2})
	if err == nil || rep == nil || rep.Embedded != 2 || !strings.Contains(err.Error(), "2 of 6 chunks embedded") {
		t.Fatalf("partial: %+v, %v", rep, err)
	}
	if info, _ := Vectors(dir); info.Vectors != 2 {
		t.Fatalf("saved %d vectors, want 2", info.Vectors)
	}
	r, _ := OpenReader(dir)
	defer r.Close()
	if _, note, err := r.SearchHybrid(ctx, Query{Text: "recurring"}, stubSemantic(t, c)); err != nil || note != "" {
		t.Errorf("a partly embedded index: note %q, err %v", note, err)
	}
	rep, err = EmbedIndex(ctx, dir, c, EmbedOptions{Group: 2})
	if err != nil || rep.Embedded != 4 || rep.Reused != 2 {
		t.Fatalf("the rest: %+v, %v", rep, err)
	}
}

// failAfter fails every Embed after its first n.
type failAfter struct {
	*embed.Client
	n int
}

func (f *failAfter) Embed(ctx context.Context, texts []string, done func(int)) ([][]float32, error) {
	if f.n == 0 {
		return nil, &embed.Error{URL: "stub", Msg: "HTTP 500"}
	}
	f.n--
	return f.Client.Embed(ctx, texts, done)
}
