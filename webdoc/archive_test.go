package webdoc

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// member is one entry of a test archive.
type member struct {
	name string
	body string
	kind byte // tar type flag; zip: tar.TypeSymlink, TypeChar or TypeDir map to modes
	link string
}

func file(name, body string) member { return member{name: name, body: body, kind: tar.TypeReg} }

func makeTarGz(t testing.TB, ms []member) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, m := range ms {
		hdr := &tar.Header{Name: m.name, Typeflag: m.kind, Mode: 0o644, Linkname: m.link, Format: tar.FormatPAX}
		if m.kind == tar.TypeXGlobalHeader { // as GitHub's tarballs start
			hdr = &tar.Header{Typeflag: m.kind, PAXRecords: map[string]string{"comment": "1a2b3c"}}
		}
		if m.kind == tar.TypeReg {
			hdr.Size = int64(len(m.body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if m.kind == tar.TypeReg {
			if _, err := tw.Write([]byte(m.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func makeZip(t testing.TB, ms []member) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range ms {
		if m.kind == tar.TypeXGlobalHeader {
			continue
		}
		fh := &zip.FileHeader{Name: m.name, Method: zip.Deflate}
		body := m.body
		switch m.kind {
		case tar.TypeSymlink:
			fh.SetMode(fs.ModeSymlink | 0o777)
			body = m.link
		case tar.TypeChar:
			fh.SetMode(fs.ModeDevice | fs.ModeCharDevice | 0o644)
		case tar.TypeFifo:
			fh.SetMode(fs.ModeNamedPipe | 0o644)
		case tar.TypeDir:
			fh.SetMode(fs.ModeDir | 0o755)
		default:
			fh.SetMode(0o644)
		}
		w, err := zw.CreateHeader(fh)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func makeArchive(t testing.TB, format string, ms []member) []byte {
	if format == FormatZip {
		return makeZip(t, ms)
	}
	return makeTarGz(t, ms)
}

// tree lists the files under dir as "path=content".
func tree(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeType != 0 && !d.IsDir() {
			t.Errorf("%s is not a regular file or a folder (%v)", p, d.Type())
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel)+"="+string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestExtract(t *testing.T) {
	docs := []member{
		file("README.md", "top"),
		{name: "docs/", kind: tar.TypeDir},
		file("docs/a.md", "A"),
		file("docs/guide/b.md", "B"),
		file("docs/.hidden/c.md", "C"),
		file("other/x.md", "X"),
	}
	github := []member{
		{name: "pax_global_header", kind: tar.TypeXGlobalHeader},
		{name: "repo-1a2b3c/", kind: tar.TypeDir},
		file("repo-1a2b3c/README.md", "top"),
		file("repo-1a2b3c/docs/a.md", "A"),
		file("repo-1a2b3c/docs/guide/b.md", "B"),
	}
	dotted := []member{
		{name: "./", kind: tar.TypeDir},
		file("./docs/a.md", "A"),
		file("./b.md", "B"),
	}
	for _, format := range []string{FormatTarGz, FormatZip} {
		for _, tc := range []struct {
			name    string
			ms      []member
			sub     string
			want    []string
			wantErr string
		}{
			{"all", docs, "", []string{"README.md=top", "docs/.hidden/c.md=C", "docs/a.md=A", "docs/guide/b.md=B", "other/x.md=X"}, ""},
			{"sub folder", docs, "docs", []string{".hidden/c.md=C", "a.md=A", "guide/b.md=B"}, ""},
			{"sub folder, trailing slash and dot", docs, "./docs/guide/", []string{"b.md=B"}, ""},
			{"sub file", docs, "docs/guide/b.md", []string{"b.md=B"}, ""},
			{"sub is a prefix of a name only", docs, "doc", nil, `sub-path "doc" matches nothing in the archive; give a path under it (it holds "README.md", "docs", "other")`},
			{"sub missing", docs, "nope", nil, `sub-path "nope" matches nothing`},
			{"sub with ..", docs, "docs/../other", nil, `has a '..' element`},
			{"single top folder dropped", github, "", []string{"README.md=top", "docs/a.md=A", "docs/guide/b.md=B"}, ""},
			{"single top folder dropped, sub", github, "docs", []string{"a.md=A", "guide/b.md=B"}, ""},
			{"sub names the dropped folder", github, "repo-1a2b3c/docs", nil, `matches nothing in the archive's folder "repo-1a2b3c" (its single top-level folder, which ctx drops)`},
			{"leading ./", dotted, "", []string{"b.md=B", "docs/a.md=A"}, ""},
			{"one file at the top is not dropped", []member{file("docs/a.md", "A"), file("b.md", "B")}, "docs", []string{"a.md=A"}, ""},
			{"single top folder with one file", []member{file("only/a.md", "A")}, "", []string{"a.md=A"}, ""},
			{"empty", []member{{name: "d/", kind: tar.TypeDir}, {name: "e/", kind: tar.TypeDir}}, "", nil, "the archive holds no files"},
			{"sub is an empty folder", []member{{name: "d/", kind: tar.TypeDir}, file("a.md", "")}, "d", nil, `sub-path "d" of the archive holds no files`},
			{"twice", []member{file("a.md", "1"), file("a.md", "2")}, "", nil, `archive entry "a.md" appears twice`},
		} {
			t.Run(format+"/"+tc.name, func(t *testing.T) {
				data := makeArchive(t, format, tc.ms)
				dir := t.TempDir()
				files, n, skipped, err := Extract(bytes.NewReader(data), int64(len(data)), format, tc.sub, dir, ArchiveLimits{})
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				got := tree(t, dir)
				if !slices.Equal(got, tc.want) {
					t.Errorf("wrote %v, want %v", got, tc.want)
				}
				var size int64
				for _, g := range got {
					_, body, _ := strings.Cut(g, "=")
					size += int64(len(body))
				}
				if files != len(tc.want) || n != size || len(skipped) != 0 {
					t.Errorf("returned %d files, %d bytes, skipped %v; want %d files, %d bytes, none skipped", files, n, skipped, len(tc.want), size)
				}
			})
		}
	}
}

func TestExtractHostile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		formats []string
		ms      []member
		wantErr string
		skipped []Skipped
		want    []string
	}{
		{"zip slip", nil, []member{file("ok.md", "x"), file("../evil.md", "x")}, `archive entry "../evil.md" is unsafe: path "../evil.md" has a '..' element`, nil, nil},
		{"slip inside", nil, []member{file("a/../../evil.md", "x")}, `has a '..' element`, nil, nil},
		{"dot-dot after ./", nil, []member{file("./../evil.md", "x")}, `archive entry "./../evil.md" is unsafe`, nil, nil},
		{"absolute", nil, []member{file("/etc/passwd", "x")}, `is absolute`, nil, nil},
		{"drive letter", nil, []member{file("C:/x.md", "x")}, `drive letter`, nil, nil},
		{"backslash", nil, []member{file(`a\..\..\x.md`, "x")}, `backslash`, nil, nil},
		{".git", nil, []member{file("a/.git/hooks/post-checkout", "x")}, `names git metadata`, nil, nil},
		{"empty element", nil, []member{file("a//b.md", "x")}, `empty element`, nil, nil},
		{"device", nil, []member{file("a.md", "x"), {name: "dev", kind: tar.TypeChar}}, `archive entry "dev" is a device`, nil, nil},
		{"fifo", nil, []member{file("a.md", "x"), {name: "pipe", kind: tar.TypeFifo}}, `archive entry "pipe" is a device`, nil, nil},
		{"symlink", nil, []member{file("a.md", "x"), {name: "evil.md", kind: tar.TypeSymlink, link: "/etc/passwd"}, file("b.md", "y")}, "",
			[]Skipped{{"evil.md", "symbolic link (ctx never writes links from an archive)"}}, []string{"a.md=x", "b.md=y"}},
		{"symlink then a file through it", nil, []member{{name: "d", kind: tar.TypeSymlink, link: "/tmp"}, file("d/x.md", "x")}, "",
			[]Skipped{{"d", "symbolic link (ctx never writes links from an archive)"}}, []string{"d/x.md=x"}},
		{"hard link", []string{FormatTarGz}, []member{file("a.md", "x"), {name: "h.md", kind: tar.TypeLink, link: "../../etc/passwd"}}, "",
			[]Skipped{{"h.md", "hard link (ctx never writes links from an archive)"}}, []string{"a.md=x"}},
	} {
		formats := tc.formats
		if formats == nil {
			formats = []string{FormatTarGz, FormatZip}
		}
		for _, format := range formats {
			t.Run(format+"/"+tc.name, func(t *testing.T) {
				data := makeArchive(t, format, tc.ms)
				parent := t.TempDir()
				dir := filepath.Join(parent, "pkg")
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				_, _, skipped, err := Extract(bytes.NewReader(data), int64(len(data)), format, "", dir, ArchiveLimits{})
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
					}
					if got := tree(t, parent); len(got) != 0 {
						t.Errorf("a refused archive wrote %v", got)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(skipped, tc.skipped) {
					t.Errorf("skipped %v, want %v", skipped, tc.skipped)
				}
				if got := tree(t, dir); !slices.Equal(got, tc.want) {
					t.Errorf("wrote %v, want %v", got, tc.want)
				}
			})
		}
	}
}

// countingReaderAt counts the bytes read from an archive.
type countingReaderAt struct {
	r *bytes.Reader
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

func TestExtractLimits(t *testing.T) {
	zeros := strings.Repeat("\x00", 1<<20)
	var many []member
	for i := range 40 {
		many = append(many, file(fmt.Sprintf("z/%03d.md", i), zeros))
	}
	for _, format := range []string{FormatTarGz, FormatZip} {
		t.Run(format+"/bomb", func(t *testing.T) {
			// 40 MB of zeros in well under 1 MB: it must stop at 5 MB.
			data := makeArchive(t, format, many)
			if len(data) > 1<<20 {
				t.Fatalf("test archive is %d bytes, meant to be small", len(data))
			}
			r := &countingReaderAt{r: bytes.NewReader(data)}
			dir := t.TempDir()
			_, n, _, err := Extract(r, int64(len(data)), format, "", dir, ArchiveLimits{MaxBytes: 5 << 20})
			if err == nil || !strings.Contains(err.Error(), "more than 5242880 bytes uncompressed") {
				t.Fatalf("err = %v, want the byte limit", err)
			}
			if n > 5<<20+1 { // the one byte over shows the limit was passed
				t.Errorf("wrote %d bytes, over the limit", n)
			}
			// Stopping early means most of the compressed input is never read
			// (the zip's central directory, at its end, is read once).
			if read := r.n.Load(); read > int64(len(data))/2 {
				t.Errorf("read %d of the archive's %d bytes before stopping", read, len(data))
			}
		})
		t.Run(format+"/files", func(t *testing.T) {
			data := makeArchive(t, format, []member{file("a.md", "1"), file("b.md", "2"), file("c.md", "3")})
			_, _, _, err := Extract(bytes.NewReader(data), int64(len(data)), format, "", t.TempDir(), ArchiveLimits{MaxFiles: 2})
			if err == nil || !strings.Contains(err.Error(), "entries") || !strings.Contains(err.Error(), "limit") {
				t.Fatalf("err = %v, want the file limit", err)
			}
		})
		t.Run(format+"/file size", func(t *testing.T) {
			data := makeArchive(t, format, []member{file("big.md", strings.Repeat("x", 2000)), file("small.md", "s")})
			dir := t.TempDir()
			files, _, skipped, err := Extract(bytes.NewReader(data), int64(len(data)), format, "", dir, ArchiveLimits{MaxFileBytes: 1000})
			if err != nil {
				t.Fatal(err)
			}
			want := []Skipped{{"big.md", "file of 2000 bytes is over the size limit of 1000 bytes"}}
			if files != 1 || !slices.Equal(skipped, want) || !slices.Equal(tree(t, dir), []string{"small.md=s"}) {
				t.Errorf("got %d files, skipped %v, tree %v", files, skipped, tree(t, dir))
			}
		})
	}
}

// TestExtractZipLyingSize: a zip whose header says 10 bytes but whose data
// inflates to 1 MB is stopped on what is read, not trusted.
func TestExtractZipLyingSize(t *testing.T) {
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	fw.Write(bytes.Repeat([]byte("a"), 1<<20))
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "liar.md", Method: zip.Deflate, CompressedSize64: uint64(comp.Len()), UncompressedSize64: 10})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(comp.Bytes())
	zw.Close()
	data := buf.Bytes()
	_, n, _, err := Extract(bytes.NewReader(data), int64(len(data)), FormatZip, "", t.TempDir(), ArchiveLimits{MaxFileBytes: 1000})
	if err == nil || !strings.Contains(err.Error(), `archive entry "liar.md"`) {
		t.Fatalf("err = %v, want an error about liar.md", err)
	}
	if n > 1001 {
		t.Errorf("read %d bytes of an entry limited to 1000", n)
	}
}

func TestExtractBadInput(t *testing.T) {
	for _, tc := range []struct{ format, data, wantErr string }{
		{FormatTarGz, "not gzip", "archive is not a gzip-compressed tar"},
		{FormatZip, "not zip", "archive is not a zip file"},
		{"rar", "", `archive format "rar" is not one ctx reads`},
	} {
		_, _, _, err := Extract(strings.NewReader(tc.data), int64(len(tc.data)), tc.format, "", t.TempDir(), ArchiveLimits{})
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: err = %v, want %q", tc.format, err, tc.wantErr)
		}
	}
}

func FuzzExtract(f *testing.F) {
	f.Add(makeTarGz(f, []member{file("a/b.md", "x"), {name: "l", kind: tar.TypeSymlink, link: "../x"}}), false, "")
	f.Add(makeTarGz(f, []member{file("../x.md", "x")}), false, "")
	f.Add(makeZip(f, []member{file("r/a.md", "x"), file("r/d/b.md", "y")}), true, "d")
	f.Add(makeZip(f, []member{file("/abs.md", "x")}), true, "")
	f.Fuzz(func(t *testing.T, data []byte, isZip bool, sub string) {
		format := FormatTarGz
		if isZip {
			format = FormatZip
		}
		parent := t.TempDir()
		dir := filepath.Join(parent, "pkg")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		lim := ArchiveLimits{MaxFiles: 50, MaxBytes: 1 << 16, MaxFileBytes: 1 << 12}
		files, n, _, _ := Extract(bytes.NewReader(data), int64(len(data)), format, sub, dir, lim)
		if n > lim.MaxBytes+1 || files > lim.MaxFiles {
			t.Fatalf("wrote %d files, %d bytes: over the limits", files, n)
		}
		// Nothing is ever written outside dir, and nothing but files and folders.
		entries, err := os.ReadDir(parent)
		if err != nil || len(entries) != 1 {
			t.Fatalf("wrote beside the package folder: %v %v", entries, err)
		}
		tree(t, dir)
	})
}
