package indexer

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	index "github.com/blevesearch/bleve_index_api"
	"github.com/ctx-dev/ctx/internal/confine"
)

// Versioned copies of a page (issue 27).
//
// Many documentation sources keep a copy of every page per release:
// Docusaurus's website/docs/P beside website/versioned_docs/version-3.13.x/P,
// Hugo's site/content/docs/main/P beside site/content/docs/v1.13/P, or
// docs/P beside docs/v1.12/P. A search would list the same page five times,
// the old copies crowding out other pages, and an agent may read a stale
// release's instructions. So:
//
//   - Detect (versionFamilies): a folder named as a version (versionFolder:
//     v1.13, 1.13, version-3.13.x, v3.6.x) whose pages are copies of a
//     sibling's: the same path below the folder, for at least
//     minSharedCopies pages (a v2/ API folder with other pages has none or
//     one), pages of a kind (release notes per version, docKind) aside
//     (readVersions). The sibling is another version folder, the
//     unversioned folder (docs/P beside versioned_docs/version-X/P or
//     beside docs/v1.12/P) or a folder named main, master, next or latest
//     beside the version folders.
//   - Rank (versionMap.order): an ordering rule, not a weight. A copy of an
//     older release comes after the best chunk of its page's current copy
//     and latest release's copy (the head copies) when one is among the
//     candidates; a query that names a version (the query's words' version
//     forms, versionForms) makes that version's copy the head instead.
//   - Answer (collectHits, fuse): one entry per page, the first of its
//     copies in rank order, naming the other versions it exists in
//     (Hit.Versions).
//
// minSharedCopies is not tuned: one page in common (an index.md, a
// README) is what any two folders may have; two is the least that says a
// folder copies another.
const minSharedCopies = 2

// maxOtherVersions bounds the versions a hit names (Hit.Versions): the
// current copies, then the newest. A repository may keep thousands of
// version folders; an agent reads every label of every hit.
const maxOtherVersions = 10

// currentFolders name the copy of the pages being written, beside the
// version folders.
var currentFolders = map[string]bool{"main": true, "master": true, "next": true, "latest": true}

// currentLabel names an unversioned copy (docs/P beside
// versioned_docs/version-X/P) in Hit.Versions.
const currentLabel = "current"

// versionFolder reports whether seg names a version, and its label
// ("version-v3.13.x" is "v3.13.x") and the numbers that order it. A number
// without "v" or "version-" needs a dot (a folder "2" is not a version)
// and is not a date (datedFolder: 2024.01 holds a month's notes).
func versionFolder(seg string) (label string, nums []int, ok bool) {
	if !strings.ContainsAny(seg, "0123456789") {
		return "", nil, false
	}
	s := strings.ToLower(seg)
	label = strings.TrimPrefix(s, "version-")
	prefixed := len(label) < len(s)
	core := label
	if strings.HasPrefix(core, "v") {
		core, prefixed = core[1:], true
	}
	core = strings.TrimSuffix(core, ".x")
	if core == "" {
		return "", nil, false
	}
	for _, p := range strings.Split(core, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" || p[0] == '+' {
			return "", nil, false
		}
		nums = append(nums, n)
	}
	if !prefixed && (len(nums) < 2 || datedFolder(core)) {
		return "", nil, false
	}
	return label, nums, true
}

// datedFolder reports whether a folder's dotted number (no "v" or
// "version-") is a date as folders of notes and posts are named:
// 2024.01 or 2024.01.15, a year then a month (and a day) of two digits.
// A release numbered by its year (CalVer 2024.1) writes no leading zero
// for a month below 10 and stays a version; so does v2024.01; its months
// 10 to 12 are judged with their siblings (calverMonth).
func datedFolder(core string) bool {
	parts := strings.Split(core, ".")
	if len(parts) > 3 || len(parts[0]) != 4 || parts[0] < "1970" || parts[0] > "2199" {
		return false
	}
	in := func(p string, lo, hi int) bool {
		n, err := strconv.Atoi(p)
		return len(p) == 2 && err == nil && n >= lo && n <= hi
	}
	return in(parts[1], 1, 12) && (len(parts) == 2 || in(parts[2], 1, 31))
}

