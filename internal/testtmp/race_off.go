//go:build !race

package testtmp

// Race is true in a test binary built with the race detector (-race); see
// race_on.go.
const Race = false
