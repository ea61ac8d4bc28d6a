//go:build race

package testtmp

// Race is true in a test binary built with the race detector (-race),
// which runs each test 2 to 20 times slower: a test over a large corpus
// or many generated inputs may check a fixed sample of them under Race,
// the same check on fewer inputs (bench/README.md, issue 30 round 15).
const Race = true
