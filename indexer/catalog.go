package indexer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/confine"
	"github.com/ctx-dev/ctx/internal/jsonfile"
	"github.com/ctx-dev/ctx/internal/lazyre"
)

// The catalogue is in two levels, so that an update that changes one
// package reads and writes that package's records only:
//
//	catalog.json          the top: schema, the packages indexed, what
//	                      INDEX.md was rendered from, the bleve directory
//	                      it describes, and per package a catalogPart (the
//	                      name of its part file and what Sync and INDEX.md
//	                      need to know of it without reading it)
//	catalog/<hash>.json   one package's part: {"schema", "alias", "files":
//	                      its fileRecords sorted by path}; <hash> is of the
//	                      alias and the records, so a part is never
//	                      rewritten in place
//
// A writer writes the new parts first, then the top (atomic rename), which
// switches readers to them, and deletes the parts no longer named last. A
// reader that reads a top whose parts were deleted since reads the top
// again (loadParts). A crash before the top is renamed leaves parts that
// no top names: the next publish deletes them.
//
// Sync compares a package's files with its part by partStamp, a hash of
// every file's path and stat data: when it equals the part's Stamp, no file
// of the package changed and its part is not read.

// catalogDir is the folder of the part files, inside the index directory.
const catalogDir = "catalog"

// partFileRE is what the top may name as a part file.
var partFileRE = lazyre.New(`^[0-9a-f]{32}\.json$`)

// catalogPart is what the top of the catalogue knows of one package's part.
type catalogPart struct {
	File        string `json:"file"`  // the part's name in catalog/
	Stamp       string `json:"stamp"` // partStamp of its records
	Records     int    `json:"records"`
	Chunks      int    `json:"chunks"`
	Tokens      int64  `json:"tokens,omitempty"`
	HeadTokens  int64  `json:"headTokens,omitempty"`
	TitleTokens int64  `json:"titleTokens,omitempty"`
	// Listing is the hash of what INDEX.md shows of the package's
	// documents; Links the hash of what resolving links reads of them
	// (linkInput): a part whose Links did not change leaves every
	// document's in-degree as it was.
	Listing string `json:"listing"`
	Links   string `json:"links"`
	// Kinds says every record of the part carries its document's kind
	// (fileRecord.Kind): the versioned copies are found from the records
	// then (versionsrec.go).
	Kinds bool `json:"kinds,omitempty"`
	// Edited names the package's documents that differ from what ctx
	// installed, sorted and joined by NUL ("" for none, and for a live
	// dir source): INDEX.md marks their lines (editedOf, markEdited,
	// trust23).
	Edited nulNames `json:"edited,omitempty"`
}

// nulNames is names joined by NUL (catalogPart.Edited). A name need not
// be UTF-8 (fileRecord.PathBytes), which a JSON string cannot hold
// (encoding/json writes U+FFFD for each invalid byte: review of red23,
// the mark of an edited document so named was lost at the next render,
// and INDEX.md's input changed with nothing changed): such a list is
// written as nulNamesBytes and base64 of its bytes, read back whole. A
// list of UTF-8 names is written as a plain string, as before.
type nulNames string

// nulNamesBytes opens the JSON string of a name, or a nulNames, that is
// not UTF-8 (jsonName): a list never starts with NUL (no name is empty).
const nulNamesBytes = "\x00base64:"

func (n nulNames) MarshalJSON() ([]byte, error) { return json.Marshal(jsonName(string(n))) }

func (n *nulNames) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	s, err := fromJSONName(s)
	if err != nil {
		return fmt.Errorf("edited: %w", err)
	}
	*n = nulNames(s)
	return nil
}

// jsonName is s for a JSON string (a map key, a value) that gives it
// back whole (fromJSONName): s when it is UTF-8, else nulNamesBytes and
// base64 of its bytes. For a name, or names joined by NUL, which never
// start with NUL (inlinks.json's paths, catalogPart.Edited).
func jsonName(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return nulNamesBytes + base64.StdEncoding.EncodeToString([]byte(s))
}

// fromJSONName is the name jsonName wrote as s.
func fromJSONName(s string) (string, error) {
	rest, ok := strings.CutPrefix(s, nulNamesBytes)
	if !ok {
		return s, nil
	}
	raw, err := base64.StdEncoding.DecodeString(rest)
	return string(raw), err
}

// partFile is the content of a part file.
type partFile struct {
	Schema int          `json:"schema"`
	Alias  string       `json:"alias"`
	Files  []fileRecord `json:"files"`
}

