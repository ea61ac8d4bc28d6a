package naming

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// CacheKey names the object cache of a remote, a folder under the cache
// root, from the parts of its parsed URL (credentials are never part of
// it). Every spelling of one repository gets one key: the host is
// lower-cased, a port of 0 is left out, and a trailing "/" or ".git" of the
// path is ignored. The key is a readable prefix of at most 60 bytes of
// [A-Za-z0-9._-] (host_path, other characters as '_'), '-', and 12 hex digits of
// the SHA-256 of protocol://host[:port]/path, so that it is one safe folder
// name (CheckName) and two repositories get two keys.
func CacheKey(protocol, host string, port int, path string) string {
	host = strings.ToLower(host)
	if port != 0 {
		host += ":" + strconv.Itoa(port)
	}
	p := strings.TrimSuffix(strings.TrimSuffix(path, "/"), ".git")
	canon := protocol + "://" + host + "/" + strings.TrimPrefix(p, "/")
	sum := sha256.Sum256([]byte(canon))
	readable := strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' {
			return c
		}
		return '_'
	}, host+"_"+strings.Trim(p, "/"))
	if len(readable) > 60 {
		readable = readable[:60]
	}
	return readable + "-" + hex.EncodeToString(sum[:6])
}
