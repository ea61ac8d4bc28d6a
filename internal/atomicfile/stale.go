package atomicfile

import (
	"io/fs"
	"strings"
	"time"
)

// StaleAge is the age past which a temp file of WriteFile or WriteCache is
// a killed process's leftover, not a write in flight: a write creates its
// temp, writes it whole, syncs and renames it at once, so an hour is far
// past any live write (as webfetch's staleIncoming is past any download).
// A process stopped longer than that mid-write (a laptop asleep) finds its
// temp gone: its rename fails and the write reports it; nothing it had is
// lost, the file it meant to replace stays as it was.
const StaleAge = time.Hour

// IsTemp reports whether name (a base name) is one that WriteFile and
// WriteCache give their temp files: "." + the file's name + "." + the
// random digits of os.CreateTemp + ".tmp". A kill (SIGKILL, the OOM
// killer, a power cut) between the temp's creation and its rename leaves
// it behind, and nothing else removes it.
func IsTemp(name string) bool {
	_, ok := TempOf(name)
	return ok
}

// TempOf returns the base name of the file a temp named name (IsTemp's
// form) was to replace: "context.lock" for ".context.lock.123.tmp". A
// caller that sweeps a folder the user may also write to removes only the
// temps of the files it writes there (workspace's sweepTemps).
func TempOf(name string) (string, bool) {
	rest, ok := strings.CutSuffix(name, ".tmp")
	if !ok || !strings.HasPrefix(rest, ".") {
		return "", false
	}
	i := strings.LastIndexByte(rest, '.')
	digits := rest[i+1:]
	if i < 2 || digits == "" { // "." + at least one byte of the name + "."
		return "", false
	}
	if strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	return rest[1:i], true
}

// Stale returns the names, among ents (a folder's entries, as os.ReadDir
// returns them), of the regular files IsTemp names whose modification time
// is more than StaleAge before now: the leftovers a caller that owns the
// folder may remove. It reads nothing but the Lstat of an entry IsTemp
// names.
func Stale(ents []fs.DirEntry, now time.Time) []string {
	var names []string
	for _, e := range ents {
		if !IsTemp(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > StaleAge {
			names = append(names, e.Name())
		}
	}
	return names
}
