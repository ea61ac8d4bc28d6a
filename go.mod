module github.com/ctx-dev/ctx

go 1.26.8

require (
	github.com/spf13/cobra v1.10.2
	golang.org/x/term v0.47.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
