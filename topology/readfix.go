package topology

import (
	"errors"
	"io/fs"
	"syscall"
)

// ReadFix is the fix of a file nestor could not read when the cause is not
// the file's path, "" otherwise: the process out of open files (EMFILE, or
// the system's table full: ENFILE) is fixed by the open-file limit
// (getrlimit(2) RLIMIT_NOFILE, `ulimit -n`) or fewer stacks read at once; a
// permission refused (EACCES, EPERM) by the file's mode. Every file nestor
// reads (topologies, kubeconfigs) says it the same way.
func ReadFix(err error) string {
	switch {
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		return "the process has too many files open: raise its open-file limit (ulimit -n), or read fewer stacks at once (fleet --parallel)"
	case errors.Is(err, fs.ErrPermission):
		return "check the file's permissions"
	}
	return ""
}