// calverMonth reports whether seg, a folder datedFolder takes for a date,
// may be a CalVer release of a month from 10 to 12 (2024.10, 2024.12.1):
// it is one when a sibling writes its month without a leading zero
// (calverShort: 2024.1), so its parent's releases are numbered so, and
// then its numbers are nums.
func calverMonth(seg string) (nums []int, ok bool) {
	if len(seg) < 7 || seg[4] != '.' || seg[5] != '1' || !datedFolder(seg) {
		return nil, false
	}
	for _, p := range strings.Split(seg, ".") {
		n, _ := strconv.Atoi(p)
		nums = append(nums, n)
	}
	return nums, nums[1] >= 10
}

// calverShort reports whether a version folder's label writes a year then
// a month of one digit (2024.1, 2024.3.2) with no "v": a CalVer release,
// whose siblings 2024.10 to 2024.12 are releases too (calverMonth).
func calverShort(label string, nums []int) bool {
	return len(nums) >= 2 && len(label) >= 6 && label[4] == '.' && (len(label) == 6 || label[6] == '.') &&
		nums[0] >= 1970 && nums[0] <= 2199 && nums[1] >= 1 && nums[1] <= 9
}

// versionCopy is one copy of a versioned page.
type versionCopy struct {
	family string // alias, the canonical folder and the page below it
	label  string // the version folder's label, a current folder's name, or currentLabel
	nums   []int  // a version's numbers (nil for a current copy)
	head   bool   // the current copy or the latest release's (or the page's newest)
}

// versionMap holds the versioned copies of an index's pages, by chunk key
// (alias NUL path), and each family's copies, current ones first, then
// newest first.
type versionMap struct {
	copies   map[string]*versionCopy
	families map[string][]*versionCopy
}

// slot is where a path sits among a folder's versioned copies.
type slot struct {
	parent, label, rest string
	nums                []int
}

// canonParent is the folder a version folder's copies belong to:
// Docusaurus keeps versioned_docs/version-X beside docs.
func canonParent(folder string) string {
	i := strings.LastIndexByte(folder, '/') + 1
	if !strings.HasPrefix(folder[i:], "versioned_") {
		return folder
	}
	return folder[:i] + strings.TrimPrefix(folder[i:], "versioned_")
}

// versionFamilies detects the versioned copies among each package's
// documents (files: alias → paths), with their titles and summaries when
// known (titles, summaries: alias → one a path; nil when not known, as
// when a search finds the copies in an older ctx's index, readVersions).
func versionFamilies(files, titles, summaries map[string][]string) *versionMap {
	vm := &versionMap{copies: map[string]*versionCopy{}, families: map[string][]*versionCopy{}}
	for alias, paths := range files {
		versionFamiliesOf(vm, alias, paths, titles[alias], summaries[alias])
	}
	for f, cs := range vm.families {
		slices.SortStableFunc(cs, func(a, b *versionCopy) int { return compareVersions(b.nums, a.nums) })
		vm.families[f] = cs
	}
	return vm
}

// compareVersions orders versions by number; nil (a current copy) is above
// all.
func compareVersions(a, b []int) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return slices.Compare(a, b)
}

// addVersionParents adds to parents the folder that holds path's first
// version folder, if it has one; its value is true when one of its
// version folders is a CalVer month of one digit (calverShort), so that
// its folders 2024.10 to 2024.12 are versions too (calverMonth).
func addVersionParents(path string, parents map[string]bool) {
	segs := strings.Split(path, "/")
	for i, s := range segs[:len(segs)-1] {
		if label, nums, ok := versionFolder(s); ok {
			p := canonParent(strings.Join(segs[:i], "/"))
			parents[p] = parents[p] || calverShort(label, nums)
			return
		}
	}
}

