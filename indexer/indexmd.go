package indexer

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctx-dev/ctx/indexer/markdown"
	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/ctx-dev/ctx/internal/tokens"
	"github.com/ctx-dev/ctx/internal/treehash"
	"github.com/ctx-dev/ctx/internal/wording"
	"github.com/ctx-dev/ctx/lockfile"
	"github.com/ctx-dev/ctx/project"
	"github.com/ctx-dev/ctx/source"
	"github.com/ctx-dev/ctx/source/kinds"
)

// Detail levels of one package's section in INDEX.md, from most to least.
const (
	levelFull     = iota // title, path and summary
	levelSentence        // summary cut to its first sentence
	levelTitles          // title and path only
	levelSamples         // document counts per folder, with a few titles each
	levelFolders         // document counts per folder
	levelNone            // the package's header line only
	numLevels
)

var levelNote = [numLevels]string{
	"",
	"summaries cut to their first sentence",
	"titles only",
	"document counts per folder with example titles",
	"document counts per folder",
	"documents not listed",
}

type renderInfo struct {
	Tokens   int
	Degraded string
}

// pkgSection is one package's part of INDEX.md at every detail level,
// computed lazily.
type pkgSection struct {
	memo   *costMemo       // nil: none
	tc     *tokens.Counter // the render's
	pkg    Package
	base   string // where a dir source is from INDEX.md ("../docs/", dirBase; "" for a locked package): its header's, not its documents' paths
	docs   []fileRecord
	indeg  map[string]int // path → links from other documents (nil: none)
	header string
	lines  [numLevels][]string
	cost   [numLevels]int // tokens; -1 not yet computed
	rank   []int          // ranked's answer; nil: not yet computed
	// titleCost[k] is the tokens of the title lines of rank[:k]
	// (titlesCost), extended as needed.
	titleCost []int
	folders   *folderIndex // folderIdx's answer; nil: not yet built
	groups    []group      // allGroups' answer; nil: not yet computed
	// edited holds the paths of the documents that differ from what ctx
	// installed (catalogPart.Edited): their lines carry editMark.
	edited map[string]bool
}

// editMark follows the path of a document that differs from what ctx
// installed (a local edit, or a file a `git pull` rewrote in a team that
// commits packages/), as MCP's answers label it `edited` (trust23).
const editMark = " · local edit"

func (s *pkgSection) entries(level int) []string {
	if s.lines[level] != nil || len(s.docs) == 0 {
		return s.lines[level]
	}
	var out []string
	switch level {
	case levelFull, levelSentence, levelTitles:
		for _, d := range s.docs {
			out = append(out, s.docLine(d, level))
		}
	case levelSamples, levelFolders:
		for _, g := range s.allGroups() {
			out = append(out, s.folderLine(g, level, "document", "documents"))
		}
	case levelNone:
		out = []string{}
	}
	s.lines[level] = out
	return out
}

// entriesUpTo is entries(level), but for a level of document lines not
// built yet it stops once they pass maxBytes, keeping none (over): a
// level over costOf's bound is never rendered (layout drops it for a
// shorter one), and a 500-document package's full lines were built
// whole only to be found too long, on every update (issue 31).
func (s *pkgSection) entriesUpTo(level, maxBytes int) (lines []string, over bool) {
	if s.lines[level] != nil || len(s.docs) == 0 || (level != levelFull && level != levelSentence && level != levelTitles) || linesWhole {
		return s.entries(level), false
	}
	out, n := make([]string, 0, len(s.docs)), 0
	for _, d := range s.docs {
		l := s.docLine(d, level)
		if n += len(l); n > maxBytes {
			return nil, true
		}
		out = append(out, l)
	}
	s.lines[level] = out
	return out, false
}

// linesWhole makes entriesUpTo build every line (as before it stopped at
// the bound): a test's reference render. Never set outside tests.
var linesWhole bool

// docLine is d's line at level (levelFull, levelSentence or levelTitles).
func (s *pkgSection) docLine(d fileRecord, level int) string {
	// The path in the package, for every kind: what get_document and the
	// other tools take (a dir source's folder is in its header).
	l := "- " + inlineText(d.Title) + " (" + codeSpan(d.Path) + ")"
	if s.edited[d.Path] {
		l += editMark
	}
	sum := d.Summary
	if level == levelSentence {
		sum = firstSentence(sum)
	}
	if level != levelTitles && sum != "" && sum != d.Title {
		l += ": " + inlineText(sum)
	}
	return l + "\n"
}