// readCatalog reads the top of the catalogue in indexDir. Its Files are
// empty: records loads a package's part when needed.
func readCatalog(indexDir string) (catalog, error) {
	var c catalog
	if err := readJSON(filepath.Join(indexDir, catalogFile), &c); err != nil {
		return catalog{}, err
	}
	c.Files = nil
	for alias, p := range c.Parts {
		if !partFileRE().MatchString(p.File) {
			return catalog{}, &DamagedFileError{Path: filepath.Join(indexDir, catalogFile), Err: fmt.Errorf("package %q: %q is not a part file ctx makes", alias, p.File)}
		}
	}
	return c, nil
}

// records returns alias's records (sorted by path), reading its part file
// the first time; nil when the catalogue has none.
func (c *catalog) records(indexDir, alias string) ([]fileRecord, error) {
	if recs, ok := c.Files[alias]; ok {
		return recs, nil
	}
	p, ok := c.Parts[alias]
	if !ok {
		return nil, nil
	}
	recs, err := readPart(indexDir, alias, p, c.keepRaw)
	if err != nil {
		return nil, err
	}
	if c.Files == nil {
		c.Files = map[string][]fileRecord{}
	}
	c.Files[alias] = recs
	return recs, nil
}

// loadAllCtx reads every part not read yet, stopped by ctx before each
// part it reads.
func (c *catalog) loadAllCtx(ctx context.Context, indexDir string) error {
	for alias := range c.Parts {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := c.records(indexDir, alias); err != nil {
			return err
		}
	}
	return nil
}

// readPart reads the part file of alias that p names; with keepRaw, each
// record keeps its bytes in the file (encodePart copies them). A missing
// file gives an error wrapping fs.ErrNotExist.
func readPart(indexDir, alias string, p catalogPart, keepRaw bool) ([]fileRecord, error) {
	var pf partFile
	path := filepath.Join(indexDir, catalogDir, p.File)
	data, err := readIndexFile(path)
	if err != nil {
		return nil, err
	}
	if err := jsonfile.Unmarshal(data, &pf); err != nil {
		return nil, &DamagedFileError{Path: path, Err: err}
	}
	if pf.Schema != schemaVersion || pf.Alias != alias || len(pf.Files) != p.Records {
		return nil, &DamagedFileError{Path: path, Err: fmt.Errorf("not the catalogue of package %q that %s names", alias, catalogFile)}
	}
	for i := range pf.Files {
		if r := &pf.Files[i]; r.PathBytes != nil {
			r.Path = string(r.PathBytes) // a name that is not UTF-8 (fileRecord.PathBytes)
		}
	}
	if p.Kinds {
		for i := range pf.Files {
			pf.Files[i].kinds = true
		}
	}
	if keepRaw {
		spans := recordSpans(data, len(pf.Files))
		if head, err := partHead(alias); err == nil && spans != nil && isPart(data, head, spans) {
			for i, raw := range spans {
				pf.Files[i].raw = raw
			}
		}
	}
	return pf.Files, nil
}

// isPart reports whether data is exactly the part that head and the
// records' bytes make (joinPart): the layout encodePart writes, so that
// a record's bytes copied from it are that record's encoding. A part
// laid out otherwise (written by hand, or by another encoder: other
// keys, spaces, a null record) keeps no bytes and is encoded whole.
func isPart(data, head []byte, spans [][]byte) bool {
	if !bytes.HasPrefix(data, head) {
		return false
	}
	pos := len(head)
	for i, b := range spans {
		if i > 0 {
			if pos >= len(data) || data[pos] != ',' {
				return false
			}
			pos++
		}
		if !bytes.HasPrefix(data[pos:], b) {
			return false
		}
		pos += len(b)
	}
	return string(data[pos:]) == partTail
}

// recordSpans returns the bytes of each record in data, a part file that
// decoded as JSON, in order; nil unless it finds n records. A part holds
// one array, the records ("files"), each an object: the spans are the
// objects one level inside the only array of the top object, found by
// brackets and braces outside strings.
func recordSpans(data []byte, n int) [][]byte {
	spans := make([][]byte, 0, n)
	depth, start, inFiles := 0, 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			if depth == 1 && c == '[' {
				inFiles = true
			} else if inFiles && depth == 2 && c == '{' {
				start = i
			}
			depth++
		case '}', ']':
			depth--
			if inFiles && depth == 2 && c == '}' {
				spans = append(spans, data[start:i+1])
			} else if inFiles && depth == 1 {
				inFiles = false
			}
		}
	}
	if len(spans) != n {
		return nil
	}
	return spans
}

