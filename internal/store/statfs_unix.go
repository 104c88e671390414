//go:build unix

package store

import (
	"fmt"
	"syscall"
)

// freeBytes returns the bytes available to unprivileged users on dir's file system.
func freeBytes(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("statfs %q: %w", dir, err)
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil //nolint:unconvert // Field types differ between systems.
}
