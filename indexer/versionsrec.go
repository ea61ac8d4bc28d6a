package indexer

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"

	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/varintbuf"
)

// The versioned copies of the pages (versions.go), recorded when the index
// is written (issue 31: finding them in a snapshot was about 5 ms of CPU
// of every `ctx search` on a versioned index).
//
// publish finds each package's families from its catalogue records (the
// paths of the documents with chunks and no kind: fileRecord.Kind) with
// the rule a search used, versionFamilies, and writes them to
// index/versions.bin with the catalogue, before meta.json. A package
// whose part did not change keeps what the file held for it (a one-file
// update finds the families of its package only). The file's ID is a hash
// of the families; meta.json names it (meta.Versions), so a reader takes
// the file only for the generation it was written for: a file a crash left
// ahead of meta.json, or one an older ctx left behind when it published
// (it writes no Versions), is not read, and the search finds the copies in
// its snapshot as before (readVersions). So does a search on an index
// whose parts' records carry no kinds (written by an older ctx): their
// package's families are unknown until its files are read again.
const (
	versionsFile = "versions.bin"
	// versionsMagic opens the file; its number changes with the layout
	// or with the rule (versionFamilies; TestVersionsMagicFollowsRule
	// fails when the rule's answers change and this does not): a file of
	// another is found again.
	versionsMagic = "ctx-versions 4\n"
)

// versionsData is the content of versions.bin (encodeVersions).
type versionsData struct {
	// ID is a hash of what every package's families were found from (its
	// familyInput, or that it is unknown), as meta.json's Versions names
	// it.
	ID       string
	Packages map[string]pkgVersions
}

// pkgVersions is one package's families.
type pkgVersions struct {
	Input    string // familyInput of its records
	Unknown  bool   // its records carry no kinds
	Families []recordedFamily
}

// recordedFamily is one page's copies, in versionMap.families' order.
type recordedFamily struct {
	Key    string // the canonical folder and the page below it
	Copies []recordedCopy
}

type recordedCopy struct {
	Path, Label string
	Nums        []int
	Head        bool
}

// encodeVersions writes data as walks.bin's records are (encodeWalks):
// the magic, then strings and counts as uvarints, the packages by alias.
// A search reads it whole; JSON was 2–3 ms of CPU to decode on set 14's
// 48 KB.
func encodeVersions(data versionsData) []byte {
	b := []byte(versionsMagic)
	uv := func(n int) { b = binary.AppendUvarint(b, uint64(n)) }
	str := func(s string) {
		uv(len(s))
		b = append(b, s...)
	}
	str(data.ID)
	uv(len(data.Packages))
	for _, alias := range slices.Sorted(maps.Keys(data.Packages)) {
		pv := data.Packages[alias]
		str(alias)
		str(pv.Input)
		uv(boolNum(pv.Unknown))
		uv(len(pv.Families))
		for _, f := range pv.Families {
			str(f.Key)
			uv(len(f.Copies))
			for _, c := range f.Copies {
				str(c.Path)
				str(c.Label)
				uv(boolNum(c.Head))
				uv(len(c.Nums))
				for _, n := range c.Nums {
					uv(n)
				}
			}
		}
	}
	return b
}

func boolNum(b bool) int {
	if b {
		return 1
	}
	return 0
}

// errVersionsRecord is a versions.bin that cannot be read: the copies are
// found again.
var errVersionsRecord = errors.New("indexer: versions record unreadable")

