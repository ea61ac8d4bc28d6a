package webdoc

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/internal/naming"
	"github.com/ctx-dev/ctx/internal/safetext"
)

// The default archive limits.
const (
	DefaultMaxFiles     = 10_000
	DefaultMaxBytes     = 500 << 20
	DefaultMaxFileBytes = 10 << 20

	// CeilingMaxFiles is the most a source may raise MaxFiles to (the
	// manifest's limits.maxFiles; red18 finding 3): 10 times the default.
	CeilingMaxFiles = 100_000
)

// ArchiveLimits bounds what Extract reads from an archive. A zero field
// takes its default.
type ArchiveLimits struct {
	// MaxFiles is how many entries the archive may hold, of any kind and
	// in the sub-path or not, and how many files and folders Extract may
	// make (default DefaultMaxFiles).
	MaxFiles int
	// MaxBytes is how many uncompressed bytes Extract reads in all
	// (default DefaultMaxBytes): for a zip, what it decompresses of the
	// files it writes; for a .tar.gz, every entry's content, since a tar
	// stream is read through to reach each entry.
	MaxBytes int64
	// MaxFileBytes is the largest file Extract writes (default
	// DefaultMaxFileBytes); a larger one is skipped, as gitengine skips
	// a blob over its size limit.
	MaxFileBytes int64
}

func (l ArchiveLimits) withDefaults() ArchiveLimits {
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	l.MaxFiles = min(l.MaxFiles, CeilingMaxFiles)
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	return l
}

// Skipped is an entry of an archive that Extract did not write, and why.
type Skipped struct {
	Path   string // package-relative, as it would have been written
	Reason string
}

// entryKind is what an archive entry is, as far as Extract cares.
type entryKind int

const (
	entryFile entryKind = iota
	entryDir
	entrySkip   // not written: reason says why
	entryIgnore // not a member: tar's global header, the "." folder
)

// entry is one entry of an archive, as listed by Extract's first pass.
type entry struct {
	name   string // archive path, checked, without "./" or a trailing "/"
	kind   entryKind
	reason string    // for entrySkip
	size   int64     // declared size
	zf     *zip.File // zip only
}

// Extract writes the files of an archive (format FormatTarGz or FormatZip,
// as ArchiveFormat says; r holds size bytes) into dir, an existing empty
// folder, through an os.Root on it. It returns how many files and bytes
// it wrote and the entries it skipped.
//
// It reads an archive twice: first its list of entries, which must all be
// safe, then the files it writes. So nothing is written from an archive
// that Extract refuses for a path, and every limit is known before the
// first file. (A .tar.gz is decompressed twice.) Refused with an error:
//
//   - an entry whose path has a ".." element, is absolute, or fails
//     naming.CheckFilePath in any other way (a leading "./" is allowed);
//   - a device, a fifo or a socket;
//   - more entries than lim.MaxFiles, or more bytes than lim.MaxBytes
//     (counted as they are read, not from headers, so a small gzip that
//     inflates beyond the limit stops there);
//   - an entry written twice;
//   - a sub that matches nothing.
//
// Skipped with a reason: symbolic and hard links (never written, as they
// could point outside dir), files larger than lim.MaxFileBytes, a path
// too long or too deep to write (naming.PathProblem, as gitengine skips
// one), and tar entries of other types. The files written and the folders
// they make together may not pass lim.MaxFiles either (an error).
//
// When every entry lies under one top-level folder (as in GitHub's and
// most release tarballs: repo-v1.2/...), that folder is dropped: the files
// under it are written at dir's top, and sub is relative to it. sub ("" for
// everything) is a folder or a file of the archive, as naming.CleanSubPath
// normalises it; the files under a folder are written relative to it, a
// single file under its base name.
//
// On an error dir may hold part of the archive: extract into a temporary
// folder and discard it.
func Extract(r io.ReaderAt, size int64, format string, sub string, dir string, lim ArchiveLimits) (files int, bytes int64, skipped []Skipped, err error) {
	lim = lim.withDefaults()
	sub, err = naming.CleanSubPath(sub)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("archive sub-path: %w", err)
	}
	var entries []entry
	switch format {
	case FormatTarGz:
		entries, err = listTar(r, size, lim)
	case FormatZip:
		entries, err = listZip(r, size, lim)
	default:
		return 0, 0, nil, fmt.Errorf("archive format %s is not one ctx reads (%s or %s)", safetext.Quote(format), FormatTarGz, FormatZip)
	}
	if err != nil {
		return 0, 0, nil, err
	}
	plan, skipped, err := choose(entries, sub, lim.MaxFiles)
	if err != nil {
		return 0, 0, skipped, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, 0, skipped, fmt.Errorf("extract archive: %w", err)
	}
	defer root.Close()
	w := &writer{root: root, lim: lim, plan: plan}
	if format == FormatZip {
		err = w.zip(entries)
	} else {
		err = w.tar(r, size, entries)
	}
	return w.files, w.bytes, append(skipped, w.skipped...), err
}

