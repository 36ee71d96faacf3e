//go:build !unix

package app

// openFileLimit is 0 where the limit of open files is not read: fleet's
// default parallelism is then its floor.
func openFileLimit() uint64 { return 0 }
