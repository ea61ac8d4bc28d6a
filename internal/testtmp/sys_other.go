//go:build !unix

package testtmp

// alive: without a Unix process table, every folder's process may still run.
func alive(int) bool { return true }

// freeBytes: tmpfs is a Unix idea; elsewhere the default folder is kept.
func freeBytes(string) (uint64, bool) { return 0, false }
