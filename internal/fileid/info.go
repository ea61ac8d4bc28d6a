package fileid

import (
	"io/fs"
	"time"
)

// info is a Tree's answer as an fs.FileInfo (Tree.Info): the stamp is
// kept as it was read, so Of and Change take it without a second stat.
type info struct {
	name  string
	mode  fs.FileMode
	stamp Stamp
	sys   any
}

func (i *info) Name() string       { return i.name }
func (i *info) Size() int64        { return i.stamp.Size }
func (i *info) Mode() fs.FileMode  { return i.mode }
func (i *info) ModTime() time.Time { return time.Unix(0, i.stamp.MTime) }
func (i *info) IsDir() bool        { return i.mode.IsDir() }
func (i *info) Sys() any           { return i.sys }
