package gitengine

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/go-git/go-git/v5/plumbing/format/config"
)

// TrackStatus is what the git repository that holds a file says of it
// (FileStatus).
type TrackStatus struct {
	InRepository bool   // the file is inside a git work tree
	Tracked      bool   // the repository's index has an entry for it: git tracks it, whatever .gitignore says
	Root, Rel    string // the work tree's root (links resolved), and the file's slash path in it, when InRepository
}

// FileStatus says whether git tracks file (a path on this machine, inside
// dir's git work tree, found upwards from dir as ReadAtRevision finds it),
// and where the work tree is (whether its ignore files ignore the file is
// markdown.IgnoredPath's to say). Not inside a git work tree (or a bare
// repository) is a zero TrackStatus and no error. It reads the names in
// the repository's index up to file's (hasName). An index that cannot be
// read is an error: the caller cannot tell.
func FileStatus(dir, file string) (TrackStatus, error) {
	st, idx, err := readIndex(dir, file)
	if err == nil && idx != nil {
		defer idx.close()
		st.Tracked, err = hasName(idx.each, st.Rel)
	}
	return st, indexErr(st, err)
}

// TrackedUnder says which files at or under path (a file or folder on this
// machine, inside dir's git work tree, found as FileStatus finds it) git
// tracks: names holds their slash paths relative to path ("" for path
// itself when git tracks it as a file), sorted; st.Tracked is whether
// there is any. A gitlink (a submodule) is a name like any other. Not
// inside a git work tree is a zero TrackStatus, no names and no error.
// It reads the index once, its names up to the last one under path
// (eachIndexName): the rule of what a committed dir source may serve
// (project), on a folder of 20,000 files as cheap as FileStatus.
func TrackedUnder(dir, path string) (st TrackStatus, names []string, err error) {
	st, idx, err := readIndex(dir, path)
	if err == nil && idx != nil {
		defer idx.close()
		prefix, self := []byte(st.Rel+"/"), []byte(st.Rel)
		if st.Rel == "." || st.Rel == "" {
			prefix, self = nil, nil
		}
		err = idx.each(func(name []byte) bool {
			switch {
			case self != nil && bytes.Equal(name, self):
				names = append(names, "")
			case bytes.HasPrefix(name, prefix):
				// A sparse index's folder entry ("dir/", skip-worktree)
				// is no file: path itself is not tracked by it.
				if len(name) > len(prefix) {
					names = append(names, string(name[len(prefix):]))
				}
			case bytes.Compare(name, prefix) > 0:
				return false
			}
			return true
		})
		st.Tracked = len(names) > 0
	}
	if err != nil {
		return st, nil, indexErr(st, err)
	}
	return st, names, nil
}

// indexErr says err was met reading the index of st's work tree (nil:
// nil; before the work tree was found: err as it is).
func indexErr(st TrackStatus, err error) error {
	if err == nil || !st.InRepository {
		return err
	}
	return fmt.Errorf("read the git index of %s: %w", safetext.Clip(st.Root, 0), err)
}

