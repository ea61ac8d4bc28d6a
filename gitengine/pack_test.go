package gitengine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"

	"github.com/ctx-dev/ctx/internal/gittest"
)

// deltaPacks makes packs with git pack-objects from a history of similar
// files: one with OFS deltas, one with REF deltas (no --delta-base-offset).
func deltaPacks(t testing.TB) map[string][]byte {
	t.Helper()
	if !gittest.Available() {
		t.Skip("git not installed")
	}
	src := filepath.Join(t.TempDir(), "src")
	files := map[string]string{}
	for i := 0; i < 8; i++ {
		files[fmt.Sprintf("docs/%d.md", i)] = strings.Repeat(fmt.Sprintf("line %d of a document that repeats\n", i), 200)
	}
	gittest.NewRepo(t, src, files)
	for c := 0; c < 4; c++ {
		for i := 0; i < 8; i++ {
			files[fmt.Sprintf("docs/%d.md", i)] += fmt.Sprintf("commit %d adds a line to %d\n", c, i)
		}
		gittest.Commit(t, src, fmt.Sprintf("c%d", c), files)
	}
	packs := map[string][]byte{}
	for name, args := range map[string][]string{
		"ofs": {"pack-objects", "--revs", "--stdout", "-q", "--delta-base-offset"},
		"ref": {"pack-objects", "--revs", "--stdout", "-q"},
	} {
		out, err := gittest.GitInput(src, []byte("HEAD\n"), args...)
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		packs[name] = []byte(out)
	}
	return packs
}

// goGitIndex indexes pack with go-git's parser, the reference.
func goGitIndex(pack []byte) ([]byte, error) {
	w := new(idxfile.Writer)
	p, err := packfile.NewParser(packfile.NewScanner(bytes.NewReader(pack)), w)
	if err != nil {
		return nil, err
	}
	if _, err := p.Parse(); err != nil {
		return nil, err
	}
	idx, err := w.Index()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	_, err = idxfile.NewEncoder(&b).Encode(idx)
	return b.Bytes(), err
}

func ourIndex(pack []byte) ([]byte, error) {
	idx, sum, err := indexPack(bytes.NewReader(pack))
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(idx.PackfileChecksum[:], sum[:]) {
		return nil, fmt.Errorf("index names pack %x, checksum %s", idx.PackfileChecksum, sum)
	}
	var b bytes.Buffer
	_, err = idxfile.NewEncoder(&b).Encode(idx)
	return b.Bytes(), err
}

// TestIndexPackAgreesWithGoGit: the streaming indexer writes the same index
// as go-git's parser for packs with OFS and REF deltas.
func TestIndexPackAgreesWithGoGit(t *testing.T) {
	t.Parallel()
	for name, pack := range deltaPacks(t) {
		t.Run(name, func(t *testing.T) {
			wantType := map[string]plumbing.ObjectType{"ofs": plumbing.OFSDeltaObject, "ref": plumbing.REFDeltaObject}[name]
			if n := countType(t, pack, wantType); n == 0 {
				t.Fatalf("the %s pack has no %s objects: the test would prove nothing", name, wantType)
			}
			want, err := goGitIndex(pack)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ourIndex(pack)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("index differs from go-git's (%d vs %d bytes)", len(got), len(want))
			}
		})
	}
}

func countType(t *testing.T, pack []byte, typ plumbing.ObjectType) int {
	t.Helper()
	s := packfile.NewScanner(bytes.NewReader(pack))
	_, count, err := s.Header()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := uint32(0); i < count; i++ {
		oh, err := s.NextObjectHeader()
		if err != nil {
			t.Fatal(err)
		}
		if oh.Type == typ {
			n++
		}
	}
	return n
}