// EntryTitle is an INDEX.md line as its title form (levelTitles) shows
// it: a document's line (docLine: "- Title (`path`): summary") without
// its summary; any other line (a folder's count, prose) as it is. It reads
// what docLine writes, for a reader of INDEX.md that shows fewer words
// (the MCP server's outline). A title or a summary may hold a code span
// in parentheses followed by ": " too: a line with more than one place
// where the path's span may end is kept whole (review20-agent20: a title
// "Run (`make`): build" was cut after "make", which then read as the
// document's path).
func EntryTitle(line string) string {
	if !strings.HasPrefix(line, "- ") {
		return line
	}
	cut := -1 // where the one title form ends
	for i := 2; ; {
		j := strings.Index(line[i:], " (`")
		if j < 0 {
			break
		}
		open := i + j + 2 // the code span's first backtick
		n := 0
		for open+n < len(line) && line[open+n] == '`' {
			n++
		}
		// The span closes at the next run of exactly n backticks.
		for k := open + n; k < len(line); {
			if line[k] != '`' {
				k++
				continue
			}
			m := 0
			for k+m < len(line) && line[k+m] == '`' {
				m++
			}
			if m == n {
				end := k + m
				if end < len(line) && line[end] == ')' {
					after := end + 1
					if strings.HasPrefix(line[after:], editMark) {
						after += len(editMark) // a document edited here keeps its mark
					}
					if after == len(line) || strings.HasPrefix(line[after:], ": ") {
						if cut >= 0 {
							return line // two readings: keep it whole
						}
						cut = after
					}
				}
				break
			}
			k += m
		}
		i = open
	}
	if cut < 0 {
		return line
	}
	return line[:cut]
}

// folderLine is g's line at level (levelSamples or levelFolders), its
// count in the words one and many; the package's root folder is "./".
func (s *pkgSection) folderLine(g group, level int, one, many string) string {
	l := fmt.Sprintf("- %s — %s", codeSpan(g.label), wording.Count(g.n, one, many))
	if level == levelSamples {
		samples := make([]string, len(g.samples))
		for i, t := range g.samples {
			samples[i] = inlineText(t)
		}
		if g.n == 1 {
			l += ": " + samples[0]
		} else {
			l += ", e.g. " + strings.Join(samples, "; ")
		}
	}
	return l + "\n"
}

// The "some titles" form of a section, for a package whose titles do not
// all fit: the title lines (levelTitles) of its k most linked-to
// documents (then by path), in path order, then the others counted per
// folder. layout gives it what the levels leave of the budget, so a
// large package is not cut to a few sample titles while most of the
// budget is unused (audit16 finding 10).

// ranked returns the indexes of s's documents, most linked-to first,
// then spread over the folders (the first document of each folder by
// path, then the second of each…), then by path: titles that do not all
// fit show every folder before a second title of one.
func (s *pkgSection) ranked() []int {
	if s.rank == nil {
		s.rank = make([]int, len(s.docs))
		for i := range s.rank {
			s.rank[i] = i
		}
		sort.Slice(s.rank, func(a, b int) bool { return s.docs[s.rank[a]].Path < s.docs[s.rank[b]].Path })
		nth := make([]int, len(s.docs)) // a document's place in its folder, by path
		seen := map[string]int{}
		for _, i := range s.rank {
			dir := path.Dir(s.docs[i].Path)
			nth[i] = seen[dir]
			seen[dir]++
		}
		sort.SliceStable(s.rank, func(a, b int) bool {
			da, db := s.docs[s.rank[a]], s.docs[s.rank[b]]
			if na, nb := s.indeg[da.Path], s.indeg[db.Path]; na != nb {
				return na > nb
			}
			return nth[s.rank[a]] < nth[s.rank[b]]
		})
	}
	return s.rank
}

// allGroups is the groups of all of s's documents (computed once:
// entries and samplesShown both read it).
func (s *pkgSection) allGroups() []group {
	if s.groups == nil {
		s.groups = s.folderIdx().groups(nil, s.indeg)
	}
	return s.groups
}

// folderIdx is s's documents' folders, built once (someCost runs at each
// step of mostTitles' search).
func (s *pkgSection) folderIdx() *folderIndex {
	if s.folders == nil {
		s.folders = newFolderIndex(s.docs)
	}
	return s.folders
}