// decodeVersions reads what encodeVersions wrote; any fault is
// errVersionsRecord. Its strings are b's bytes (as decodeWalks'): b must
// not change while they are used. The reads and their bounds are
// varintbuf's, as walkrec.Decode's.
func decodeVersions(b []byte) (versionsData, error) {
	if !bytes.HasPrefix(b, []byte(versionsMagic)) {
		return versionsData{}, errVersionsRecord
	}
	r := varintbuf.New(b[len(versionsMagic):])
	// The least bytes of each item as encoded (a string's length, a
	// count, a flag: one byte each), for r.Count.
	const pkgSize, familySize, copySize, numSize = 4, 2, 4, 1
	data := versionsData{ID: r.String(), Packages: map[string]pkgVersions{}}
	for range r.Count(pkgSize) {
		alias := r.String()
		pv := pkgVersions{Input: r.String(), Unknown: r.Uvarint() != 0}
		pv.Families = make([]recordedFamily, r.Count(familySize))
		for i := range pv.Families {
			f := recordedFamily{Key: r.String()}
			f.Copies = make([]recordedCopy, r.Count(copySize))
			for j := range f.Copies {
				c := recordedCopy{Path: r.String(), Label: r.String(), Head: r.Uvarint() != 0}
				if n := r.Count(numSize); n > 0 {
					c.Nums = make([]int, n)
					for k := range c.Nums {
						// A version's number, as large as versionFolder
						// reads (not bounded by the file's length).
						v := r.Uvarint()
						if v > math.MaxInt {
							r.Fail()
						}
						c.Nums[k] = int(v)
					}
				}
				f.Copies[j] = c
			}
			pv.Families[i] = f
		}
		if r.Bad() {
			return versionsData{}, errVersionsRecord
		}
		data.Packages[alias] = pv
	}
	if r.Bad() || r.Len() != 0 {
		return versionsData{}, errVersionsRecord
	}
	return data, nil
}

// recordFamilies returns the families of one package's records (sorted by
// path, as a part holds them): those of its documents with chunks and no
// kind, as readVersions finds them in a snapshot, with their titles
// and summaries (which readVersions does not know: versionFamiliesOf).
func recordFamilies(alias string, recs []fileRecord) []recordedFamily {
	var paths, titles, summaries []string
	for i := range recs {
		if recs[i].Chunks > 0 && recs[i].Kind == "" {
			paths = append(paths, recs[i].Path)
			titles = append(titles, recs[i].Title)
			summaries = append(summaries, recs[i].Summary)
		}
	}
	vm := versionFamilies(map[string][]string{alias: paths}, map[string][]string{alias: titles}, map[string][]string{alias: summaries})
	if len(vm.families) == 0 {
		return nil
	}
	pathOf := make(map[*versionCopy]string, len(vm.copies))
	for k, c := range vm.copies {
		pathOf[c] = k[len(alias)+1:]
	}
	out := make([]recordedFamily, 0, len(vm.families))
	for _, k := range slices.Sorted(maps.Keys(vm.families)) {
		f := recordedFamily{Key: k[len(alias)+1:]}
		for _, c := range vm.families[k] {
			f.Copies = append(f.Copies, recordedCopy{Path: pathOf[c], Label: c.label, Nums: c.nums, Head: c.head})
		}
		out = append(out, f)
	}
	return out
}