// checkPartSplice makes encodePart check a part it spliced from records'
// read bytes against encoding/json's encoding of them all (set by the
// package's tests).
var checkPartSplice bool

// encodePart encodes alias's records (sorted by path) as a part file:
// encoding/json's encoding of the partFile, with a record read from a
// part and not changed since (its raw bytes kept) copied, not encoded
// again. encoded is how many records were encoded.
func encodePart(alias string, recs []fileRecord) (data []byte, encoded int, err error) {
	whole := func() ([]byte, int, error) {
		data, err := json.Marshal(partFile{Schema: schemaVersion, Alias: alias, Files: recs})
		return append(data, '\n'), len(recs), err
	}
	kept := 0
	for i := range recs {
		if recs[i].raw != nil {
			kept++
		}
	}
	if kept == 0 {
		return whole()
	}
	head, err := partHead(alias)
	if err != nil {
		return whole()
	}
	// The records' bytes, the changed ones encoded first, so that the
	// part is made in a buffer of its size (no copy as it grows).
	spans := make([][]byte, len(recs))
	for i := range recs {
		if spans[i] = recs[i].raw; spans[i] == nil {
			if spans[i], err = json.Marshal(recs[i]); err != nil {
				return nil, 0, err
			}
			encoded++
		}
	}
	data = joinPart(head, spans)
	if checkPartSplice {
		want, _, err := whole()
		if err != nil {
			return nil, 0, err
		}
		if !bytes.Equal(data, want) {
			return nil, 0, fmt.Errorf("the part of %q spliced from the records read is not their encoding:\n%s\nwant\n%s", alias, data, want)
		}
	}
	return data, encoded, nil
}

// partTail ends a part file after its last record.
const partTail = "]}\n"

// partHead is what a part file of alias holds before its first record:
// encoding/json's encoding of the partFile up to the records' array,
// {"schema":N,"alias":"A","files":[ .
func partHead(alias string) ([]byte, error) {
	head, err := json.Marshal(partFile{Schema: schemaVersion, Alias: alias})
	if err != nil {
		return nil, err
	}
	// {"schema":N,"alias":"A","files":null} → {"schema":N,"alias":"A","files":[
	head, ok := bytes.CutSuffix(head, []byte("null}"))
	if !ok {
		return nil, fmt.Errorf("a part's head is not encoding/json's: %s", head)
	}
	return append(head, '['), nil
}

// joinPart makes a part file of its head and its records' bytes, in a
// buffer of its size.
func joinPart(head []byte, spans [][]byte) []byte {
	size := len(head) + max(len(spans)-1, 0) + len(partTail)
	for _, b := range spans {
		size += len(b)
	}
	data := make([]byte, 0, size)
	data = append(data, head...)
	for i, b := range spans {
		if i > 0 {
			data = append(data, ',')
		}
		data = append(data, b...)
	}
	return append(data, partTail...)
}

// makePart encodes alias's records (sorted by path) as a part file and
// describes it.
func makePart(alias string, recs []fileRecord) (catalogPart, []byte, error) {
	data, _, err := encodePart(alias, recs)
	if err != nil {
		return catalogPart{}, nil, err
	}
	sum := sha256.Sum256(data)
	p := catalogPart{File: hex.EncodeToString(sum[:16]) + ".json", Records: len(recs)}
	st, listing := newStamp(), sha256.New()
	p.Kinds = true
	var line []byte
	for _, r := range recs {
		p.Kinds = p.Kinds && r.kinds
		st.add(r.Path, r.Size, r.ModNS, r.CNS, r.Ino, r.KEP, r.Bundle)
		p.Chunks += r.Chunks
		p.Tokens += r.Tokens
		p.HeadTokens += r.HeadTokens
		p.TitleTokens += r.TitleTokens
		// The bytes of fmt's "%q %q %q %q\n", without fmt's reflection.
		line = appendQuote(line[:0], r.Path)
		line = appendQuote(append(line, ' '), r.Title)
		line = appendQuote(append(line, ' '), r.Summary)
		line = appendQuote(append(line, ' '), r.Skipped)
		line = append(line, '\n')
		listing.Write(line)
	}
	// A name that is not UTF-8 is read back whole (fileRecord.PathBytes,
	// red23): the stamp holds for it too. (It was "" for such a package,
	// which no walk gives, so each search planned it file by file again.)
	p.Stamp = st.sum()
	p.Listing = hex.EncodeToString(listing.Sum(nil)[:16])
	p.Links = linkInput(recs)
	return p, data, nil
}