// shownOf marks the k most linked-to documents (ranked).
func (s *pkgSection) shownOf(k int) []bool {
	shown := make([]bool, len(s.docs))
	for _, i := range s.ranked()[:k] {
		shown[i] = true
	}
	return shown
}

// someEntries is the section's lines with the titles of its k most
// linked-to documents.
func (s *pkgSection) someEntries(k int) []string {
	shown := s.shownOf(k)
	var out []string
	for i, d := range s.docs {
		if shown[i] {
			out = append(out, s.docLine(d, levelTitles))
		}
	}
	for _, g := range s.folderIdx().groups(shown, nil) {
		out = append(out, s.folderLine(g, levelFolders, "more document", "more documents"))
	}
	return out
}

// titlesCost is the tokens of the title lines of the k most linked-to
// documents (ranked): a prefix sum, each line counted once.
func (s *pkgSection) titlesCost(k int) int {
	if s.titleCost == nil {
		s.titleCost = []int{0}
	}
	rank := s.ranked()
	for n := len(s.titleCost) - 1; n < k; n++ {
		s.titleCost = append(s.titleCost, s.titleCost[n]+s.tc.Count(s.docLine(s.docs[rank[n]], levelTitles)))
	}
	return s.titleCost[k]
}

// someCost is the tokens of the section with k titles (someEntries),
// counted exactly: the title lines' counts are summed once (titlesCost),
// the folder lines of the others counted.
func (s *pkgSection) someCost(k int) int {
	n := s.tc.Count(s.header) + 1 + s.titlesCost(k) // and the blank line after the list
	for _, g := range s.folderIdx().groups(s.shownOf(k), nil) {
		n += s.tc.Count(s.folderLine(g, levelFolders, "more document", "more documents"))
	}
	return n
}

// mostTitles returns the largest k below the number of documents whose
// section (someEntries) costs at most limit tokens, or 0. It counts the
// title lines in rank order only until they alone are over limit.
func (s *pkgSection) mostTitles(limit int) int {
	rank := s.ranked()
	head, hi := s.tc.Count(s.header)+1, 0
	for hi < len(rank)-1 && head+s.titlesCost(hi+1) <= limit {
		hi++
	}
	lo := 0 // someCost(lo) <= limit is not assumed: checked below
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if s.someCost(mid) <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo > 0 && s.someCost(lo) > limit {
		return 0
	}
	return lo
}

// costOf returns the tokens of the section at level, or limit+1 when it is
// clearly over limit. Long sections are estimated from a stride sample of
// their lines (counting every line of a 4,000-document package at every
// level would dominate an incremental Sync); renderIndex counts the final
// file exactly and retries, so an estimate never breaks the budget.
func (s *pkgSection) costOf(level, limit int) int {
	if s.cost[level] >= 0 {
		return s.cost[level]
	}
	// o200k averages about 4 bytes per token on English markdown (3 on
	// CJK text and URLs) and rarely more than 6.
	es, over := s.entriesUpTo(level, 6*limit)
	bytes := 0
	for _, l := range es {
		bytes += len(l)
	}
	if over || bytes > 6*limit {
		s.cost[level] = limit + 1
		return limit + 1
	}
	key := s.memo.key(s.header, es)
	if n, ok := s.memo.get(key); ok {
		s.cost[level] = n
		return n
	}
	n := s.tc.Count(s.header)
	switch {
	case len(es) <= sampleLines:
		for _, l := range es {
			n += s.tc.Count(l)
		}
	default:
		stride := len(es) / sampleLines
		sampled, sampledBytes := 0, 0
		for i := 0; i < len(es); i += stride {
			sampled += s.tc.Count(es[i])
			sampledBytes += len(es[i])
		}
		n += int(float64(sampled) * float64(bytes) / float64(max(sampledBytes, 1)))
	}
	if level != levelNone && len(es) > 0 {
		n++ // the blank line after the list
	}
	s.memo.put(key, n)
	s.cost[level] = n
	return n
}

// sampleLines is how many lines costOf counts exactly in a long section.
const sampleLines = 200

type group struct {
	label   string
	n       int
	samples []string // the first titles, by path
}

// samplesPerGroup is how many titles levelSamples shows per folder.
const samplesPerGroup = 3

// maxFolderDepth is the deepest folder depth groups counts at.
const maxFolderDepth = 6

