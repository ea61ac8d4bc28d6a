package indexer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/ctx-dev/ctx/internal/confine"
)

// The versioned copies of the pages (versions.go), recorded when the index
// is written (issue 31: finding them in a snapshot was about 5 ms of CPU
// of every `ctx search` on a versioned index).
//
// publish finds each package's families from its catalogue records (the
// paths of the documents with chunks and no kind: fileRecord.Kind) with
// the rule a search used, versionFamilies, and writes them to
// index/versions.json with the catalogue, before meta.json. A package
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
	versionsFile = "versions.json"
	// versionsFormat changes with the layout of versions.json or with the
	// rule (versionFamilies): a file of another format is found again.
	versionsFormat = 1
)

// versionsData is the content of versions.json.
type versionsData struct {
	Format int `json:"format"`
	// ID is a hash of what every package's families were found from (its
	// familyInput, or that it is unknown), as meta.json's Versions names
	// it.
	ID       string                 `json:"id"`
	Packages map[string]pkgVersions `json:"packages"`
}

// pkgVersions is one package's families.
type pkgVersions struct {
	Input    string           `json:"input,omitempty"`   // familyInput of its records
	Unknown  bool             `json:"unknown,omitempty"` // its records carry no kinds
	Families []recordedFamily `json:"families,omitempty"`
}

// recordedFamily is one page's copies, in versionMap.families' order.
type recordedFamily struct {
	Key    string         `json:"key"` // the canonical folder and the page below it
	Copies []recordedCopy `json:"copies"`
}

type recordedCopy struct {
	Path  string `json:"path"`
	Label string `json:"label"`
	Nums  []int  `json:"nums,omitempty"`
	Head  bool   `json:"head,omitempty"`
}

// recordFamilies returns the families of one package's records (sorted by
// path, as a part holds them): those of its documents with chunks and no
// kind, as readVersions finds them in a snapshot, with their titles
// (which readVersions does not know: versionFamiliesOf).
func recordFamilies(alias string, recs []fileRecord) []recordedFamily {
	var paths, titles []string
	for i := range recs {
		if recs[i].Chunks > 0 && recs[i].Kind == "" {
			paths = append(paths, recs[i].Path)
			titles = append(titles, recs[i].Title)
		}
	}
	vm := versionFamilies(map[string][]string{alias: paths}, map[string][]string{alias: titles})
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
// its documents with chunks, each one's path, kind and title.
func familyInput(recs []fileRecord) string {
	h := sha256.New()
	var line []byte
	for i := range recs {
		if r := &recs[i]; r.Chunks > 0 {
			line = appendQuote(line[:0], r.Path)
			line = appendQuote(append(line, ' '), r.Kind)
			line = appendQuote(append(line, ' '), r.Title)
			h.Write(append(line, '\n'))
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// publishVersions writes versions.json for the catalogue cat (parts:
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
	oldBytes, err := os.ReadFile(p)
	if err != nil || json.Unmarshal(oldBytes, &old) != nil || old.Format != versionsFormat || old.ID != last {
		old = versionsData{}
	}
	data := versionsData{Format: versionsFormat, Packages: make(map[string]pkgVersions, len(cat.Parts))}
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
	fmt.Fprintf(h, "%d\n", versionsFormat)
	for _, alias := range slices.Sorted(maps.Keys(data.Packages)) {
		pv := data.Packages[alias]
		fmt.Fprintf(h, "%q %q %v\n", alias, pv.Input, pv.Unknown)
	}
	data.ID = hex.EncodeToString(h.Sum(nil)[:16])
	if data.ID == old.ID && data.ID == last {
		return data.ID, nil // the same families: the file holds them
	}
	b, err := json.Marshal(data)
	if err != nil {
		return "", err
	}
	if err := dur.write(d, p, append(b, '\n'), later); err != nil {
		return "", fmt.Errorf("indexer: write %s: %w", versionsFile, err)
	}
	return data.ID, nil
}

// recordedVersions returns the versioned copies versions.json in indexDir
// records, when its ID is id (meta.json's Versions of the snapshot read);
// false when there is none to take (no ID, no file, another generation's).
func recordedVersions(d confine.Dir, indexDir, id string) (*versionMap, bool, error) {
	if id == "" {
		return nil, false, nil
	}
	p := filepath.Join(indexDir, versionsFile)
	if err := d.Check(p); err != nil {
		return nil, false, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var data versionsData
	if err := json.Unmarshal(b, &data); err != nil || data.Format != versionsFormat || data.ID != id {
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