// appendQuote is strconv.AppendQuote, byte for byte, with a short way for
// a string strconv would copy as it is: printable ASCII but for '"' and
// '\\', and valid UTF-8 runes strconv.IsPrint takes (nearly every path,
// title and summary: a summary cut short ends with "…"). strconv's rune
// by rune work was a third of makePart's time on a 500-file part, and
// with a summary's "…" every summary took it (issue 31).
func appendQuote(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c > '~' || c == '"' || c == '\\' {
				return strconv.AppendQuote(b, s)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !strconv.IsPrint(r) {
			return strconv.AppendQuote(b, s)
		}
		i += size
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// writeParts writes the part files of parts that old does not name
// already (a part's name is its content's hash); later leaves their
// fsyncs to dur's pass.
func writeParts(d confine.Dir, indexDir string, parts map[string]catalogPart, data map[string][]byte, old map[string]catalogPart, dur *durable, later bool) error {
	if len(data) == 0 {
		return nil
	}
	dir := filepath.Join(indexDir, catalogDir)
	if err := d.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	aliases := slices.Sorted(maps.Keys(data))
	for _, a := range aliases {
		p := parts[a]
		if o, ok := old[a]; ok && o.File == p.File {
			continue
		}
		if err := dur.write(d, filepath.Join(dir, p.File), data[a], later); err != nil {
			return err
		}
	}
	return nil
}

// removeStaleParts deletes the part files that parts does not name (left
// by the catalogue before, or by a crash before its top was written).
func removeStaleParts(d confine.Dir, indexDir string, parts map[string]catalogPart) {
	dir := filepath.Join(indexDir, catalogDir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	live := make(map[string]bool, len(parts))
	for _, p := range parts {
		live[p.File] = true
	}
	for _, e := range ents {
		name := e.Name()
		if live[name] || (!partFileRE().MatchString(name) && !strings.HasPrefix(name, ".")) {
			continue // a file ctx did not make is left alone
		}
		d.Remove(filepath.Join(dir, name))
	}
}

// stampHash is partStamp under way.
type stampHash struct {
	h   hash.Hash
	buf []byte
}

func newStamp() *stampHash { return &stampHash{h: sha256.New()} }

// add adds one file's path and stat data (what fileStat.unchanged compares).
func (s *stampHash) add(rel string, size, modNS, cns int64, ino uint64, kep, bundle *sideStamp) {
	b := s.buf[:0]
	b = binary.AppendUvarint(b, uint64(len(rel)))
	b = append(b, rel...)
	b = binary.LittleEndian.AppendUint64(b, uint64(size))
	b = binary.LittleEndian.AppendUint64(b, uint64(modNS))
	b = binary.LittleEndian.AppendUint64(b, uint64(cns))
	b = binary.LittleEndian.AppendUint64(b, ino)
	b = appendSide(b, kep)
	if bundle != nil {
		// Only then: a package with no bundle pages keeps its stamps.
		b = appendSide(append(b, 'b'), bundle)
	}
	s.h.Write(b)
	s.buf = b
}

// appendSide appends a side file's stamp (0 when none) to b.
func appendSide(b []byte, side *sideStamp) []byte {
	if side == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.LittleEndian.AppendUint64(b, uint64(side.Size))
	b = binary.LittleEndian.AppendUint64(b, uint64(side.ModNS))
	b = binary.LittleEndian.AppendUint64(b, uint64(side.CNS))
	return binary.LittleEndian.AppendUint64(b, side.Ino)
}

func (s *stampHash) sum() string { return hex.EncodeToString(s.h.Sum(nil)[:16]) }

// partStamp is the stamp of a package's files as walked (sorted by path):
// equal to its part's Stamp exactly when every file is one of its records
// with the same stat data (fileStat.unchanged) and no record is missing.
func partStamp(found []fileStat) string {
	st := newStamp()
	for _, f := range found {
		st.add(f.rel, f.size, f.modNS, f.cns, f.ino, f.kep, f.bundle)
	}
	return st.sum()
}

// isCatalogGone reports whether err is a part file missing: a writer
// replaced the catalogue while it was read.
func isCatalogGone(err error) bool { return errors.Is(err, fs.ErrNotExist) }