func versionFamiliesOf(vm *versionMap, alias string, paths, titles, summaries []string) {
	parents := map[string]bool{} // folders that hold version folders (canonical)
	for _, p := range paths {
		addVersionParents(p, parents)
	}
	if len(parents) == 0 {
		return
	}
	groups := map[string][]familyMember{} // parent and page → its copies
	for i, p := range paths {
		if s, ok := slotOf(p, parents); ok {
			m := familyMember{path: p, slot: s}
			if titles != nil {
				m.title = strings.ToLower(strings.TrimSpace(titles[i]))
			}
			if summaries != nil {
				m.summary = summaries[i]
			}
			k := s.parent + "\x00" + s.rest
			groups[k] = append(groups[k], m)
		}
	}
	shared := copiedFolders(groups, titles != nil, summaries != nil)
	latest := map[string][]int{} // parent → its newest version folder's numbers
	for _, f := range shared {
		if f.copied && f.nums != nil && (latest[f.parent] == nil || slices.Compare(f.nums, latest[f.parent]) > 0) {
			latest[f.parent] = f.nums
		}
	}
	for gk, ms := range groups {
		var cs []*versionCopy
		versioned := false
		for _, m := range ms {
			if f := shared[m.slot.parent+"\x00"+m.slot.label]; f == nil || !f.copied {
				continue
			}
			c := &versionCopy{family: alias + "\x00" + gk, label: m.slot.label, nums: m.slot.nums}
			c.head = c.nums == nil || slices.Equal(c.nums, latest[m.slot.parent])
			versioned = versioned || c.nums != nil
			cs = append(cs, c)
			vm.copies[alias+"\x00"+m.path] = c
		}
		if len(cs) < 2 || !versioned {
			for _, m := range ms {
				delete(vm.copies, alias+"\x00"+m.path)
			}
			continue
		}
		if !slices.ContainsFunc(cs, func(c *versionCopy) bool { return c.head }) {
			slices.MaxFunc(cs, func(a, b *versionCopy) int { return compareVersions(a.nums, b.nums) }).head = true
		}
		vm.families[alias+"\x00"+gk] = cs
	}
}

// familyMember is a page that may be a copy: its path, its title (lower
// case; "" when not known), its summary ("" when not known or empty) and
// its place among the version folders.
type familyMember struct {
	path, title, summary string
	slot                 slot
}

// folderCopies is what copiedFolders finds of one folder among its
// siblings (a version folder, a current folder or the parent itself).
type folderCopies struct {
	parent string
	nums   []int // a version folder's numbers; nil for the others
	shared int   // its pages with a copy in a sibling (index pages aside)
	titled int   // … with a copy of the same title
	same   int   // … whose summary a copy keeps, or with none (keptSummaries)
	total  int   // its pages (index pages aside)
	copied bool  // its pages are copies
}

// copiedFolders finds, from groups (parent and page → its copies), the
// folders whose pages are copies, by folder (parent NUL label).
//
// A folder's pages are copies when at least minSharedCopies of them have
// a copy in another folder of the same parent, its index pages
// (folderIndexName: index.md, README.md, _index.md, which any folder may
// have) aside. A folder named as a version must also look like a
// release's copy of the pages, not a numbered chapter (1.1/, 2.3/) that
// shares a few names (intro.md, summary.md) with the others: more than
// half of its pages have a copy, and, when the titles are known (titled:
// the catalogue's records; not when a search finds the copies in an
// older ctx's index, readVersions), at least minSharedCopies of them a
// copy of the same title. (On sets 14 and 15, every version folder has
// 81–100% of its pages copied, and 21 or more with the same title as a
// copy; the page keeps its copies whatever their titles: "Metrics" is
// "Metrics & Observability" two releases on.)
//
// Names and titles are not enough: two chapters of a book or a course may
// both hold intro.md "Introduction", exercises.md "Exercises" and
// summary.md "Summary", as two releases do. A release's copy of a page
// keeps its text, so when the summaries are known too (summed: the
// catalogue's records), a version folder's pages are copies only when at
// least minSharedCopies of them keep their summary in a copy
// (keptSummaries: the same words, numbers aside, or one holding nearly all
// of the other's words, a paragraph that grew), a page without a summary
// counting as one (it says nothing either way). On sets 14 and 15, every
// version folder has 21 or more pages whose summary a copy repeats word
// for word; two chapters' introductions do not say the same thing.
//
// A release that adds more pages than it keeps (docs/v1/{a,b} beside
// docs/v2/{a,b,c,d}) has half or less of its pages copied; it is a release
// still when it holds at least 9 in 10 of the pages of the release next
// to it (the nearest older or newer version folder whose pages are copies
// by the rule above): docs grow release by release. A chapter holds
// another chapter's pages (intro, summary, and its own) rarely.
func copiedFolders(groups map[string][]familyMember, titled, summed bool) map[string]*folderCopies {
	folders := map[string]*folderCopies{}
	var kept [][]familyMember // groups of pages other than index pages
	for _, ms := range groups {
		base := path.Base(ms[0].slot.rest)
		if folderIndexName(strings.ToLower(strings.TrimSuffix(base, path.Ext(base)))) {
			continue
		}
		kept = append(kept, ms)
		var sameTitle map[string]int
		if titled && len(ms) > 1 {
			sameTitle = map[string]int{}
			for _, m := range ms {
				sameTitle[m.title]++
			}
		}
		var keeps []bool // by member: a copy keeps its summary (keptSummaries)
		if summed && len(ms) > 1 {
			keeps = keptSummaries(ms)
		}
		for i, m := range ms {
			k := m.slot.parent + "\x00" + m.slot.label
			f := folders[k]
			if f == nil {
				f = &folderCopies{parent: m.slot.parent, nums: m.slot.nums}
				folders[k] = f
			}
			f.total++
			if len(ms) > 1 {
				f.shared++
				if sameTitle[m.title] > 1 {
					f.titled++
				}
				if keeps == nil || keeps[i] {
					f.same++
				}
			}
		}
	}
	var grown []*folderCopies                // version folders with too few pages copied, else copies
	versions := map[string][]*folderCopies{} // parent → its version folders
	for _, f := range folders {
		f.copied = f.shared >= minSharedCopies && (!titled || f.nums == nil || f.titled >= minSharedCopies) &&
			(!summed || f.nums == nil || f.same >= minSharedCopies)
		if f.nums != nil {
			versions[f.parent] = append(versions[f.parent], f)
		}
		if f.copied && f.nums != nil && f.shared*2 <= f.total {
			f.copied = false
			grown = append(grown, f)
		}
	}
	if len(grown) > 0 {
		keepGrown(kept, folders, grown, versions)
	}
	return folders
}