// folderIndex is documents' folders at each depth groups tries,
// built once, so that the groups of a subset (the documents a "some
// titles" section does not show) cost no copy of the documents and no
// second split of their paths: the counts per folder are the whole
// set's, less the documents left out.
type folderIndex struct {
	docs   []fileRecord
	parts  []int         // per document, its folder's depth ("." is 0)
	depths []folderDepth // depth 1, 2…: up to the first no document is deeper than
}

// folderDepth is the folders at one depth.
type folderDepth struct {
	labels  []string // "a/b/" or "./", sorted
	of      []int    // per document, its folder's index in labels
	members []int    // per label, its documents (in order): members[start[l]:start[l+1]]
	start   []int
}

func newFolderIndex(docs []fileRecord) *folderIndex {
	x := &folderIndex{docs: docs, parts: make([]int, len(docs))}
	dirs := make([]string, len(docs))
	for i, d := range docs {
		dirs[i] = path.Dir(d.Path)
		if dirs[i] != "." {
			x.parts[i] = strings.Count(dirs[i], "/") + 1
		}
	}
	for depth := 1; depth <= maxFolderDepth; depth++ {
		ids := map[string]int{}
		var labels []string
		of := make([]int, len(docs))
		deeper := false
		for i, dir := range dirs {
			pre := dir // dir's first depth elements
			if x.parts[i] > depth {
				deeper = true
				n := 0
				for k := 0; k < len(dir); k++ {
					if dir[k] == '/' {
						if n++; n == depth {
							pre = dir[:k]
							break
						}
					}
				}
			}
			id, ok := ids[pre]
			if !ok {
				id = len(labels)
				ids[pre] = id
				label := "./"
				if pre != "." {
					label = pre + "/"
				}
				labels = append(labels, label)
			}
			of[i] = id
		}
		// Sort the labels; renumber.
		order := make([]int, len(labels))
		for k := range order {
			order[k] = k
		}
		sort.Slice(order, func(a, b int) bool { return labels[order[a]] < labels[order[b]] })
		re := make([]int, len(labels))
		fd := folderDepth{labels: make([]string, len(labels)), of: of, start: make([]int, len(labels)+1)}
		for k, old := range order {
			re[old] = k
			fd.labels[k] = labels[old]
		}
		for i := range of {
			of[i] = re[of[i]]
			fd.start[of[i]+1]++
		}
		for k := range fd.labels {
			fd.start[k+1] += fd.start[k]
		}
		fd.members = make([]int, len(docs))
		next := append([]int(nil), fd.start[:len(fd.labels)]...)
		for i, l := range of {
			fd.members[next[l]] = i
			next[l]++
		}
		x.depths = append(x.depths, fd)
		if !deeper {
			break
		}
	}
	return x
}

// groups counts the documents not shown (shown nil: all of them) per
// folder, at the deepest folder depth that still gives at most 40 groups
// (so a package with one folder per document is summarised by its upper
// folders). A folder's sample titles are its most linked-to documents
// (indeg, by path) when any is linked to, so that they are the ones
// INDEX.md keeps longest. With shown, the groups have no sample titles
// (someEntries' folder lines name none) and indeg must be nil.
func (x *folderIndex) groups(shown []bool, indeg map[string]int) []group {
	const maxGroups = 40
	var best []group
	for depth, fd := range x.depths {
		left := make([]int, len(fd.labels)) // documents not shown per folder
		deeper := false
		for l := range fd.labels {
			left[l] = fd.start[l+1] - fd.start[l]
		}
		for i, p := range x.parts {
			if shown != nil && shown[i] {
				left[fd.of[i]]--
			} else if p > depth+1 {
				deeper = true
			}
		}
		n := 0
		for _, c := range left {
			if c > 0 {
				n++
			}
		}
		if depth > 0 && n > maxGroups {
			break
		}
		best = make([]group, 0, n)
		for l, label := range fd.labels {
			if left[l] == 0 {
				continue
			}
			g := group{label: label, n: left[l]}
			if shown == nil {
				g.samples = x.samples(fd.members[fd.start[l]:fd.start[l+1]], indeg)
			}
			best = append(best, g)
		}
		if !deeper {
			break
		}
	}
	return best
}

