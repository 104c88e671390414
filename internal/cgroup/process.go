package cgroup

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ProcessCPULimit returns the CPU a process may use by the CFS quotas of its cgroup and of
// the cgroup's ancestors visible in the mount (a container sees its own cgroup only), in
// cores: the lowest quota ÷ period on the way up. proc is the process's /proc directory
// ("/proc/self"): its cgroup file names the cgroup, its mountinfo where the cpu
// controller is mounted. ok is false when no cgroup on the way sets a quota (v1
// cpu.cfs_quota_us -1, v2 cpu.max "max"), or when the process's cgroup of the cpu
// controller is not found (no cgroup mount, an unmounted hierarchy): then nothing limits
// the process below its CPUs.
func ProcessCPULimit(proc string) (cores float64, ok bool, err error) {
	dir, mount, v, err := processCPUDir(proc)
	if err != nil || dir == "" {
		return 0, false, err
	}
	cores = math.Inf(1)
	for {
		c, has, err := quotaOf(dir, v)
		if err != nil {
			return 0, false, err
		}
		if has {
			cores = min(cores, c)
		}
		up := filepath.Dir(dir)
		if dir == mount || up == dir {
			break
		}
		dir = up
	}
	if math.IsInf(cores, 1) {
		return 0, false, nil
	}
	return cores, true, nil
}

// quotaOf reads one cgroup directory's CFS quota and period; has is false without a
// quota, or when the directory has no such file (v2's root cgroup has no cpu.max).
func quotaOf(dir string, v Version) (cores float64, has bool, err error) {
	if v == V2 {
		b, err := os.ReadFile(filepath.Join(dir, "cpu.max"))
		if errors.Is(err, fs.ErrNotExist) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, fmt.Errorf("read the CPU limit: %w", err)
		}
		c, err := ParseCPUMax(b)
		if err != nil {
			return 0, false, fmt.Errorf("read the CPU limit of %s: %w", dir, err)
		}
		if c.QuotaUs < 0 {
			return 0, false, nil
		}
		return float64(c.QuotaUs) / float64(c.PeriodUs), true, nil
	}
	b, err := os.ReadFile(filepath.Join(dir, "cpu.cfs_quota_us"))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read the CPU limit: %w", err)
	}
	q, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("parse %s: %w", filepath.Join(dir, "cpu.cfs_quota_us"), err)
	}
	if q <= 0 {
		return 0, false, nil
	}
	p, err := readUint(filepath.Join(dir, "cpu.cfs_period_us"))
	if err != nil {
		return 0, false, err
	}
	if p == 0 {
		return 0, false, fmt.Errorf("read the CPU limit of %s: cpu.cfs_period_us is 0", dir)
	}
	return float64(q) / float64(p), true, nil
}

// processCPUDir finds the directory of the process's cgroup of the cpu controller and the
// mount it is under: v1's cpu hierarchy when the process is in one that is mounted,
// else the unified hierarchy. dir is empty when neither is found.
func processCPUDir(proc string) (dir, mount string, v Version, err error) {
	groups, err := os.ReadFile(filepath.Join(proc, "cgroup"))
	if err != nil {
		return "", "", 0, fmt.Errorf("read the process's cgroup: %w", err)
	}
	var v1Path, v2Path string
	hasV2 := false
	for line := range strings.Lines(string(groups)) {
		// hierarchy-ID:controller-list:cgroup-path
		id, rest, _ := strings.Cut(strings.TrimSpace(line), ":")
		ctrls, p, ok := strings.Cut(rest, ":")
		if !ok {
			continue
		}
		if id == "0" && ctrls == "" {
			v2Path, hasV2 = p, true
		} else if slices.Contains(strings.Split(ctrls, ","), "cpu") {
			v1Path = p
		}
	}
	mounts, err := readMounts(filepath.Join(proc, "mountinfo"))
	if err != nil {
		return "", "", 0, err
	}
	if v1Path != "" {
		for _, m := range mounts {
			if m.fstype == "cgroup" && slices.Contains(m.super, "cpu") {
				return under(m, v1Path), m.point, V1, nil
			}
		}
	}
	if hasV2 {
		for _, m := range mounts {
			if m.fstype == "cgroup2" {
				return under(m, v2Path), m.point, V2, nil
			}
		}
	}
	return "", "", 0, nil
}

// under is the directory of the cgroup at p (as /proc/<pid>/cgroup names it) in mount m.
// A mount whose root is the cgroup itself or an ancestor (a container's view of its own
// cgroup) holds it below the root; a cgroup outside the mount's root (a cgroup
// namespace that renamed it) is taken as the mount point.
func under(m mountEntry, p string) string {
	p = path.Clean("/" + p)
	rel := p
	if m.root != "/" {
		switch {
		case p == m.root:
			rel = "/"
		case strings.HasPrefix(p, m.root+"/"):
			rel = strings.TrimPrefix(p, m.root)
		default:
			rel = "/"
		}
	}
	return filepath.Join(m.point, rel)
}

type mountEntry struct {
	root, point, fstype string
	super               []string
}

// readMounts reads the cgroup mounts of a mountinfo file.
func readMounts(mountinfo string) ([]mountEntry, error) {
	f, err := os.Open(mountinfo)
	if err != nil {
		return nil, fmt.Errorf("read the process's mounts: %w", err)
	}
	defer func() { _ = f.Close() }()
	var out []mountEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := slices.Index(fields, "-")
		if sep < 5 || sep+3 > len(fields) {
			continue
		}
		if t := fields[sep+1]; t == "cgroup" || t == "cgroup2" {
			out = append(out, mountEntry{root: unescape(fields[3]), point: unescape(fields[4]), fstype: t, super: strings.Split(fields[sep+3], ",")})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", mountinfo, err)
	}
	return out, nil
}
