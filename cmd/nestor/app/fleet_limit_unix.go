//go:build unix

package app

import "syscall"

// openFileLimit is the process's soft limit of open files (RLIMIT_NOFILE),
// 0 when it cannot be read.
func openFileLimit() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0
	}
	return uint64(l.Cur)
}
