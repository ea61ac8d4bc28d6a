package fileid

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestTreeReadFile: ReadFile reads a file below the root into the buffer
// given (reused when it is large enough, grown when not), refuses a name
// that is not a valid one below the root, does not follow a final
// symbolic link, and reads a file whose root is gone as an error.
func TestTreeReadFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	big := bytes.Repeat([]byte("0123456789"), 10000)
	for name, data := range map[string][]byte{"a.md": []byte("# a\n"), "d/big.md": big, "d/empty.md": nil} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr := NewTree(root)
	defer tr.Close()
	buf := make([]byte, 0, 64)
	got, err := tr.ReadFile("a.md", buf)
	if err != nil || string(got) != "# a\n" {
		t.Fatalf("ReadFile(a.md) = %q, %v", got, err)
	}
	if &got[:1][0] != &buf[:1][0] {
		t.Error("ReadFile did not read into the buffer given, large enough")
	}
	if got, err = tr.ReadFile("d/big.md", got); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("ReadFile(d/big.md) = %d bytes, %v; want %d", len(got), err, len(big))
	}
	if got, err = tr.ReadFile("d/empty.md", got); err != nil || len(got) != 0 {
		t.Fatalf("ReadFile(d/empty.md) = %q, %v", got, err)
	}
	for _, bad := range []string{".", "../x", "/etc/passwd", "d/../a.md", ""} {
		if _, err := tr.ReadFile(bad, nil); err == nil {
			t.Errorf("ReadFile(%q): no error", bad)
		}
	}
	if _, err := tr.ReadFile("missing.md", nil); !os.IsNotExist(err) {
		t.Errorf("ReadFile(missing.md) = %v, want not-exist", err)
	}
	if runtime.GOOS != "windows" {
		if err := os.Symlink("a.md", filepath.Join(root, "link.md")); err != nil {
			t.Fatal(err)
		}
		if got, err := tr.ReadFile("link.md", nil); err == nil {
			t.Errorf("ReadFile(link.md) = %q: followed the link", got)
		}
	}
	gone := NewTree(filepath.Join(root, "nothing"))
	defer gone.Close()
	if _, err := gone.ReadFile("a.md", nil); !os.IsNotExist(err) {
		t.Errorf("ReadFile under a missing root = %v, want not-exist", err)
	}
}