// TestWritePackCutShort: a pack cut short or corrupted is refused and
// leaves nothing in the store; a whole one is readable at once.
func TestWritePackCutShort(t *testing.T) {
	t.Parallel()
	pack := deltaPacks(t)["ofs"]
	dir := t.TempDir()
	st := newStorage(osfs.New(dir), false)
	corrupt := append([]byte(nil), pack...)
	corrupt[len(corrupt)/2] ^= 0xff
	for name, bad := range map[string][]byte{"cut": pack[:len(pack)-30], "corrupt": corrupt} {
		if _, err := writePack(st, bytes.NewReader(bad)); err == nil {
			t.Errorf("%s: stored", name)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if _, err := writePack(st, bytes.NewReader(pack)); err != nil {
		t.Fatal(err)
	}
	n := 0
	iter, err := st.IterEncodedObjects(plumbing.AnyObject)
	if err != nil {
		t.Fatal(err)
	}
	_ = iter.ForEach(func(plumbing.EncodedObject) error { n++; return nil })
	if n == 0 {
		t.Errorf("no objects readable after writePack")
	}
	if _, err := writePack(st, bytes.NewReader(pack)); err != nil {
		t.Errorf("the same pack again: %v", err)
	}
	if packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*")); len(packs) != 2 {
		t.Errorf("pack dir holds %v, want one pack and its index", packs)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}

// FuzzIndexPack: any input, however malformed, is refused or indexed
// without a panic, and whatever go-git's parser indexes, the streaming
// indexer indexes the same way.
func FuzzIndexPack(f *testing.F) {
	for _, p := range deltaPacks(f) {
		f.Add(p)
	}
	f.Add([]byte("PACK\x00\x00\x00\x02\x00\x00\x00\x01"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, pack []byte) {
		got, err := ourIndex(pack)
		if len(pack) >= 12 && int64(binary.BigEndian.Uint32(pack[8:12])) > int64(len(pack)) {
			// go-git's index writer allocates the declared object count
			// up front (a hostile count takes it out of memory); ours only
			// counts objects it has read.
			return
		}
		want, werr := goGitIndex(pack)
		if werr == nil && err != nil && errors.Is(err, io.EOF) {
			return // go-git takes a pack without its checksum; git and ctx do not
		}
		if werr == nil && (err != nil || !bytes.Equal(got, want)) {
			t.Errorf("go-git indexes the pack, the streaming indexer: %v (equal: %v)", err, bytes.Equal(got, want))
		}
	})
}

// TestStorePackHostileCount: a pack whose header claims 4 billion objects
// (12 bytes from a hostile server) is refused with an error; go-git's pack
// writer allocated the claimed count up front and took the process out of
// memory.
func TestStorePackHostileCount(t *testing.T) {
	t.Parallel()
	st := newStorage(osfs.New(t.TempDir()), false)
	pack := []byte("PACK\x00\x00\x00\x02\xff\xff\xff\xff\x30\x00")
	err := storePack(st, bytes.NewReader(pack), false)
	if err == nil || !errors.Is(err, packfile.ErrMalformedPackFile) {
		t.Errorf("stored, or not refused as malformed: %v", err)
	}
}

// countFS counts the Open and Read calls on each kind of file (.idx,
// .pack) of a billy filesystem.
type countFS struct {
	billy.Filesystem
	opens, reads map[string]int
}

type countFile struct {
	billy.File
	fs  *countFS
	ext string
}

func (f *countFS) Open(name string) (billy.File, error) {
	file, err := f.Filesystem.Open(name)
	if err != nil {
		return nil, err
	}
	ext := filepath.Ext(name)
	f.opens[ext]++
	return &countFile{File: file, fs: f, ext: ext}, nil
}

func (f *countFile) Read(p []byte) (int, error) {
	f.fs.reads[f.ext]++
	return f.File.Read(p)
}

// TestStorageReadsIndexWhole: the store reads a pack's index in a few
// reads (go-git's decoder alone makes hundreds: 419 for this pack of 55
// objects), and, with keep, does not open the pack again for every
// object it reads from it.
func TestStorageReadsIndexWhole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := writePack(newStorage(osfs.New(dir), false), bytes.NewReader(deltaPacks(t)["ofs"])); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{false, true} {
		cfs := &countFS{Filesystem: osfs.New(dir), opens: map[string]int{}, reads: map[string]int{}}
		st := newStorage(cfs, keep)
		objects := 0
		iter, err := st.IterEncodedObjects(plumbing.AnyObject)
		if err != nil {
			t.Fatal(err)
		}
		var hashes []plumbing.Hash
		_ = iter.ForEach(func(o plumbing.EncodedObject) error { hashes = append(hashes, o.Hash()); return nil })
		for _, h := range hashes {
			if _, err := st.EncodedObject(plumbing.AnyObject, h); err != nil {
				t.Fatal(err)
			}
			objects++
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if objects < 2 {
			t.Fatalf("%d objects in the test pack, want several", objects)
		}
		if cfs.reads[".idx"] > 2*cfs.opens[".idx"] {
			t.Errorf("keep=%v: %d reads of .idx files in %d opens, want at most 2 a file", keep, cfs.reads[".idx"], cfs.opens[".idx"])
		}
		// One open for the iterator, one for every object read after it
		// (without keep: one per object).
		if keep && cfs.opens[".pack"] > 2 {
			t.Errorf("keep: the pack was opened %d times for %d objects, want at most twice", cfs.opens[".pack"], objects)
		}
	}
}