// summaryKey is what copiedFolders compares of two copies' summaries:
// its words (runs of letters and digits) in lower case, each run of
// digits "0" (a release's page that names its version, "install v1.13",
// says the same in the next release), one space between; "" for none.
func summaryKey(summary string) string {
	var b strings.Builder
	in, digits := false, false // in a word; after a digit
	for _, r := range strings.ToLower(summary) {
		d := unicode.IsDigit(r)
		if !d && !unicode.IsLetter(r) {
			in, digits = false, false
			continue
		}
		if !in && b.Len() > 0 {
			b.WriteByte(' ')
		}
		switch {
		case !d:
			b.WriteRune(r)
		case !digits:
			b.WriteByte('0')
		}
		in, digits = true, d
	}
	return b.String()
}

// summaryKept is the share of the shorter summary's distinct words
// (summaryKey) that the other holds, at which a copy keeps a page's
// summary: a first paragraph that grew by a sentence between two releases
// keeps it; two chapters' introductions of the same form ("This chapter
// covers X") do not.
const summaryKept = 0.8

// keptSummaries says, for each of a page's copies (ms), whether another
// copy keeps its summary: the same words, or (the copy of the version next
// to it, in version order: a family may have thousands of copies) a
// summary whose words hold summaryKept of the shorter one's. A copy with
// no summary (summaryKey "") counts as kept: it says nothing either way.
func keptSummaries(ms []familyMember) []bool {
	kept := make([]bool, len(ms))
	keys := make([]string, len(ms))
	same := map[string]int{}
	for i, m := range ms {
		if keys[i] = summaryKey(m.summary); keys[i] != "" {
			same[keys[i]]++
		}
	}
	order := make([]int, len(ms))
	for i := range order {
		order[i] = i
		kept[i] = keys[i] == "" || same[keys[i]] > 1
	}
	slices.SortFunc(order, func(a, b int) int { return compareVersions(ms[a].slot.nums, ms[b].slot.nums) })
	for k := 1; k < len(order); k++ {
		a, b := order[k-1], order[k]
		if keys[a] != "" && keys[b] != "" && (!kept[a] || !kept[b]) && wordsHeld(keys[a], keys[b]) >= summaryKept {
			kept[a], kept[b] = true, true
		}
	}
	return kept
}

// wordsHeld is the share of the distinct words of the shorter of two
// summaries (summaryKey) that the other holds.
func wordsHeld(a, b string) float64 {
	wa, wb := strings.Fields(a), strings.Fields(b)
	if len(wa) > len(wb) {
		wa, wb = wb, wa
	}
	in := map[string]bool{}
	for _, w := range wb {
		in[w] = true
	}
	mine := map[string]bool{}
	held := 0
	for _, w := range wa {
		if !mine[w] {
			mine[w] = true
			if in[w] {
				held++
			}
		}
	}
	if len(mine) == 0 {
		return 0
	}
	return float64(held) / float64(len(mine))
}

