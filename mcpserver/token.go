package mcpserver

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ctx-dev/ctx/internal/atomicfile"
	"github.com/ctx-dev/ctx/internal/boundedfile"
)

// A token is the bearer token of `ctx mcp --http`: 16 to 256 characters,
// each a printable ASCII character other than a space (what an HTTP header
// carries unchanged). A generated one is crypto/rand.Text(): 26 characters
// of base32, 130 random bits.
const (
	minTokenLen = 16
	maxTokenLen = 256
)

// CheckToken reports whether tok can be a token; from names where it came
// from, for the error.
func CheckToken(tok, from string) error {
	if len(tok) < minTokenLen || len(tok) > maxTokenLen {
		return fmt.Errorf("%s: the MCP token must be %d to %d characters, got %d; use 'ctx mcp token --rotate' for a new one", from, minTokenLen, maxTokenLen, len(tok))
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] <= ' ' || tok[i] > '~' {
			return fmt.Errorf("%s: the MCP token may hold only printable ASCII characters without spaces (byte %d is not); use 'ctx mcp token --rotate' for a new one", from, i+1)
		}
	}
	return nil
}

// LoadToken returns the token stored at path (the user's config folder's
// ctx/mcp-token), creating the file with a new token, mode 0600, when there
// is none. created says it did. Creation is exclusive, so two servers
// started at once agree on one token. A file others can read is refused
// (on Unix).
func LoadToken(path string) (tok string, created bool, err error) {
	data, err := boundedfile.ReadFile(path, 64<<10) // a token is one line; never wait on a fifo (red23)
	if errors.Is(err, fs.ErrNotExist) {
		tok = rand.Text()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", false, fmt.Errorf("create the MCP token: %w", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return LoadToken(path) // another ctx made it first
		}
		if err != nil {
			return "", false, fmt.Errorf("create the MCP token: %w", err)
		}
		_, err = f.WriteString(tok + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			return "", false, fmt.Errorf("create the MCP token %s: %w", path, err)
		}
		return tok, true, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read the MCP token: %w", err)
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			return "", false, fmt.Errorf("the MCP token file %s can be read by other users (mode %04o): run 'chmod 600 %s', or 'ctx mcp token --rotate' if it may have leaked", path, fi.Mode().Perm(), path)
		}
	}
	tok = strings.TrimSpace(string(data))
	if err := CheckToken(tok, path); err != nil {
		return "", false, err
	}
	return tok, false, nil
}

// RotateToken replaces the token at path with a new one (mode 0600) and
// returns it. A running server keeps the token it started with.
func RotateToken(path string) (string, error) {
	tok := rand.Text()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("rotate the MCP token: %w", err)
	}
	if err := atomicfile.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("rotate the MCP token: %w", err)
	}
	return tok, nil
}