// listTar is Extract's first pass over a .tar.gz: every entry, checked,
// its content read through (tar has no index) and counted.
func listTar(r io.ReaderAt, size int64, lim ArchiveLimits) ([]entry, error) {
	var entries []entry
	var total int64
	err := eachTar(r, size, func(hdr *tar.Header, _ *tar.Reader) error {
		if len(entries) >= lim.MaxFiles {
			return fmt.Errorf("archive holds more than %d entries (the limit); it is not a documentation archive, or raise the source's file limit", lim.MaxFiles)
		}
		// The content tar reads through to the next header is hdr.Size
		// bytes (a sparse file's logical size, which is at least what it
		// reads): count it before it is read.
		if hdr.Size < 0 || hdr.Size > lim.MaxBytes-total {
			return tooBig(lim.MaxBytes)
		}
		total += hdr.Size
		e, err := tarEntry(hdr)
		if err != nil {
			return err
		}
		entries = append(entries, e)
		return nil
	})
	return entries, err
}

// eachTar calls fn for each header of a .tar.gz, in order.
func eachTar(r io.ReaderAt, size int64, fn func(*tar.Header, *tar.Reader) error) error {
	gz, err := gzip.NewReader(io.NewSectionReader(r, 0, size))
	if err != nil {
		return fmt.Errorf("archive is not a gzip-compressed tar: %w", err)
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) { // Extract checks paths itself
			return fmt.Errorf("read archive: %w", err)
		}
		if err := fn(hdr, tr); err != nil {
			return err
		}
	}
}

// tarEntry says what a tar header is.
func tarEntry(hdr *tar.Header) (entry, error) {
	switch hdr.Typeflag {
	case tar.TypeXGlobalHeader:
		return entry{kind: entryIgnore}, nil
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		return entry{}, fmt.Errorf("archive entry %s is a device or a fifo; ctx refuses archives that hold one", safetext.Quote(hdr.Name))
	}
	name, isDir, err := entryName(hdr.Name)
	if err != nil || name == "" {
		return entry{kind: entryIgnore}, err
	}
	e := entry{name: name, size: hdr.Size}
	switch hdr.Typeflag {
	case tar.TypeReg, tar.TypeGNUSparse, tar.TypeCont:
		e.kind = entryFile
		if isDir {
			return entry{}, fmt.Errorf("archive entry %s is a file whose name ends in '/'; ctx refuses such an archive", safetext.Quote(hdr.Name))
		}
	case tar.TypeDir:
		e.kind = entryDir
	case tar.TypeSymlink:
		e.kind, e.reason = entrySkip, "symbolic link (ctx never writes links from an archive)"
	case tar.TypeLink:
		e.kind, e.reason = entrySkip, "hard link (ctx never writes links from an archive)"
	default:
		e.kind, e.reason = entrySkip, fmt.Sprintf("tar entry of type %s", safetext.Quote(string(hdr.Typeflag)))
	}
	return e, nil
}

