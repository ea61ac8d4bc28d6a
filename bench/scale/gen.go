package main

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// corpusPackage is one package cut from the corpus: a folder of it.
type corpusPackage struct {
	alias string
	src   string // the folder in the corpus
	files []string
}

// cutCorpus cuts the corpus into packages: each sub-folder of a corpus
// folder with five or more is one (k8s-keps: one per SIG), with the files
// beside them grouped by their first letter; a folder of 200 files or more
// and few sub-folders is cut by first letter (tldr-common: a-z); any other
// (rust-book) is one package.
func cutCorpus(corpus string) ([]corpusPackage, error) {
	tops, err := os.ReadDir(corpus)
	if err != nil {
		return nil, err
	}
	var out []corpusPackage
	for _, top := range tops {
		if !top.IsDir() {
			continue
		}
		root := filepath.Join(corpus, top.Name())
		ents, err := os.ReadDir(root)
		if err != nil {
			return nil, err
		}
		dirs, loose := 0, 0
		for _, e := range ents {
			if e.IsDir() {
				dirs++
			} else {
				loose++
			}
		}
		if dirs < 5 && loose < 200 {
			files, err := listFiles(root)
			if err != nil {
				return nil, err
			}
			out = append(out, corpusPackage{alias: top.Name(), src: root, files: files})
			continue
		}
		byLetter := map[string][]string{}
		for _, e := range ents {
			if e.IsDir() && dirs >= 5 {
				files, err := listFiles(filepath.Join(root, e.Name()))
				if err != nil {
					return nil, err
				}
				for i := range files {
					files[i] = e.Name() + "/" + files[i]
				}
				out = append(out, corpusPackage{alias: top.Name() + "-" + e.Name(), src: root, files: files})
				continue
			}
			if e.IsDir() { // a few folders beside many files
				files, err := listFiles(filepath.Join(root, e.Name()))
				if err != nil {
					return nil, err
				}
				for _, f := range files {
					byLetter["0"] = append(byLetter["0"], e.Name()+"/"+f)
				}
				continue
			}
			if e.Type().IsRegular() {
				l := strings.ToLower(e.Name()[:1])
				if l < "a" || l > "z" {
					l = "0"
				}
				byLetter[l] = append(byLetter[l], e.Name())
			}
		}
		for l, files := range byLetter {
			out = append(out, corpusPackage{alias: top.Name() + "-" + l, src: root, files: files})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].alias < out[j].alias })
	return out, nil
}

// listFiles lists the regular files under root, slash-separated.
func listFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out, err
}

// copyPackage copies a corpus package's files into dst.
func copyPackage(p corpusPackage, dst string) (files int, bytes int64, err error) {
	for _, rel := range p.files {
		n, err := copyFile(filepath.Join(p.src, filepath.FromSlash(rel)), filepath.Join(dst, filepath.FromSlash(rel)))
		if err != nil {
			return files, bytes, err
		}
		files++
		bytes += n
	}
	return files, bytes, nil
}

func copyFile(src, dst string) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, err
	}
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// vocab is the corpus's words with their counts, drawn from in
// proportion (a Zipf-like distribution, as the corpus's own).
type vocab struct {
	words []string
	cum   []int64 // cumulative counts
}

// buildVocab counts the words (letters, then letters, digits, - and ') of
// the corpus's markdown files and keeps the most frequent max.
func buildVocab(corpus string, max int) (*vocab, error) {
	counts := map[string]int64{}
	err := filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !strings.HasSuffix(p, ".md") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			for _, w := range strings.FieldsFunc(sc.Text(), func(r rune) bool {
				return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '\''
			}) {
				w = strings.Trim(w, "-'")
				if w == "" || !unicode.IsLetter([]rune(w)[0]) || len(w) > 30 {
					continue
				}
				counts[strings.ToLower(w)]++
			}
		}
		return sc.Err()
	})
	if err != nil {
		return nil, err
	}
	type wc struct {
		w string
		c int64
	}
	all := make([]wc, 0, len(counts))
	for w, c := range counts {
		all = append(all, wc{w, c})
	}
	slices.SortFunc(all, func(a, b wc) int {
		if a.c != b.c {
			return int(b.c - a.c)
		}
		return strings.Compare(a.w, b.w)
	})
	all = all[:min(max, len(all))]
	v := &vocab{}
	var sum int64
	for _, x := range all {
		sum += x.c
		v.words = append(v.words, x.w)
		v.cum = append(v.cum, sum)
	}
	return v, nil
}