// samples are a folder's sample titles: titles spread over the folder
// (the first few by path are often not typical: "!", "$", "%" in a list
// of commands), or its most linked-to documents' when any is linked to.
func (x *folderIndex) samples(m []int, indeg map[string]int) []string {
	if linked := mostLinked(x.docs, m, indeg); linked != nil {
		m = linked
	}
	var samples []string
	for k := 0; k < min(samplesPerGroup, len(m)); k++ {
		idx := k
		if len(m) > samplesPerGroup && indeg[x.docs[m[0]].Path] == 0 {
			idx = (k + 1) * len(m) / (samplesPerGroup + 1)
		}
		samples = append(samples, markdown.Clip(x.docs[m[idx]].Title, 60))
	}
	return samples
}

// mostLinked returns the members (indexes into docs) ordered by in-degree,
// most linked-to first (then by path), or nil when none is linked to.
func mostLinked(docs []fileRecord, members []int, indeg map[string]int) []int {
	found := false
	for _, i := range members {
		found = found || indeg[docs[i].Path] > 0
	}
	if !found {
		return nil
	}
	out := append([]int(nil), members...)
	sort.SliceStable(out, func(a, b int) bool { return indeg[docs[out[a]].Path] > indeg[docs[out[b]].Path] })
	return out
}

