package process

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/cgroup"
)

// runID names a run's cgroup after its owner: "run-<pid>-<start time of pid in clock
// ticks since boot>", so that a later run can tell whether the owner still lives (a pid
// alone may have been reused).
func runID(pid int) string {
	return fmt.Sprintf("run-%d-%d", pid, startTime(pid))
}

// startTime is field 22 of /proc/<pid>/stat, or 0 when the process does not exist.
func startTime(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}

// ownerAlive reports whether the run id's owner is still running.
func ownerAlive(id string) bool {
	var pid int
	var start uint64
	if _, err := fmt.Sscanf(id, "run-%d-%d", &pid, &start); err != nil {
		return true // not ours to judge
	}
	return startTime(pid) == start && start != 0
}

// RemoveStale removes the cgroups of earlier runs whose owner is dead (killing any process
// still in them) and returns how many runs it removed.
func RemoveStale(h *cgroup.Hierarchy, logger *slog.Logger) (int, error) {
	top := h.Open(Top)
	if !top.Exists() {
		return 0, nil
	}
	runs, err := top.Children()
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, id := range runs {
		if !strings.HasPrefix(id, "run-") || ownerAlive(id) {
			continue
		}
		logger.Warn("Removing cgroups of a dead run", "run", id)
		if err := h.Open(Top + "/" + id).RemoveAll(5 * time.Second); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}