// word draws one word in proportion to its count.
func (v *vocab) word(r *rand.Rand) string {
	x := r.Int64N(v.cum[len(v.cum)-1])
	return v.words[sort.Search(len(v.cum), func(i int) bool { return v.cum[i] > x })]
}

// rare draws one of the less frequent words (rank 200 on, or the less
// frequent half of a small vocabulary), uniformly, for names.
func (v *vocab) rare(r *rand.Rand) string {
	from := min(200, len(v.words)/2)
	return v.words[from+r.IntN(len(v.words)-from)]
}

// newRand is the generator's source: the same seed, the same documents.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5ca1e)) }

func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

func capitalize(s string) string {
	if s == "" {
		return s
	}
	rs := []rune(s)
	rs[0] = unicode.ToUpper(rs[0])
	return string(rs)
}

func (v *vocab) draw(r *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = v.word(r)
	}
	return out
}

func (v *vocab) heading(r *rand.Rand) string {
	ws := v.draw(r, between(r, 2, 6))
	ws[0] = capitalize(ws[0])
	ws[len(ws)-1] = v.rare(r)
	return strings.Join(ws, " ")
}

func (v *vocab) sentence(r *rand.Rand, b *strings.Builder) {
	ws := v.draw(r, between(r, 6, 26))
	ws[0] = capitalize(ws[0])
	if r.IntN(6) == 0 {
		i := r.IntN(len(ws))
		ws[i] = "`" + v.rare(r) + "`"
	}
	if len(ws) > 10 && r.IntN(3) == 0 {
		ws[len(ws)/2] += ","
	}
	b.WriteString(strings.Join(ws, " "))
	b.WriteString(". ")
}

// document writes one generated markdown document: sometimes front
// matter, an H1 title, an introduction, then sections (H2, some H3) of
// paragraphs, lists and code blocks of realistic lengths. It returns the
// number of headings (H1–H3), about its number of chunks.
func (v *vocab) document(r *rand.Rand, b *strings.Builder) int {
	title := v.heading(r)
	if r.IntN(3) == 0 {
		fmt.Fprintf(b, "---\ntitle: %s\ntags: [%s, %s]\n---\n\n", title, v.rare(r), v.rare(r))
	}
	fmt.Fprintf(b, "# %s\n\n", title)
	paragraphs := func(lo, hi int) {
		for range between(r, lo, hi) {
			switch r.IntN(8) {
			case 0:
				for range between(r, 3, 7) {
					b.WriteString("- ")
					v.sentence(r, b)
					b.WriteString("\n")
				}
			case 1:
				b.WriteString("```sh\n")
				for range between(r, 1, 6) {
					fmt.Fprintf(b, "%s %s --%s %s\n", v.rare(r), v.word(r), v.rare(r), v.word(r))
				}
				b.WriteString("```\n")
			default:
				for range between(r, 2, 6) {
					v.sentence(r, b)
				}
				b.WriteString("\n")
			}
			b.WriteString("\n")
		}
	}
	paragraphs(1, 2)
	n := 1
	for range between(r, 3, 9) {
		level := "##"
		if n > 1 && r.IntN(3) == 0 {
			level = "###"
		}
		fmt.Fprintf(b, "%s %s\n\n", level, v.heading(r))
		paragraphs(1, 4)
		n++
	}
	return n
}

// generatePackage writes docs documents into dir, in folders of 5–30, and
// returns the files written, bytes and headings.
func (v *vocab) generatePackage(seed uint64, dir string, docs int) (files int, bytes int64, heads int, err error) {
	r := newRand(seed)
	folder, left := "", 0
	var b strings.Builder
	for i := range docs {
		if left == 0 {
			folder, left = fmt.Sprintf("%s-%s", v.rare(r), v.word(r)), between(r, 5, 30)
		}
		left--
		b.Reset()
		heads += v.document(r, &b)
		p := filepath.Join(dir, folder, fmt.Sprintf("%s-%s-%d.md", v.rare(r), v.rare(r), i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return files, bytes, heads, err
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			return files, bytes, heads, err
		}
		files++
		bytes += int64(b.Len())
	}
	return files, bytes, heads, nil
}