// inlineText is a title or summary as INDEX.md writes it in an entry:
// escaped (safetext), and with every backtick string that no later one of
// the same length closes within s escaped (CommonMark's code-span rule),
// so that none can open a code span the entry's path, or a later title or
// summary, would close (red18 finding 6; review18a: an even number of
// backticks, "`x```", leaves one open too); s's own code spans stay. An
// author's backslash escape is kept as it is.
func inlineText(s string) string {
	s = safetext.Escape(s)
	if !strings.Contains(s, "`") {
		return s
	}
	run := func(i int) int {
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		return n
	}
	// closer is where the backtick string of length n that closes one
	// opened before from starts, or -1.
	closer := func(from, n int) int {
		for j := from; j < len(s); {
			if s[j] != '`' {
				j++
				continue
			}
			m := run(j)
			if m == n {
				return j
			}
			j += m
		}
		return -1
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\' && i+1 < len(s) && strings.IndexByte(asciiPunct, s[i+1]) >= 0:
			b.WriteString(s[i : i+2])
			i += 2
		case s[i] == '`':
			n := run(i)
			if end := closer(i+n, n); end >= 0 {
				b.WriteString(s[i : end+n])
				i = end + n
				continue
			}
			b.WriteString(strings.Repeat("\\`", n))
			i += n
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// asciiPunct is CommonMark's ASCII punctuation: what a backslash escapes.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// codeSpan renders s, escaped by safetext.Escape, as a markdown code span
// whose fence is longer than any run of backquotes in it (CommonMark), so that
// no name can end the span early or be read as a link: "a`b" is “a`b“.
func codeSpan(s string) string {
	s = safetext.Escape(s)
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		len(s) > 1 && s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "" {
		s = " " + s + " "
	}
	return fence + s + fence
}

// dirBase is where a dir package's files are, seen from the folder from
// (INDEX.md's), slash-separated and ending in "/": "../docs/" for ./docs,
// "../" for AGENTS.md at the project root. A source given as an absolute
// path, or a from of "", gives the folder as the source names it.
func dirBase(from string, p Package) string {
	dir := filepath.ToSlash(p.Dir)
	if rel, err := filepath.Rel(from, p.Dir); err == nil && from != "" && !filepath.IsAbs(p.Source) {
		dir = filepath.ToSlash(rel)
	} else if from == "" {
		dir = strings.TrimSuffix(p.Source, "/")
		if p.Only != "" {
			dir = path.Dir(dir)
		}
	}
	return strings.TrimSuffix(dir, "/") + "/"
}

// installedBehind reads, of each locked package of pkgs, the commit ctx
// installed (its state's head, project.ReadStateHead) and returns those
// behind the lock (project.BehindRev), by alias; contextDir is the
// project's .context/. It is read when INDEX.md is rendered, never on a
// search: what starts a render is the package's identity, whose State
// stamp an install changes (Package.State).
func installedBehind(contextDir string, pkgs []Package) map[string]string {
	proj, err := project.At(filepath.Dir(contextDir))
	if err != nil {
		return nil
	}
	var behind map[string]string
	var lock *lockfile.Lock
	for _, p := range pkgs {
		if p.Rev == "" || p.Kind == project.KindDir {
			continue
		}
		h, err := project.ReadStateHead(proj.StatePath(p.Alias))
		if err != nil {
			continue
		}
		if rev := project.BehindRev(h.Commit, p.Rev); rev != "" {
			if behind == nil {
				behind = map[string]string{}
			}
			if lock == nil {
				lock, _ = proj.ReadLock()
			}
			if filesFollowLock(proj, lock, p.Alias) {
				rev = followedMark
			}
			behind[p.Alias] = rev
		}
	}
	return behind
}

// followedMark is installedBehind's word for a package behind its lock
// whose files are the lock's text (filesFollowLock): its line names the
// lock's commit, and that `ctx install` records the files.
const followedMark = "="

// filesFollowLock reports whether the folder of alias, a package behind
// its lock, holds the lock entry's text as a whole: a `git pull` in a
// team that commits packages/ brought the new lock and the files, and no
// install followed (trust23). Its files' h1 hash is the entry's (treehash,
// verify's check; workspace's InstalledFiles.FollowedLock answers the
// same for ctx mcp, sparing the files its state proves). Every file of
// the package is read: asked only of a package behind its lock, when
// INDEX.md is rendered or its part made.
func filesFollowLock(proj project.Project, lock *lockfile.Lock, alias string) bool {
	if lock == nil {
		return false
	}
	e, ok := lock.Packages[alias]
	if !ok || !treehash.ValidHash(e.Hash) {
		return false
	}
	h, err := treehash.HashDir(proj.PackageDir(alias))
	return err == nil && h == e.Hash
}

// editedOf is, of a locked package whose state file is statePath, the
// listed documents (recs, the catalogue's records) that differ from what
// ctx installed, sorted and joined by NUL (catalogPart.Edited): a record
// whose content hash is not the state's sum of the file (the record's
// hash is the first 16 bytes of the same SHA-256;
// project.ReadStateSums), or a file the state does not hold. A file the
// state records no sum of (an older ctx, a link) and a record hashed with
// its kep.yaml are not told; nor is any when the state cannot be read
// (the package is not served as installed then) or records neither a
// file nor a hash (ReadStateSums' nil). A state of an empty package
// tells every document as one ctx did not install, as status lists it
// (rv-trust23). Sync asks it for a part it makes and for one whose
// package's state or locked commit changed (markEdited).
func editedOf(statePath string, recs []fileRecord) string {
	sums, err := project.ReadStateSums(statePath)
	if err != nil || sums == nil {
		return ""
	}
	var out []string
	for _, r := range recs {
		if r.Skipped != "" || r.KEP != nil {
			continue
		}
		if sum, ok := sums[r.Path]; ok && (sum == "" || strings.HasPrefix(sum, r.Hash)) {
			continue
		}
		out = append(out, r.Path)
	}
	sort.Strings(out)
	return strings.Join(out, "\x00")
}

// editedSet is catalogPart.Edited as a set (nil: none).
func editedSet(joined string) map[string]bool {
	if joined == "" {
		return nil
	}
	out := map[string]bool{}
	for _, p := range strings.Split(joined, "\x00") {
		out[p] = true
	}
	return out
}

// provenance is where a package's files come from, each kind in its own
// terms (its source.Kind's Provenance); base is a dir source's place in
// the project (dirBase).
func provenance(p Package, base string) []string {
	k, ok := kinds.Of(p.Kind)
	if !ok {
		return nil
	}
	return k.Provenance(source.Origin{Source: p.Source, Path: p.Path, Ref: p.Ref, Rev: p.Rev, Fetched: p.Fetched, Place: base + p.Only}, codeSpan)
}

// renderIndexMemo writes INDEX.md for the packages, within budget tokens
// as counted by o200k. from is INDEX.md's folder: a dir source's folder
// is shown relative to it (dirBase). It degrades package by package,
// always shortening the currently largest section by one level, and says
// in the file what it shortened. The output depends only on its input. It
// takes the token counts of sections from memo, and adds the ones it
// counts (memo may be nil). recent is the record of what the last update
// changed (recentPart).
//
// behind maps the alias of a package behind its lock to the commit its
// files are (installedBehind): its line names that commit, and the lock's
// as the one `ctx install` brings. edited holds, by alias, the documents
// that differ from what ctx installed (catalogPart.Edited): their lines
// are marked (editMark) and the package's line counts them.
func renderIndexMemo(pkgs []Package, files map[string][]fileRecord, budget int, from string, memo *costMemo, recent []RecentChange, behind map[string]string, edited map[string]map[string]bool) (string, renderInfo) {
	// INDEX.md is counted with o200k (internal/tokens): the same entry
	// lines at several detail levels, then the whole file; the counter
	// remembers the pieces of the lines it has counted, and starts from the
	// pieces of the last render (memo): words counted before need no codec.
	tc := new(tokens.Counter)
	memo.seed(tc)
	defer memo.keepPieces(tc)
	var secs []*pkgSection
	indeg := inDegrees(pkgs, files)
	totalDocs, live := 0, 0
	for _, p := range pkgs {
		s := &pkgSection{pkg: p, memo: memo, tc: tc, edited: edited[p.Alias]}
		for k, n := range indeg {
			if k.alias == p.Alias {
				if s.indeg == nil {
					s.indeg = map[string]int{}
				}
				s.indeg[k.path] = n
			}
		}
		if p.Kind == project.KindDir {
			s.base = dirBase(from, p)
			live++
		}
		for _, r := range files[p.Alias] {
			if r.Skipped == "" {
				s.docs = append(s.docs, r)
			}
		}
		totalDocs += len(s.docs)
		meta := provenance(p, s.base)
		if behind[p.Alias] == followedMark {
			meta = append(meta, "files pulled with the lock (`ctx install` records them)")
		} else if rev := behind[p.Alias]; rev != "" {
			installed := p
			installed.Rev = rev
			meta = append(provenance(installed, s.base), "behind the lock (locked "+codeSpan(naming.ShortRev(p.Rev, 7))+": run `ctx install`)")
		}
		meta = append(meta, wording.Count(len(s.docs), "document", "documents"))
		if n := len(s.edited); n > 0 {
			meta = append(meta, fmt.Sprintf("%s: not the commit's text (`ctx status` lists them)", wording.Count(n, "local edit", "local edits")))
		}
		s.header = "## " + safetext.Escape(p.Alias) + "\n\n" + strings.Join(meta, " · ") + "\n\n"
		for l := range s.cost {
			s.cost[l] = -1
		}
		secs = append(secs, s)
	}
	top := "# Context index\n\n"
	if len(pkgs) == 0 {
		top += "No packages are installed. `ctx list` shows the project's packages: run `ctx install` for those not installed, and restore a dir source listed as missing (its file or folder is gone).\n"
	} else {
		where := "under `packages/<alias>/` next to this file"
		switch live {
		case 0:
		case len(pkgs):
			where = "read in place from the project, each from the folder (or file) its header shows (relative to this file)"
		default:
			where += "; live sources are read in place, each from the folder (or file) its header shows (relative to this file)"
		}
		top += fmt.Sprintf("%s, %s, %s. "+
			"Search them with the `search` MCP tool or `ctx search QUERY`; read one with `get_document`.\n\n",
			wording.Count(len(pkgs), "package", "packages"), wording.Count(totalDocs, "document", "documents"), where)
		top += recentPart(recent, pkgs, budget, tc)
	}

	target := budget
	var out string
	var degraded string
	for attempt := 0; attempt < 8; attempt++ {
		out, degraded = layout(top, secs, budget, target, tc)
		n := tc.Count(out)
		if n <= budget {
			return out, renderInfo{Tokens: n, Degraded: degraded}
		}
		target -= n - budget + 16
	}
	out = hardCut(out, budget, tc)
	if degraded == "" {
		degraded = "cut to fit"
	}
	return out, renderInfo{Tokens: tc.Count(out), Degraded: degraded}
}

// layout chooses a level per section so that the estimated size (the sum
// of the parts' token counts) fits target, and renders the file.
func layout(top string, secs []*pkgSection, budget, target int, tc *tokens.Counter) (string, string) {
	levels := make([]int, len(secs))
	const noteReserve = 60 // the note's fixed words; the per-package parts are counted below
	fixed := tc.Count(top)
	total := func() int {
		n := fixed
		for i, s := range secs {
			n += s.costOf(levels[i], target)
			if levels[i] != levelFull {
				n += tc.Count(s.pkg.Alias) + 8 // its mention in the note
			}
		}
		for _, l := range levels {
			if l != levelFull {
				return n + noteReserve
			}
		}
		return n
	}
	for total() > target {
		pick := -1
		for i, s := range secs {
			if levels[i] == levelNone {
				continue
			}
			if pick < 0 || s.costOf(levels[i], target) > secs[pick].costOf(levels[pick], target) {
				pick = i
			}
		}
		if pick < 0 {
			break
		}
		levels[pick]++
	}
	// Greedy degrading can overshoot (every big package dropped a level
	// when one would have been enough): give back detail, smallest
	// sections first, while the total still fits.
	for {
		up := -1
		for i, s := range secs {
			if levels[i] == levelFull {
				continue
			}
			levels[i]--
			fits := total() <= target
			levels[i]++
			if fits && (up < 0 || s.costOf(levels[i]-1, target) < secs[up].costOf(levels[up]-1, target)) {
				up = i
			}
		}
		if up < 0 {
			break
		}
		levels[up]--
	}

	// What the levels leave goes to the packages shown by folder counts:
	// as many of their titles as fit (someEntries), in order.
	some := make([]int, len(secs))
	const someNote = 16 // its mention in the note grows by "titles of K of N documents…"
	if left := target - total(); left > someNote {
		for i, s := range secs {
			if levels[i] < levelSamples || levels[i] == levelNone || left <= someNote {
				continue
			}
			cur := s.costOf(levels[i], target)
			k := s.mostTitles(cur + left - someNote)
			if k > samplesShown(s, levels[i]) {
				some[i] = k
				left -= s.someCost(k) - cur + someNote
			}
		}
	}

	// Still too big (very many packages, tiny budget): list as many
	// package headers as fit.
	shown := len(secs)
	if total() > target {
		n := fixed + noteReserve + 20
		shown = 0
		for shown < len(secs) {
			c := secs[shown].costOf(levelNone, target) + tc.Count(secs[shown].pkg.Alias) + 8
			if n+c > target {
				break
			}
			n += c
			shown++
		}
	}

	var note []string
	var degraded []string
	byLevel := map[int][]string{}
	for i, s := range secs[:shown] {
		if some[i] > 0 {
			n := fmt.Sprintf("%s: titles of %d of %d documents (the most linked-to first, then over its folders), the others counted per folder", s.pkg.Alias, some[i], len(s.docs))
			note = append(note, n)
			degraded = append(degraded, n)
		} else if levels[i] != levelFull {
			byLevel[levels[i]] = append(byLevel[levels[i]], s.pkg.Alias)
		}
	}
	for l := levelSentence; l < numLevels; l++ {
		names := byLevel[l]
		if len(names) == 0 {
			continue
		}
		who := strings.Join(names, ", ")
		if len(names) > 8 {
			who = wording.Count(len(names), "package", "packages")
		}
		note = append(note, who+": "+levelNote[l])
		degraded = append(degraded, who+": "+levelNote[l])
	}
	if shown < len(secs) {
		note = append(note, fmt.Sprintf("%s not shown (`ctx list` lists them)", wording.Count(len(secs)-shown, "more package", "more packages")))
		degraded = append(degraded, wording.Count(len(secs)-shown, "package", "packages")+" not shown")
	}

	var b strings.Builder
	b.WriteString(top)
	if len(note) > 0 {
		fmt.Fprintf(&b, "> Shortened to fit the budget of %d tokens — %s. Every document is still searchable: "+
			"use the `search` and `get_document` MCP tools, or `ctx search QUERY`.\n\n", budget, strings.Join(note, "; "))
	}
	for i, s := range secs[:shown] {
		b.WriteString(s.header)
		es := s.entries(levels[i])
		if some[i] > 0 {
			es = s.someEntries(some[i])
		}
		for _, l := range es {
			b.WriteString(l)
		}
		if len(es) > 0 {
			b.WriteString("\n")
		}
	}
	out := strings.TrimRight(b.String(), "\n") + "\n"
	return out, strings.Join(degraded, "; ")
}

// samplesShown is how many titles s names at level.
func samplesShown(s *pkgSection, level int) int {
	if level != levelSamples {
		return 0
	}
	n := 0
	for _, g := range s.allGroups() {
		n += len(g.samples)
	}
	return n
}

// hardCut keeps the longest prefix of whole lines that fits budget with a
// closing note; the last resort when estimates were wrong.
func hardCut(out string, budget int, tc *tokens.Counter) string {
	const tail = "\n…(cut to fit the token budget; use `ctx search` or the `search` MCP tool)\n"
	lines := strings.SplitAfter(out, "\n")
	fits := func(n int) bool { return tc.Count(strings.Join(lines[:n], "")+tail) <= budget }
	lo, hi := 0, len(lines) // fits(lo) is assumed; find the largest n that fits
	if !fits(0) {
		return "# Context index\n"
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return strings.Join(lines[:lo], "") + tail
}