// keepGrown marks as copies the grown version folders (with half or less
// of their pages copied, copiedFolders) that are the newest version folder
// of their parent and hold 9 in 10 of the pages of the version folder just
// before it, a release (its pages are copies by the majority rule). Only
// the newest, and only from the one before: a short chapter (1.1/ of an
// introduction and a summary) is a release by that rule, and every chapter
// after it holds its two pages; a release that grew is the latest one.
func keepGrown(kept [][]familyMember, folders map[string]*folderCopies, grown []*folderCopies, versions map[string][]*folderCopies) {
	byNums := func(a, b *folderCopies) int { return slices.Compare(a.nums, b.nums) }
	for _, vs := range versions {
		slices.SortFunc(vs, byNums)
	}
	before := map[*folderCopies]*folderCopies{} // a newest grown folder → the release just before it
	for _, g := range grown {
		vs := versions[g.parent]
		i, _ := slices.BinarySearchFunc(vs, g, byNums)
		if i == 0 || i != len(vs)-1 {
			continue // not the newest alone (v2 beside 2 are of the same numbers), or no release before it
		}
		if prev := vs[i-1]; prev.copied {
			before[g] = prev
		}
	}
	if len(before) == 0 {
		return
	}
	held := map[*folderCopies]int{} // a newest grown folder → the pages of the release before it that it holds
	for _, ms := range kept {       // a group's copies are of one parent, so of one newest folder at most
		if len(ms) < 2 {
			continue
		}
		var g, prev *folderCopies
		for _, m := range ms {
			f := folders[m.slot.parent+"\x00"+m.slot.label]
			if p := before[f]; p != nil {
				g, prev = f, p
				break
			}
		}
		for _, m := range ms {
			if g != nil && folders[m.slot.parent+"\x00"+m.slot.label] == prev {
				held[g]++
				break
			}
		}
	}
	for g, prev := range before {
		if held[g]*10 >= prev.total*9 {
			g.copied = true
		}
	}
}

// inVersionFolderPath reports whether path has a folder named as a
// version (versionFolder), as addVersionParents finds one, without
// allocating for a path that has none.
func inVersionFolderPath(path string) bool {
	for {
		seg, rest, ok := strings.Cut(path, "/")
		if !ok {
			return false
		}
		if mayBeVersion(seg) {
			if _, _, v := versionFolder(seg); v {
				return true
			}
		}
		path = rest
	}
}

// mayBeVersion reports whether seg starts as versionFolder's names do: a
// digit, after "version-" and "v" when it has them.
func mayBeVersion(seg string) bool {
	if len(seg) >= 8 && strings.EqualFold(seg[:8], "version-") {
		seg = seg[8:]
	}
	if seg != "" && (seg[0] == 'v' || seg[0] == 'V') {
		seg = seg[1:]
	}
	return seg != "" && '0' <= seg[0] && seg[0] <= '9'
}

// inVersionFolder reports whether a candidate's path has a version folder
// (versionFolder): a search reads the versioned copies (versionsOf, once
// a snapshot) only then, so that an index without them pays nothing
// (reading every path was about 6 ms of CPU a cold search on bench/scale's
// 1× corpus, which has none).
func inVersionFolder(cands []*candidate) bool {
	for _, c := range cands {
		k, _ := splitChunkID(c.ext)
		_, p, _ := strings.Cut(k, "\x00")
		for {
			seg, rest, ok := strings.Cut(p, "/")
			if !ok {
				break
			}
			if strings.ContainsAny(seg, "0123456789") {
				if _, _, v := versionFolder(seg); v {
					return true
				}
				if _, v := calverMonth(seg); v {
					return true // a CalVer month, or a date: the copies tell
				}
			}
			p = rest
		}
	}
	return false
}

// versionsFor returns vm, or when it is nil and a candidate is in a
// version folder (inVersionFolder), the versioned copies of rdr's snapshot
// (versionsOf: recorded as versions.bin when its ID is id); else nil.
func (c *snapshotCache) versionsFor(ctx context.Context, rdr index.IndexReader, vm *versionMap, cands []*candidate, indexDir, id string) (*versionMap, error) {
	if vm != nil || !inVersionFolder(cands) {
		return vm, nil
	}
	return c.versionsOf(ctx, rdr, indexDir, id)
}