// listZip is Extract's first pass over a zip: its central directory.
func listZip(r io.ReaderAt, size int64, lim ArchiveLimits) ([]entry, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // Extract checks paths itself
		return nil, fmt.Errorf("archive is not a zip file: %w", err)
	}
	if len(zr.File) > lim.MaxFiles {
		return nil, fmt.Errorf("archive holds %d entries, more than the limit of %d; it is not a documentation archive, or raise the source's file limit", len(zr.File), lim.MaxFiles)
	}
	entries := make([]entry, 0, len(zr.File))
	for _, f := range zr.File {
		mode := f.Mode()
		if mode&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe|fs.ModeSocket) != 0 {
			return nil, fmt.Errorf("archive entry %s is a device, a fifo or a socket; ctx refuses archives that hold one", safetext.Quote(f.Name))
		}
		name, isDir, err := entryName(f.Name)
		if err != nil {
			return nil, err
		}
		if name == "" {
			continue
		}
		e := entry{name: name, zf: f, size: int64(min(f.UncompressedSize64, 1<<62))}
		switch {
		case mode&fs.ModeSymlink != 0:
			e.kind, e.reason = entrySkip, "symbolic link (ctx never writes links from an archive)"
		case isDir || mode.IsDir():
			e.kind = entryDir
		case mode.IsRegular():
			e.kind = entryFile
		default:
			e.kind, e.reason = entrySkip, fmt.Sprintf("zip entry of mode %s", mode)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// entryName checks the path of an archive entry and returns it without a
// leading "./" and a trailing "/" (and whether it had one). The archive's
// own top folder ("." or "./") gives "".
func entryName(raw string) (name string, isDir bool, err error) {
	name = raw
	for strings.HasPrefix(name, "./") {
		name = name[2:]
	}
	name, isDir = strings.CutSuffix(name, "/")
	if name == "" || name == "." {
		if strings.HasPrefix(raw, ".") {
			return "", true, nil
		}
		name = raw // "" or "/": refused below
	}
	if err := naming.CheckFilePath(name); err != nil {
		return "", false, fmt.Errorf("archive entry %s is unsafe: %w; ctx refuses archives with such paths", safetext.Quote(raw), err)
	}
	return name, isDir, nil
}

// planned is where a chosen entry of the archive goes.
type planned struct {
	out string // package-relative path
}

// choose drops a single top-level folder, keeps the entries under sub,
// and says where each goes: plan is indexed like entries (out "" for an
// entry not written). Links and other skipped entries in sub are returned
// as skipped.
func choose(entries []entry, sub string, maxFiles int) (plan []planned, skipped []Skipped, err error) {
	top := singleTop(entries)
	plan = make([]planned, len(entries))
	matched := false
	layout := NewLayout(maxFiles)
	written := 0
	var tops []string
	for i, e := range entries {
		if e.kind == entryIgnore {
			continue
		}
		rel := e.name
		if top != "" {
			if rel == top {
				continue
			}
			rel = strings.TrimPrefix(rel, top+"/")
		}
		if first, _, _ := strings.Cut(rel, "/"); !slices.Contains(tops, first) && len(tops) < 10 {
			tops = append(tops, first)
		}
		out := rel
		switch {
		case sub == "":
		case rel == sub:
			out = path.Base(rel)
		case strings.HasPrefix(rel, sub+"/"):
			out = rel[len(sub)+1:]
		default:
			continue
		}
		matched = true
		switch e.kind {
		case entryDir:
			continue
		case entrySkip:
			skipped = append(skipped, Skipped{Path: out, Reason: e.reason})
			continue
		}
		if layout.Has(out) {
			return nil, skipped, fmt.Errorf("archive entry %s appears twice; ctx refuses such an archive", safetext.Quote(e.name))
		}
		skip, over := layout.Add(out)
		if skip != "" {
			skipped = append(skipped, Skipped{Path: out, Reason: skip})
			continue
		}
		if over {
			return nil, skipped, fmt.Errorf("archive would make more than %d files and folders (the limit); it is not a documentation archive, or raise the source's file limit", maxFiles)
		}
		written++
		plan[i] = planned{out: out}
	}
	if written > 0 || len(skipped) > 0 {
		return plan, skipped, nil
	}
	where := "the archive"
	if top != "" {
		where = fmt.Sprintf("the archive's folder %s (its single top-level folder, which ctx drops)", safetext.Quote(top))
	}
	switch {
	case sub == "":
		return nil, nil, fmt.Errorf("%s holds no files", where)
	case matched:
		return nil, nil, fmt.Errorf("sub-path %s of %s holds no files", safetext.Quote(sub), where)
	}
	slices.Sort(tops)
	return nil, nil, fmt.Errorf("sub-path %s matches nothing in %s; give a path under it (it holds %s)",
		safetext.Quote(sub), where, safetext.QuoteList(tops))
}

// singleTop is the name of the one top-level folder every entry lies
// under, or "" when there is no such folder.
func singleTop(entries []entry) string {
	top, under := "", false
	for _, e := range entries {
		if e.kind == entryIgnore {
			continue
		}
		first, rest, nested := strings.Cut(e.name, "/")
		switch {
		case top == "":
			top = first
		case first != top:
			return ""
		}
		if !nested && e.kind != entryDir {
			return "" // a file (or link) at the top
		}
		under = under || rest != ""
	}
	if !under {
		return ""
	}
	return top
}

// writer is Extract's second pass: it writes the planned files.
type writer struct {
	root    *os.Root
	lim     ArchiveLimits
	plan    []planned
	files   int
	bytes   int64
	skipped []Skipped
}

func (w *writer) zip(entries []entry) error {
	for i, e := range entries {
		if w.plan[i].out == "" {
			continue
		}
		if err := w.write(w.plan[i].out, e, func() (io.ReadCloser, error) { return e.zf.Open() }); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) tar(r io.ReaderAt, size int64, entries []entry) error {
	i := 0
	return eachTar(r, size, func(hdr *tar.Header, tr *tar.Reader) error {
		if i >= len(entries) {
			return errors.New("archive changed while it was read")
		}
		e, p := entries[i], w.plan[i]
		i++
		if p.out == "" {
			return nil
		}
		return w.write(p.out, e, func() (io.ReadCloser, error) { return io.NopCloser(tr), nil })
	})
}

// write writes one file at out from what open returns, counting what it
// reads against the limits.
func (w *writer) write(out string, e entry, open func() (io.ReadCloser, error)) error {
	if e.size > w.lim.MaxFileBytes {
		w.skipped = append(w.skipped, Skipped{Path: out, Reason: fmt.Sprintf("file of %d bytes is over the size limit of %d bytes", e.size, w.lim.MaxFileBytes)})
		return nil
	}
	rc, err := open()
	if err != nil {
		return fmt.Errorf("read archive entry %s: %w", safetext.Quote(e.name), err)
	}
	defer rc.Close()
	if dir := path.Dir(out); dir != "." {
		if err := w.root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("extract archive entry %s: %w", safetext.Quote(e.name), err)
		}
	}
	f, err := w.root.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("extract archive entry %s: %w", safetext.Quote(e.name), err)
	}
	limit := min(w.lim.MaxFileBytes, w.lim.MaxBytes-w.bytes)
	n, err := io.Copy(f, io.LimitReader(rc, limit+1))
	w.bytes += n
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return fmt.Errorf("extract archive entry %s: %w", safetext.Quote(e.name), err)
	case w.bytes > w.lim.MaxBytes:
		return tooBig(w.lim.MaxBytes)
	case n > w.lim.MaxFileBytes:
		return fmt.Errorf("archive entry %s holds more than the %d bytes its header or the size limit allows; ctx refuses such an archive", safetext.Quote(e.name), w.lim.MaxFileBytes)
	}
	w.files++
	return nil
}

func tooBig(limit int64) error {
	return fmt.Errorf("archive holds more than %d bytes uncompressed (the limit); it is not a documentation archive, or raise the source's size limit", limit)
}