// readIndex finds the git work tree holding file (upwards from dir:
// workTreeGitDir) and opens its index to read its names (nil when the
// repository has none yet, or file is in no work tree; the caller closes
// it). st says whether and where file is in a work tree. It does not open
// the repository with go-git, which refuses repositories git reads
// (extensions.worktreeConfig, set by `git sparse-checkout` and `git
// config --worktree`: go-git issue 1943): it reads only the two files it
// needs, the index and the common config's extensions.objectFormat.
func readIndex(dir, file string) (st TrackStatus, idx *indexNames, err error) {
	root, gitDir, err := workTreeGitDir(dir)
	if err != nil || root == "" {
		return TrackStatus{}, nil, err
	}
	rel, err := relIn(root, file)
	if err != nil {
		return TrackStatus{}, nil, err
	}
	st = TrackStatus{InRepository: true, Root: root, Rel: rel}
	f, size, err := openIndexFile(filepath.Join(gitDir, "index"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return st, nil, nil // a new repository: nothing tracked yet
	case err != nil:
		return st, nil, err
	}
	idx = &indexNames{f: f, size: size}
	if idx.idLen, err = objectIDLen(gitDir); err != nil {
		idx.close()
		return st, nil, err
	}
	if mayBeSplit(gitDir) { // unsplit reads it whole
		data, err := readIndexData(f)
		idx.close()
		if err == nil {
			data, err = unsplit(gitDir, data, idx.idLen)
		}
		if err != nil {
			return st, nil, err
		}
		idx.f, idx.data = nil, data
	}
	return st, idx, nil
}

// indexNames is a git index to read the names of (readIndex): streamed
// from f, its size bytes, or whole in data (a split index made one by
// unsplit); idLen is the length of its object ids.
type indexNames struct {
	f     *os.File
	size  int64
	data  []byte
	idLen int
}

// each is eachIndexName of the index, from its start on every call (the
// file is read at offsets, not from where the last call left it), and
// only its size bytes.
func (x *indexNames) each(f func(name []byte) bool) error {
	if x.f == nil {
		return eachIndexName(x.data, x.idLen, f)
	}
	return eachIndexNameFrom(bufio.NewReaderSize(io.NewSectionReader(x.f, 0, x.size), indexReadBuffer), x.size, x.idLen, f)
}

func (x *indexNames) close() {
	if x.f != nil {
		x.f.Close()
	}
}

// workTreeGitDir finds the git work tree holding dir as git and go-git
// (DetectDotGit) find it: the nearest folder, from dir (its folder when
// dir is a file) upwards, with a ".git" entry; and its git directory:
// that ".git" folder, or what the "gitdir:" line of a ".git" file names
// (a linked worktree's or a submodule's: DotGit), which must be a folder.
// root is "" (and no error) when dir is in no work tree. root is dir's path as given (made
// absolute), not resolved: relIn resolves both.
func workTreeGitDir(dir string) (root, gitDir string, err error) {
	path, err := filepath.Abs(dir)
	if err != nil {
		return "", "", err
	}
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		path = filepath.Dir(path)
	}
	for {
		gitDir, err := DotGit(path)
		if err == nil {
			// A git directory that is gone (a removed worktree's) is not
			// "nothing tracked": the caller cannot tell.
			if fi, err := os.Stat(gitDir); err != nil || !fi.IsDir() {
				return "", "", fmt.Errorf("%s leads to %s, which is not a git directory", safetext.Clip(filepath.Join(path, ".git"), 0), safetext.Clip(gitDir, 0))
			}
			return path, gitDir, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", "", err
		}
		up := filepath.Dir(path)
		if up == path {
			return "", "", nil
		}
		path = up
	}
}

