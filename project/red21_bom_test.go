package project

import (
	"testing"
)

// red21 finding 3: a manifest or lock saved with a UTF-8 byte-order mark
// (Notepad, PowerShell 5's Out-File -Encoding utf8, VS Code's "UTF-8 with
// BOM") stopped every command of every teammate with "invalid character
// 'ï' looking for beginning of value". RFC 8259 lets a parser ignore the
// mark, and npm does for package.json: the file is read as without it.
func TestRed21BOM(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	m, err := ParseManifest("context.config.json", []byte(bom+"{\r\n  \"index\": {},\r\n  \"packages\": [{\"alias\": \"a\", \"source\": \"https://example.com/a.git\"}]\r\n}\r\n"))
	if err != nil {
		t.Fatalf("manifest with a BOM: %v", err)
	}
	if len(m.Packages) != 1 || m.Packages[0].Alias != "a" {
		t.Fatalf("manifest with a BOM read as %+v", m.Packages)
	}
	lock := bom + `{
  "version": 2,
  "packages": {
    "a": {"kind": "git", "source": "https://example.com/a.git", "rev": "0123456789abcdef0123456789abcdef01234567", "tree": "0123456789abcdef0123456789abcdef01234567", "hash": "h1:VMarc+13cBpxTl3itZBCDkp1T+LMCnECFNM6nwAnJGM=", "updated": "2026-11-28T16:01:37Z"}
  }
}
`
	l, err := ParseLock("context.lock", []byte(lock))
	if err != nil {
		t.Fatalf("lock with a BOM: %v", err)
	}
	if l.Version != 2 || l.Packages["a"].Rev != "0123456789abcdef0123456789abcdef01234567" {
		t.Fatalf("lock with a BOM read as %+v", l)
	}
	// Only one mark, at the start: one elsewhere is still an error.
	if _, err := ParseManifest("context.config.json", []byte(`{"index": {}, `+bom+`"packages": []}`)); err == nil {
		t.Error("a BOM inside the file was accepted")
	}
}
