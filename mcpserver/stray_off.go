//go:build !(ctxstraytest && unix)

package mcpserver

// strayPrints does nothing in ctx; see stray_on.go.
func strayPrints() {}