// versionsOf returns the versioned copies of the pages of rdr's snapshot,
// read on its first search: from versions.bin in indexDir when meta.json
// names it (id, recordedVersions), else found in the snapshot
// (readVersions).
func (c *snapshotCache) versionsOf(ctx context.Context, rdr index.IndexReader, indexDir, id string) (*versionMap, error) {
	c.mu.Lock()
	c.of(rdr)
	if c.versOK {
		defer c.mu.Unlock()
		return c.vers, nil
	}
	c.mu.Unlock()
	vm, ok, err := recordedVersions(confine.New(filepath.Dir(indexDir)), indexDir, id)
	if err != nil {
		return nil, fmt.Errorf("indexer: read versioned pages: %w", err)
	}
	if !ok {
		kinded, err := c.kindedChunks(ctx, rdr)
		if err != nil {
			return nil, err
		}
		if vm, err = readVersions(ctx, rdr, kinded); err != nil {
			return nil, fmt.Errorf("indexer: read versioned pages: %w", err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.of(rdr)
	if !c.versOK {
		c.vers, c.versOK = vm, true
		if !ok {
			c.derived++
		}
	}
	return c.vers, nil
}

// readVersions detects the versioned copies (versionFamilies) from the
// index: the documents' paths (the path field's dictionary), and, only
// when a path has a version folder, the package of each chunk of the paths
// that could be copies. A document of a kind (docKind: release notes, a
// changelog, a blog post, a migration guide) is not a copy: release notes
// kept in folders named by versions are each their own page.
func readVersions(ctx context.Context, rdr index.IndexReader, kinded []bool) (*versionMap, error) {
	var paths []string
	parents := map[string]bool{}
	err := eachTerm(rdr, fPath, func(p string) error {
		paths = append(paths, p)
		addVersionParents(p, parents)
		return nil
	})
	if err != nil || len(parents) == 0 {
		return &versionMap{}, err
	}
	var aliases []string
	var pkgOf []int32 // 1 + the alias's index in aliases, by internal document number
	err = eachTerm(rdr, fPackage, func(a string) error {
		aliases = append(aliases, a)
		n := int32(len(aliases))
		return eachPosting(ctx, rdr, a, fPackage, func(id uint64) {
			pkgOf = grow(pkgOf, id)
			pkgOf[id] = n
		})
	})
	if err != nil {
		return nil, err
	}
	files := map[string][]string{}
	for _, p := range paths {
		if _, ok := slotOf(p, parents); !ok {
			continue
		}
		var in, kind []int32 // packages with a chunk of p; of a kind
		err := eachPosting(ctx, rdr, p, fPath, func(id uint64) {
			if id >= uint64(len(pkgOf)) || pkgOf[id] == 0 {
				return
			}
			a := pkgOf[id]
			if !slices.Contains(in, a) {
				in = append(in, a)
			}
			if id < uint64(len(kinded)) && kinded[id] && !slices.Contains(kind, a) {
				kind = append(kind, a)
			}
		})
		if err != nil {
			return nil, err
		}
		for _, a := range in {
			if !slices.Contains(kind, a) {
				files[aliases[a-1]] = append(files[aliases[a-1]], p)
			}
		}
	}
	return versionFamilies(files, nil, nil), nil
}

// slotOf places path among the version folders of parents
// (addVersionParents): in a version folder (or a CalVer month 10–12 when
// its parent is marked so, calverMonth), a current folder (main, master,
// next, latest) or the parent itself (the unversioned copy), with the
// page's path below it.
//
// It slices path, a string per folder no more: a path thousands of
// folders deep costs its length, not its square.
func slotOf(path string, parents map[string]bool) (slot, bool) {
	for start := 0; ; {
		end := strings.IndexByte(path[start:], '/')
		last := end < 0
		if last {
			end = len(path)
		} else {
			end += start
		}
		seg, folder := path[start:end], path[:max(start-1, 0)] // the segment, and the folder that holds it
		if !last {
			if label, nums, ok := versionFolder(seg); ok {
				if p := canonParent(folder); inMap(parents, p) {
					return slot{p, label, path[end+1:], nums}, true
				}
			} else if nums, ok := calverMonth(seg); ok {
				if p := canonParent(folder); parents[p] {
					return slot{p, seg, path[end+1:], nums}, true
				}
			}
		}
		if inMap(parents, folder) {
			if name := strings.ToLower(seg); !last && currentFolders[name] {
				return slot{folder, name, path[end+1:], nil}, true
			}
			return slot{folder, currentLabel, path[start:], nil}, true
		}
		if last {
			return slot{}, false
		}
		start = end + 1
	}
}

func inMap(m map[string]bool, k string) bool {
	_, ok := m[k]
	return ok
}

// namedCopy reports whether one of the query's words names c's version:
// the word or one of its shorter forms (versionForms, the one rule for
// pages and queries) is the version's number or its major.minor.
func (c *versionCopy) namedBy(forms map[string]bool) bool {
	if c.nums == nil || len(forms) == 0 {
		return false
	}
	core := strings.TrimSuffix(strings.TrimPrefix(c.label, "v"), ".x")
	if forms[core] {
		return true
	}
	for _, f := range versionForms([]byte(core)) {
		if forms[string(f)] {
			return true
		}
	}
	return false
}

// queryVersions returns the version numbers a query's words name, each in
// its forms (versionForms): "v1.13.2" is 1.13.2 and 1.13.
func queryVersions(words []string) map[string]bool {
	var forms map[string]bool
	for _, w := range words {
		w = strings.ToLower(strings.TrimFunc(w, func(r rune) bool {
			return !(r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}))
		w = strings.TrimSuffix(w, ".x")
		_, _, ok := versionFolder(w)
		if _, cal := calverMonth(w); !ok && !cal || !strings.Contains(w, ".") {
			continue
		}
		if forms == nil {
			forms = map[string]bool{}
		}
		forms[strings.TrimPrefix(w, "v")] = true
		for _, f := range versionForms([]byte(w)) {
			forms[string(f)] = true
		}
	}
	return forms
}

// order moves, in cands (best first), each chunk of a page's copy that is
// not its head after the best chunk of the head copy, when one is among
// cands, keeping the order of everything else; a moved chunk's score
// becomes at most the chunk it follows. The head copies are the current
// copy and the latest release's, or the copies of a version the query
// names (forms: queryVersions) when the page has one.
func (vm *versionMap) order(cands []*candidate, forms map[string]bool) {
	if vm == nil || len(vm.copies) == 0 {
		return
	}
	named := map[string]bool{} // families with a copy the query names, once each (a family may have thousands)
	isHead := func(c *versionCopy) bool {
		if forms == nil {
			return c.head
		}
		n, ok := named[c.family]
		if !ok {
			n = slices.ContainsFunc(vm.families[c.family], func(o *versionCopy) bool { return o.namedBy(forms) })
			named[c.family] = n
		}
		if n {
			return c.namedBy(forms)
		}
		return c.head
	}
	copyOf := make([]*versionCopy, len(cands))
	hasHead := map[string]bool{}
	for i, c := range cands {
		k, _ := splitChunkID(c.ext)
		if vc := vm.copies[k]; vc != nil {
			copyOf[i] = vc
			if isHead(vc) {
				hasHead[vc.family] = true
			}
		}
	}
	if len(hasHead) == 0 {
		return
	}
	out := make([]*candidate, 0, len(cands))
	pending := map[string][]*candidate{}
	seenHead := map[string]bool{}
	for i, c := range cands {
		vc := copyOf[i]
		switch {
		case vc == nil || !hasHead[vc.family] || seenHead[vc.family] && !isHead(vc):
			out = append(out, c)
		case isHead(vc):
			out = append(out, c)
			if !seenHead[vc.family] {
				seenHead[vc.family] = true
				for _, p := range pending[vc.family] {
					p.score = min(p.score, c.score)
					out = append(out, p)
				}
				delete(pending, vc.family)
			}
		default:
			pending[vc.family] = append(pending[vc.family], c)
		}
	}
	copy(cands, out)
}

// others returns the versions other than c's that c's page exists in,
// current copies first, then newest first, at most maxOtherVersions.
func (vm *versionMap) others(c *versionCopy) []string {
	var out []string
	for _, o := range vm.families[c.family] {
		if len(out) == maxOtherVersions {
			break
		}
		if o != c && !slices.Contains(out, o.label) {
			out = append(out, o.label)
		}
	}
	return out
}
