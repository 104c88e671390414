//go:build integration && linux

package cadvisor

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/opencontainers/cgroups"
)

// TestMain removes the cgroups a test binary that died left behind (their busy loops end
// with it), then runs the tests.
func TestMain(m *testing.M) {
	if err := sweep(); err != nil {
		// Not fatal: the tests' own cgroups have unique names.
		fmt.Fprintln(os.Stderr, "remove stale test cgroups:", err)
	}
	os.Exit(m.Run())
}

// stale matches the top-level cgroups of these tests; the group is the test process's pid.
var stale = regexp.MustCompile(`^tidemark-cadv(?:test-[a-z0-9]+|bench)-(\d+)-\d+$`)

func sweep() error {
	var mounts []string
	if cgroups.IsCgroup2UnifiedMode() {
		mounts = []string{"/sys/fs/cgroup"}
	} else {
		for _, ss := range []string{"cpu", "cpuacct", "memory"} {
			if mp, err := cgroups.FindCgroupMountpoint("", ss); err == nil && !slices.Contains(mounts, mp) {
				mounts = append(mounts, mp)
			}
		}
	}
	for _, mp := range mounts {
		entries, err := os.ReadDir(mp)
		if err != nil {
			return err
		}
		for _, e := range entries {
			m := stale.FindStringSubmatch(e.Name())
			if m == nil {
				continue
			}
			if _, err := os.Stat("/proc/" + m[1]); err == nil {
				continue // its test binary still runs
			}
			if err := removeTree(filepath.Join(mp, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// removeTree removes a cgroup directory and its children, deepest first.
func removeTree(root string) error {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, d := range slices.Backward(dirs) {
		if err := os.Remove(d); err != nil {
			return fmt.Errorf("remove %s: %w", d, err)
		}
	}
	return nil
}