// DotGit is the git directory of the work tree whose top folder is dir:
// dir/.git when it is a folder; when it is a file, the path its
// "gitdir: " line names (relative to dir unless absolute), as git writes
// it for a linked worktree or a submodule. No dir/.git: an error
// satisfying errors.Is(err, fs.ErrNotExist). The path is not checked.
func DotGit(dir string) (string, error) {
	p := filepath.Join(dir, ".git")
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return p, nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if target = strings.TrimSpace(target); !ok || target == "" {
		return "", fmt.Errorf("%s is a file with no \"gitdir: \" line", safetext.Clip(p, 0))
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return target, nil
}

// commonDir is the repository's common git directory for gitDir: the
// folder its "commondir" file names (a linked worktree's, relative to
// gitDir unless absolute), else gitDir itself. It holds the config.
func commonDir(gitDir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return gitDir, nil
	case err != nil:
		return "", err
	}
	c := strings.TrimSpace(string(b))
	if c == "" {
		return gitDir, nil
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return c, nil
}

// errIndex: the index is not in a form eachIndexName reads.
var errIndex = errors.New("malformed or unsupported git index")

// hasName reports whether the names each gives (an index's, eachIndexName)
// include rel, at any stage, stopping at the first name past rel. Not
// go-git's decoder (index.Decoder): it builds every entry of the index
// and checks its hash, 33 ms of CPU for 20,000 files, on every ctx search
// (issue 31; bench/README.md "fixD17"). The tests check the two agree.
func hasName(each func(func(name []byte) bool) error, rel string) (bool, error) {
	found, want := false, []byte(rel)
	err := each(func(name []byte) bool {
		c := bytes.Compare(name, want)
		found = c == 0
		return c < 0
	})
	return found, err
}

// errSplitIndex: the index is split (core.splitIndex, `git update-index
// --split-index`): most entries are in a sharedindex file its "link"
// extension names, which eachIndexName does not read. Failing is safe: a
// caller that cannot tell what git tracks serves nothing it cannot vouch for.
var errSplitIndex = errors.New("this repository's index is split (core.splitIndex) and its shared index (a sharedindex.* file of its git folder) is missing: run `git update-index --no-split-index` (and `git config core.splitIndex false`) in it")

// eachIndexName calls f with the name of each entry of the git index data
// (versions 2 to 4, as git writes them: Documentation/gitformat-index.txt),
// in the index's order (by name, bytewise), until f returns false: the
// form of an index held whole (a split index made one by unsplit).
// eachIndexNameFrom reads it.
func eachIndexName(data []byte, idLen int, f func(name []byte) bool) error {
	return eachIndexNameFrom(bufio.NewReaderSize(bytes.NewReader(data), indexReadBuffer), int64(len(data)), idLen, f)
}

// indexReadBuffer is the buffer eachIndexNameFrom reads an index through
// (a longer name is gathered apart: git reads a name of any length).
const indexReadBuffer = 64 << 10

// eachIndexNameFrom is eachIndexName of the index of size bytes that r
// reads, front to back through r's buffer (indexReadBuffer), the index
// never whole in memory: read whole, a 1.6 MB index (20,000 files) was
// 400 to 800 page faults of fresh memory in every command that checks
// context.local.json (bench/README.md, start21). It gives each name read
// in place, valid only during the call. It then steps over the remaining
// entries (no name is built) to the extensions: a split index (a "link"
// extension) is errSplitIndex, whatever f was given, since its entries
// are only the changes to a shared index. Data that ends before an entry
// or extension it announces is errIndex.
func eachIndexNameFrom(r *bufio.Reader, size int64, idLen int, f func(name []byte) bool) error {
	var off int64
	// next is the next n bytes, consumed (valid until the next read).
	next := func(n int) ([]byte, error) {
		if int64(n) > size-off {
			return nil, errIndex
		}
		b, err := r.Peek(n)
		if err != nil {
			return nil, readErr(err)
		}
		off += int64(n)
		_, _ = r.Discard(n)
		return b, nil
	}
	// through is the bytes up to the next NUL, which it consumes too. A
	// name longer than r's buffer (git reads a name of any length) is
	// gathered in long, up to the index's size.
	var long []byte
	through := func() ([]byte, error) {
		b, err := r.ReadSlice(0)
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], b...)
			for errors.Is(err, bufio.ErrBufferFull) && off+int64(len(long)) <= size {
				b, err = r.ReadSlice(0)
				long = append(long, b...)
			}
			b = long
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, readErr(err)
		}
		if off += int64(len(b)); off > size || err != nil {
			return nil, errIndex
		}
		return b[:len(b)-1], nil
	}
	h, err := next(12)
	if err != nil || string(h[:4]) != "DIRC" {
		return errIndex
	}
	version := binary.BigEndian.Uint32(h[4:8])
	count := binary.BigEndian.Uint32(h[8:12])
	if version < 2 || version > 4 {
		return fmt.Errorf("%w: version %d", errIndex, version)
	}
	header := 40 + idLen + 2 // ctime, mtime, dev, ino, mode, uid, gid, size, object id (SHA-1 or SHA-256), flags
	more := true
	var prev []byte // v4: the previous name, which the next one shares a prefix with
	for i := uint32(0); i < count; i++ {
		h, err := next(header)
		if err != nil {
			return err
		}
		flags := binary.BigEndian.Uint16(h[header-2:])
		entry := header
		if flags&0x4000 != 0 { // extended flags (version 3 and later)
			if _, err := next(2); err != nil {
				return err
			}
			entry += 2
		}
		var name []byte
		if version == 4 {
			b, _ := r.Peek(10) // a varint is at most 10 bytes; fewer at the end
			strip, n := varint(b)
			if n == 0 || more && strip > uint64(len(prev)) {
				return errIndex
			}
			if _, err := next(n); err != nil {
				return err
			}
			rest, err := through()
			if err != nil {
				return err
			}
			if more {
				keep := len(prev) - int(strip)
				name = append(prev[:keep:keep], rest...)
				prev = name
			}
		} else {
			l := int(flags & 0x0fff)
			if l == 0x0fff { // too long for the field: NUL-terminated
				if name, err = through(); err != nil {
					return err
				}
				entry += len(name) + 1
			} else {
				if name, err = next(l); err != nil {
					return err
				}
				entry += l
			}
			// The entry is padded with 1 to 8 NULs to a multiple of 8
			// bytes; a NUL-terminated name's NUL, read, is the first.
			pad := 8 - entry%8
			if l == 0x0fff {
				pad = 8 - (entry-1)%8 - 1
			}
			if more {
				more = f(name)
			}
			if _, err := next(pad); err != nil {
				return err
			}
			continue
		}
		if more {
			more = f(name)
		}
	}
	// The extensions: a 4-byte signature, a 4-byte size, the data; then
	// the checksum (one object id).
	for end := size - int64(idLen); off+8 <= end; {
		h, err := next(8)
		if err != nil {
			return err
		}
		sig, n := string(h[:4]), binary.BigEndian.Uint32(h[4:8])
		if int64(n) > end-off {
			return errIndex
		}
		if sig == "link" {
			link := make([]byte, n)
			if _, err := io.ReadFull(r, link); err != nil {
				return readErr(err)
			}
			return &splitError{link: link}
		}
		if _, err := r.Discard(int(n)); err != nil {
			return readErr(err)
		}
		off += int64(n)
	}
	return nil
}

