//go:build unix

package benchtest

import (
	"syscall"
	"time"
)

// ProcessCPU returns the user+system CPU time the process has used, 0 when the system
// does not say.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
