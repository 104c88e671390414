//go:build !unix

package benchtest

import "time"

// ProcessCPU returns 0: the process's CPU time is read on Unix only.
func ProcessCPU() time.Duration { return 0 }