// readErr is an error of reading an index's bytes: its end before what
// it announced is errIndex; another (the disk's) as it is.
func readErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errIndex
	}
	return err
}

// objectIDLen is the length of an object id in the index entries of the
// repository whose git directory is gitDir: 20 (SHA-1), or 32 when its
// common config's extensions.objectFormat is sha256. A missing config is
// SHA-1, as git reads it.
func objectIDLen(gitDir string) (int, error) {
	common, err := commonDir(gitDir)
	if err != nil {
		return 0, err
	}
	f, err := os.Open(filepath.Join(common, "config"))
	if errors.Is(err, fs.ErrNotExist) {
		return 20, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cfg := config.New()
	if err := config.NewDecoder(f).Decode(cfg); err != nil {
		return 0, fmt.Errorf("read %s: %w", safetext.Clip(f.Name(), 0), err)
	}
	format := cfg.Section("extensions").Option("objectformat")
	switch strings.ToLower(format) {
	case "", string(config.SHA1):
		return 20, nil
	case string(config.SHA256):
		return 32, nil
	}
	return 0, fmt.Errorf("%w: object format %s", errIndex, safetext.Quote(format))
}

// varint decodes the index's offset encoding of a number (v4 names: how
// many bytes of the previous name to drop); n is 0 when b ends first.
func varint(b []byte) (v uint64, n int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v = uint64(c & 0x7f)
	n = 1
	for c&0x80 != 0 {
		if n >= len(b) || n > 9 {
			return 0, 0
		}
		c = b[n]
		n++
		v = ((v + 1) << 7) | uint64(c&0x7f)
	}
	return v, n
}

// IndexFile is the path of the index of the git work tree dir is in (found
// upwards, as FileStatus finds it), or "" when dir is in none: whoever
// keeps what TrackedUnder said watches its stamp, since `git add`
// rewrites it.
func IndexFile(dir string) string {
	root, gitDir, err := workTreeGitDir(dir)
	if err != nil || root == "" {
		return ""
	}
	return filepath.Join(gitDir, "index")
}
