// Package fileid reads what stat data says about a file's identity beyond
// size and mtime: the inode change time and the inode number. Nothing a user
// runs (touch -r, cp -p, rsync -t, an editor) can set a ctime back, so a file
// whose ctime and inode are unchanged since they were recorded has not been
// written or replaced since. The dirty-state guard's status check and the
// indexer's change detection both use it.
package fileid
