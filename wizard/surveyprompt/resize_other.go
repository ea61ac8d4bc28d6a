//go:build !unix

package surveyprompt

import "github.com/AlecAivazis/survey/v2/terminal"

// watchResize does nothing where there is no SIGWINCH (Windows): the list
// keeps the size it started with.
func watchResize(in terminal.FileReader, fit func()) (terminal.FileReader, func()) {
	return in, func() {}
}
