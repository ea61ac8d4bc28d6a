package gitengine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/ctx-dev/ctx/internal/safetext"
	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/util"
	git "github.com/go-git/go-git/v5"
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
// the repository's index up to file's (indexHas). An index that cannot be
// read is an error: the caller cannot tell.
func FileStatus(dir, file string) (TrackStatus, error) {
	st, data, idLen, err := readIndex(dir, file)
	if err == nil && data != nil {
		st.Tracked, err = indexHas(data, st.Rel, idLen)
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
	st, data, idLen, err := readIndex(dir, path)
	if err == nil && data != nil {
		prefix, self := []byte(st.Rel+"/"), []byte(st.Rel)
		if st.Rel == "." || st.Rel == "" {
			prefix, self = nil, nil
		}
		err = eachIndexName(data, idLen, func(name []byte) bool {
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

// readIndex opens the git repository holding file (found upwards from dir)
// and reads its index: the data (nil when the repository has none yet, or
// file is in no work tree) and the length of its object ids. st says
// whether and where file is in a work tree.
func readIndex(dir, file string) (st TrackStatus, data []byte, idLen int, err error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return TrackStatus{}, nil, 0, nil
		}
		return TrackStatus{}, nil, 0, fmt.Errorf("open the git repository of %s: %w", safetext.Clip(dir, 0), err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return TrackStatus{}, nil, 0, nil // a bare repository: no work tree holds the file
	}
	root := wt.Filesystem.Root()
	rel, err := relIn(root, file)
	if err != nil {
		return TrackStatus{}, nil, 0, err
	}
	st = TrackStatus{InRepository: true, Root: root, Rel: rel}
	fsys, ok := repo.Storer.(interface{ Filesystem() billy.Filesystem })
	if !ok {
		return st, nil, 0, errors.New("not a repository on disk")
	}
	data, err = util.ReadFile(fsys.Filesystem(), "index")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return st, nil, 0, nil // a new repository: nothing tracked yet
	case err != nil:
		return st, nil, 0, err
	}
	if idLen, err = objectIDLen(repo); err != nil {
		return st, nil, 0, err
	}
	return st, data, idLen, nil
}

// errIndex: the index is not in a form indexHas reads.
var errIndex = errors.New("malformed or unsupported git index")

// indexHas reports whether the git index data has an entry named rel, at
// any stage (eachIndexName, stopping at the first name past rel). Not
// go-git's decoder (index.Decoder): it builds every entry of the index
// and checks its hash, 33 ms of CPU for 20,000 files, on every ctx search
// (issue 31; bench/README.md "fixD17"). The tests check the two agree.
func indexHas(data []byte, rel string, idLen int) (bool, error) {
	found := false
	err := eachIndexName(data, idLen, func(name []byte) bool {
		c := strings.Compare(string(name), rel)
		found = c == 0
		return c < 0
	})
	return found, err
}

// eachIndexName calls f with the name of each entry of the git index data
// (versions 2 to 4, as git writes them: Documentation/gitformat-index.txt),
// in the index's order (by name, bytewise), until f returns false. It
// reads the names in place; name is valid only during the call.
func eachIndexName(data []byte, idLen int, f func(name []byte) bool) error {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return errIndex
	}
	version := binary.BigEndian.Uint32(data[4:8])
	count := binary.BigEndian.Uint32(data[8:12])
	if version < 2 || version > 4 {
		return fmt.Errorf("%w: version %d", errIndex, version)
	}
	header := 40 + idLen + 2 // ctime, mtime, dev, ino, mode, uid, gid, size, object id (SHA-1 or SHA-256), flags
	off := 12
	var prev []byte // v4: the previous name, which the next one shares a prefix with
	for i := uint32(0); i < count; i++ {
		if off+header > len(data) {
			return errIndex
		}
		flags := binary.BigEndian.Uint16(data[off+header-2 : off+header])
		start := off + header
		if flags&0x4000 != 0 { // extended flags (version 3 and later)
			start += 2
		}
		if start > len(data) {
			return errIndex
		}
		var name []byte
		if version == 4 {
			strip, n := varint(data[start:])
			if n == 0 || strip > uint64(len(prev)) {
				return errIndex
			}
			end := bytes.IndexByte(data[start+n:], 0)
			if end < 0 {
				return errIndex
			}
			keep := len(prev) - int(strip)
			name = append(prev[:keep:keep], data[start+n:start+n+end]...)
			prev = name
			off = start + n + end + 1
		} else {
			l := int(flags & 0x0fff)
			if l == 0x0fff { // too long for the field: NUL-terminated
				l = bytes.IndexByte(data[start:], 0)
			}
			if l < 0 || start+l > len(data) {
				return errIndex
			}
			name = data[start : start+l]
			size := start - off + l
			off += size + 8 - size%8
		}
		if !f(name) {
			return nil
		}
	}
	return nil
}

// objectIDLen is the length of an object id in repo's index entries:
// 20 (SHA-1), or 32 in a repository whose objectFormat is sha256.
func objectIDLen(repo *git.Repository) (int, error) {
	cfg, err := repo.Config()
	if err != nil {
		return 0, err
	}
	switch cfg.Extensions.ObjectFormat {
	case "", config.SHA1:
		return 20, nil
	case config.SHA256:
		return 32, nil
	}
	return 0, fmt.Errorf("%w: object format %s", errIndex, safetext.Quote(string(cfg.Extensions.ObjectFormat)))
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
// upwards, as FileStatus finds it), or "" when dir is in none (or the
// repository is not on disk): whoever keeps what TrackedUnder said
// watches its stamp, since `git add` rewrites it.
func IndexFile(dir string) string {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return ""
	}
	if _, err := repo.Worktree(); err != nil {
		return ""
	}
	fsys, ok := repo.Storer.(interface{ Filesystem() billy.Filesystem })
	if !ok {
		return ""
	}
	return fsys.Filesystem().Join(fsys.Filesystem().Root(), "index")
}