// familyInput is a hash of what a package's families are found from:
// its documents with chunks, each one's path, kind and title, and when a
// path of the package is in a version folder (inVersionFolderPath), each
// one's summary too (copiedFolders compares them). An edit of a page's
// text below its summary, or of any text of a package with no version
// folder, keeps it.
func familyInput(recs []fileRecord) string {
	versioned := false
	for i := range recs {
		if recs[i].Chunks > 0 && inVersionFolderPath(recs[i].Path) {
			versioned = true
			break
		}
	}
	h := sha256.New()
	var line []byte
	for i := range recs {
		if r := &recs[i]; r.Chunks > 0 {
			line = appendQuote(line[:0], r.Path)
			line = appendQuote(append(line, ' '), r.Kind)
			line = appendQuote(append(line, ' '), r.Title)
			if versioned {
				line = appendQuote(append(line, ' '), r.Summary)
			}
			h.Write(append(line, '\n'))
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// publishVersions writes versions.bin for the catalogue cat (parts:
// every package's; touched: the records of the packages read by this
// Sync) when what it holds changed, and returns its ID. The file there is
// trusted when meta.json names it (last: the live meta.json's Versions):
// a package not read keeps its families from it, and one read whose
// familyInput did not change (an edit of a page's text) too; the others'
// are found from their records (read from their part when a package not
// read has no trusted families). A package whose records carry no kinds
// is unknown (an older ctx's part).
func publishVersions(d confine.Dir, indexDir string, cat *catalog, touched map[string][]fileRecord, last string, dur *durable, later bool) (string, error) {
	p := filepath.Join(indexDir, versionsFile)
	var old versionsData
	if b, err := readIndexFile(p); err == nil {
		if old, err = decodeVersions(b); err != nil || old.ID != last {
			old = versionsData{}
		}
	}
	data := versionsData{Packages: make(map[string]pkgVersions, len(cat.Parts))}
	for alias, part := range cat.Parts {
		o, trusted := old.Packages[alias]
		switch recs, read := touched[alias]; {
		case !part.Kinds:
			data.Packages[alias] = pkgVersions{Unknown: true}
		case read:
			in := familyInput(recs)
			if !trusted || o.Unknown || o.Input != in {
				o = pkgVersions{Input: in, Families: recordFamilies(alias, recs)}
			}
			data.Packages[alias] = o
		case trusted && !o.Unknown:
			data.Packages[alias] = o
		default:
			recs, err := cat.records(indexDir, alias)
			if err != nil {
				return "", fmt.Errorf("indexer: %w", err)
			}
			data.Packages[alias] = pkgVersions{Input: familyInput(recs), Families: recordFamilies(alias, recs)}
		}
	}
	h := sha256.New()
	h.Write([]byte(versionsMagic))
	for _, alias := range slices.Sorted(maps.Keys(data.Packages)) {
		pv := data.Packages[alias]
		fmt.Fprintf(h, "%q %q %v\n", alias, pv.Input, pv.Unknown)
	}
	data.ID = hex.EncodeToString(h.Sum(nil)[:16])
	if data.ID == old.ID && data.ID == last {
		return data.ID, nil // the same families: the file holds them
	}
	if err := dur.write(d, p, encodeVersions(data), later); err != nil {
		return "", fmt.Errorf("indexer: write %s: %w", versionsFile, err)
	}
	return data.ID, nil
}

// recordedVersions returns the versioned copies versions.bin in indexDir
// records, when its ID is id (meta.json's Versions of the snapshot read);
// false when there is none to take (no ID, no file or one that cannot be
// read or decoded, another generation's). An error only when the path
// leads out of the context folder (confine).
func recordedVersions(d confine.Dir, indexDir, id string) (*versionMap, bool, error) {
	if id == "" {
		return nil, false, nil
	}
	p := filepath.Join(indexDir, versionsFile)
	if err := d.Check(p); err != nil {
		return nil, false, err
	}
	b, err := readIndexFile(p)
	if err != nil {
		// None, or unreadable (an I/O error, a permission, a folder, a
		// fifo: readIndexFile never waits on one): the
		// file only saves finding the copies again, so they are found
		// in the snapshot (the next Sync writes it again, or says why
		// it cannot).
		return nil, false, nil
	}
	data, err := decodeVersions(b) // b is data's from now on
	if err != nil || data.ID != id {
		return nil, false, nil
	}
	for _, pv := range data.Packages {
		if pv.Unknown {
			return nil, false, nil
		}
	}
	vm := &versionMap{copies: map[string]*versionCopy{}, families: map[string][]*versionCopy{}}
	for alias, pv := range data.Packages {
		for _, f := range pv.Families {
			fam := alias + "\x00" + f.Key
			cs := make([]*versionCopy, len(f.Copies))
			for i, c := range f.Copies {
				cs[i] = &versionCopy{family: fam, label: c.Label, nums: c.Nums, head: c.Head}
				vm.copies[alias+"\x00"+c.Path] = cs[i]
			}
			vm.families[fam] = cs
		}
	}
	return vm, true, nil
}
