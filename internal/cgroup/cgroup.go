// Package cgroup creates and reads the kernel's CPU cgroups of Tidemark's process runtime:
// one cgroup per pod under a Tidemark-owned parent, with the kubelet's CPU shares (from
// the request) and CFS quota and period (from the limit), the processes moved into it, and
// its cpu.stat and CPU usage read as cAdvisor reads them.
//
// Both cgroup versions are supported: v1 with the cpu and cpuacct controllers (mounted
// together or apart: cpu.shares, cpu.cfs_quota_us, cpu.cfs_period_us, cpu.stat's
// nr_periods, nr_throttled and throttled_time, cpuacct.usage) and the unified v2 hierarchy
// with the cpu controller (cpu.weight, cpu.max, cpu.stat's usage_usec, nr_periods,
// nr_throttled and throttled_usec). Detect finds which one holds the cpu controller from
// /proc/self/mountinfo; a machine where none does, or where it is not writable, gets an
// error naming what is missing, never a fall-back.
package cgroup

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Version is a cgroup hierarchy's version.
type Version int

// The cgroup versions.
const (
	V1 Version = 1
	V2 Version = 2
)

// ErrNoCPUController is returned by Detect when no hierarchy has the cpu controller.
var ErrNoCPUController = errors.New("no cgroup cpu controller")

// Hierarchy is where the cpu controller (and, on v1, cpuacct) is mounted.
type Hierarchy struct {
	version Version
	// cpu is the v1 cpu mount or the v2 unified mount; cpuacct is the v1 cpuacct mount
	// (equal to cpu when they are mounted together; unused on v2).
	cpu, cpuacct string
}

// NewV1 returns the v1 hierarchy with the cpu controller mounted at cpuDir and cpuacct at
// cpuacctDir (the same directory when mounted together, as "cpu,cpuacct").
func NewV1(cpuDir, cpuacctDir string) *Hierarchy {
	return &Hierarchy{version: V1, cpu: cpuDir, cpuacct: cpuacctDir}
}

// NewV2 returns the unified v2 hierarchy mounted at dir.
func NewV2(dir string) *Hierarchy { return &Hierarchy{version: V2, cpu: dir, cpuacct: dir} }

// Detect finds the hierarchy holding the cpu controller from /proc/self/mountinfo.
func Detect() (*Hierarchy, error) { return DetectFrom("/proc/self/mountinfo") }

// DetectFrom is Detect reading the mount table at mountinfo (the format of
// /proc/self/mountinfo). A v1 cpu controller is preferred when mounted (the kernel gives
// a controller to one hierarchy only); otherwise a cgroup2 mount whose cgroup.controllers
// lists cpu.
func DetectFrom(mountinfo string) (*Hierarchy, error) {
	f, err := os.Open(mountinfo)
	if err != nil {
		return nil, fmt.Errorf("detect cgroup cpu controller: %w", err)
	}
	defer func() { _ = f.Close() }()
	var cpu, cpuacct string
	var unified []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		fields := strings.Fields(sc.Text())
		sep := slices.Index(fields, "-")
		if sep < 5 || sep+3 > len(fields) {
			continue
		}
		mountpoint, fstype := unescape(fields[4]), fields[sep+1]
		switch fstype {
		case "cgroup":
			opts := strings.Split(fields[sep+3], ",")
			if slices.Contains(opts, "cpu") && cpu == "" {
				cpu = mountpoint
			}
			if slices.Contains(opts, "cpuacct") && cpuacct == "" {
				cpuacct = mountpoint
			}
		case "cgroup2":
			unified = append(unified, mountpoint)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("detect cgroup cpu controller: read %s: %w", mountinfo, err)
	}
	switch {
	case cpu != "" && cpuacct != "":
		return NewV1(cpu, cpuacct), nil
	case cpu != "":
		return nil, fmt.Errorf("%w: %s has the v1 cpu controller at %s but no cgroup mount with cpuacct (needed for CPU usage)", ErrNoCPUController, mountinfo, cpu)
	}
	var why []string
	for _, dir := range unified {
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
		if err != nil {
			why = append(why, fmt.Sprintf("cgroup2 at %s: %v", dir, err))
			continue
		}
		if slices.Contains(strings.Fields(string(b)), "cpu") {
			return NewV2(dir), nil
		}
		why = append(why, fmt.Sprintf("cgroup2 at %s lists no cpu in cgroup.controllers (%q)", dir, strings.TrimSpace(string(b))))
	}
	if len(unified) == 0 {
		why = append(why, "no cgroup2 mount")
	}
	return nil, fmt.Errorf("%w: %s has no cgroup (v1) mount with the cpu controller; %s", ErrNoCPUController, mountinfo, strings.Join(why, "; "))
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Version returns the hierarchy's version.
func (h *Hierarchy) Version() Version { return h.version }

// String names the hierarchy and where it is mounted.
func (h *Hierarchy) String() string {
	if h.version == V2 {
		return "cgroup v2 at " + h.cpu
	}
	if h.cpu == h.cpuacct {
		return "cgroup v1 cpu,cpuacct at " + h.cpu
	}
	return fmt.Sprintf("cgroup v1 cpu at %s, cpuacct at %s", h.cpu, h.cpuacct)
}

// dirs returns the directories of path in each controller's mount (one on v2 or when cpu
// and cpuacct are mounted together).
func (h *Hierarchy) dirs(path string) []string {
	if h.cpu == h.cpuacct {
		return []string{filepath.Join(h.cpu, path)}
	}
	return []string{filepath.Join(h.cpu, path), filepath.Join(h.cpuacct, path)}
}

// Limits are a pod's CPU resources, as the kubelet turns them into cgroup settings.
type Limits struct {
	// RequestMilli is the CPU request in millicores: cpu.shares (v1) or cpu.weight (v2).
	RequestMilli int64
	// LimitMilli is the CPU limit in millicores: the CFS quota; 0 means no limit.
	LimitMilli int64
	// Period is the CFS period (default 100ms, the kubelet's).
	Period time.Duration
}

// DefaultPeriod is the kubelet's CFS period (--cpu-cfs-quota-period).
const DefaultPeriod = 100 * time.Millisecond

// The kubelet's bounds (pkg/kubelet/cm/helpers_linux.go).
const (
	minShares    = 2
	maxShares    = 262144
	minQuotaUs   = 1000
	sharesPerCPU = 1024
)

// Shares is the kubelet's MilliCPUToShares: 1024 per CPU of the request, at least 2.
func (l Limits) Shares() uint64 {
	s := l.RequestMilli * sharesPerCPU / 1000
	return uint64(min(max(s, minShares), maxShares))
}

// QuotaUs is the kubelet's MilliCPUToQuota: the limit's share of the period in
// microseconds, at least 1000; -1 without a limit.
func (l Limits) QuotaUs() int64 {
	if l.LimitMilli <= 0 {
		return -1
	}
	return max(l.LimitMilli*l.period().Microseconds()/1000, minQuotaUs)
}

func (l Limits) period() time.Duration {
	if l.Period <= 0 {
		return DefaultPeriod
	}
	return l.Period
}

// Weight is the cgroup v2 cpu.weight of the shares, as the kubelet and runc convert them.
func (l Limits) Weight() uint64 { return SharesToWeight(l.Shares()) }

// SharesToWeight converts cpu.shares to cpu.weight (runc's ConvertCPUSharesToCgroupV2Value).
func SharesToWeight(shares uint64) uint64 {
	if shares == 0 {
		return 0
	}
	return 1 + ((shares-2)*9999)/262142
}

// WeightToShares converts cpu.weight back to cpu.shares, as cAdvisor does on v2.
func WeightToShares(weight uint64) uint64 {
	if weight == 0 {
		return 0
	}
	return 2 + ((weight-1)*262142)/9999
}

// Group is one cgroup, by its path relative to the hierarchy's root ("/tidemark/r/pod").
type Group struct {
	h    *Hierarchy
	path string
}

// Open returns the group at path without creating or checking it.
func (h *Hierarchy) Open(path string) *Group {
	return &Group{h: h, path: "/" + strings.Trim(filepath.Clean("/"+path), "/")}
}

// Create creates the group at path (and its parents) in every controller's mount and sets
// its CPU shares or weight, CFS period and quota from l. An error names the directory or
// file that could not be written.
func (h *Hierarchy) Create(path string, l Limits) (*Group, error) {
	g := h.Open(path)
	if g.path == "/" {
		return nil, errors.New("create cgroup: the root cgroup is not Tidemark's")
	}
	for _, dir := range h.dirs(g.path) {
		if err := mkdirAll(dir); err != nil {
			return nil, fmt.Errorf("create cgroup %s: %w (the process runtime needs root and a writable cgroup cpu controller, %s)", dir, err, h)
		}
	}
	if err := g.set(l); err != nil {
		return nil, errors.Join(fmt.Errorf("create cgroup %s: %w", g.path, err), g.Remove())
	}
	return g, nil
}

// mkdirAll is os.MkdirAll that retries when a concurrent remover takes a parent away
// between the creation of the parent and of the child.
func mkdirAll(dir string) error {
	var err error
	for range 5 {
		if err = os.MkdirAll(dir, 0o755); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return err
}

func (g *Group) set(l Limits) error {
	period := l.period().Microseconds()
	if g.h.version == V1 {
		dir := filepath.Join(g.h.cpu, g.path)
		quota := l.QuotaUs()
		for _, w := range []struct{ file, value string }{
			{"cpu.shares", strconv.FormatUint(l.Shares(), 10)},
			{"cpu.cfs_period_us", strconv.FormatInt(period, 10)},
			{"cpu.cfs_quota_us", strconv.FormatInt(quota, 10)},
		} {
			if err := writeFile(filepath.Join(dir, w.file), w.value); err != nil {
				return err
			}
		}
		return nil
	}
	// v2: the cpu controller must be enabled in every ancestor's subtree_control.
	parts := strings.Split(strings.Trim(g.path, "/"), "/")
	dir := g.h.cpu
	for _, p := range parts {
		if err := enableCPU(dir); err != nil {
			return err
		}
		dir = filepath.Join(dir, p)
	}
	quota := "max"
	if q := l.QuotaUs(); q > 0 {
		quota = strconv.FormatInt(q, 10)
	}
	if err := writeFile(filepath.Join(dir, "cpu.weight"), strconv.FormatUint(l.Weight(), 10)); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "cpu.max"), fmt.Sprintf("%s %d", quota, period))
}

// enableCPU adds cpu to dir's cgroup.subtree_control unless it is there.
func enableCPU(dir string) error {
	file := filepath.Join(dir, "cgroup.subtree_control")
	b, err := os.ReadFile(file)
	if err == nil && slices.Contains(strings.Fields(string(b)), "cpu") {
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", file, err)
	}
	return writeFile(file, "+cpu")
}

func writeFile(file, value string) error {
	if err := os.WriteFile(file, []byte(value), 0o644); err != nil {
		return fmt.Errorf("write %q to %s: %w", value, file, err)
	}
	return nil
}

// Path returns the group's path relative to the hierarchy's root, as cAdvisor's id label
// has it ("/tidemark/r/pod").
func (g *Group) Path() string { return g.path }

// Hierarchy returns the hierarchy the group is in.
func (g *Group) Hierarchy() *Hierarchy { return g.h }

// Add moves the process pid (all its threads) into the group.
func (g *Group) Add(pid int) error {
	for _, dir := range g.h.dirs(g.path) {
		if err := writeFile(filepath.Join(dir, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
			return fmt.Errorf("add process %d to cgroup: %w", pid, err)
		}
	}
	return nil
}

// Leave moves the process pid out of the group into the hierarchy's root (where a
// process must be for its old group to be removed).
func (g *Group) Leave(pid int) error {
	return g.h.Open("/").Add(pid)
}

// Procs returns the ids of the processes in the group (not in its children).
func (g *Group) Procs() ([]int, error) {
	seen := map[int]bool{}
	var out []int
	for _, dir := range g.h.dirs(g.path) {
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if err != nil {
			return nil, fmt.Errorf("read processes of cgroup %s: %w", g.path, err)
		}
		for f := range strings.FieldsSeq(string(b)) {
			pid, err := strconv.Atoi(f)
			if err == nil && !seen[pid] {
				seen[pid] = true
				out = append(out, pid)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// Children returns the names of the group's child groups, sorted (in the cpu mount).
func (g *Group) Children() ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(g.h.cpu, g.path))
	if err != nil {
		return nil, fmt.Errorf("list cgroup %s: %w", g.path, err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// Exists reports whether the group's directory exists in some controller's mount.
func (g *Group) Exists() bool {
	for _, dir := range g.h.dirs(g.path) {
		if _, err := os.Stat(dir); err == nil {
			return true
		}
	}
	return false
}

// Remove removes the group's directories (it must have no processes and no children).
// A group already gone is not an error.
func (g *Group) Remove() error {
	var errs []error
	for _, dir := range g.h.dirs(g.path) {
		if err := syscall.Rmdir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove cgroup %s: %w", dir, err))
		}
	}
	return errors.Join(errs...)
}

// RemoveAll kills (SIGKILL) every process in the group and its descendants, waits up to
// wait for them to leave, and removes the groups, deepest first.
func (g *Group) RemoveAll(wait time.Duration) error {
	children, err := g.Children()
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range children {
		errs = append(errs, g.h.Open(g.path+"/"+c).RemoveAll(wait))
	}
	deadline := time.Now().Add(wait)
	for {
		procs, err := g.Procs()
		if err != nil || len(procs) == 0 {
			break
		}
		for _, pid := range procs {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if time.Now().After(deadline) {
			errs = append(errs, fmt.Errorf("remove cgroup %s: processes %v did not exit within %s", g.path, procs, wait))
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A killed process leaves its cgroup a moment after it is reaped.
	for {
		err := g.Remove()
		if err == nil || !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			errs = append(errs, err)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return errors.Join(errs...)
}

// Stat is a group's CPU accounting, as cAdvisor reads it.
type Stat struct {
	// Periods is cpu.stat nr_periods: CFS periods in which the group was runnable.
	Periods uint64
	// Throttled is cpu.stat nr_throttled: periods in which it was throttled.
	Throttled uint64
	// ThrottledTime is cpu.stat throttled_time (v1, ns) or throttled_usec (v2).
	ThrottledTime time.Duration
	// Usage is cpuacct.usage (v1, ns) or cpu.stat usage_usec (v2): CPU time used.
	Usage time.Duration
}

// Stat reads the group's cpu.stat and CPU usage.
func (g *Group) Stat() (Stat, error) {
	b, err := os.ReadFile(filepath.Join(g.h.cpu, g.path, "cpu.stat"))
	if err != nil {
		return Stat{}, fmt.Errorf("read cpu.stat of cgroup %s: %w", g.path, err)
	}
	s, err := ParseCPUStat(b, g.h.version)
	if err != nil {
		return Stat{}, fmt.Errorf("cgroup %s: %w", g.path, err)
	}
	if g.h.version == V1 {
		file := filepath.Join(g.h.cpuacct, g.path, "cpuacct.usage")
		u, err := readUint(file)
		if err != nil {
			return Stat{}, err
		}
		s.Usage = time.Duration(u)
	}
	return s, nil
}

// ParseCPUStat parses a cpu.stat file: v1's nr_periods, nr_throttled and throttled_time
// (nanoseconds), or v2's usage_usec, nr_periods, nr_throttled and throttled_usec. v2's
// file has no CFS keys when the controller is not enabled: that is an error, as is a
// v1 file without them.
func ParseCPUStat(b []byte, v Version) (Stat, error) {
	var s Stat
	seen := map[string]bool{}
	for line := range strings.Lines(string(b)) {
		k, val, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(val), 10, 64)
		if err != nil {
			return Stat{}, fmt.Errorf("parse cpu.stat: %s: %q is not a counter", k, val)
		}
		seen[k] = true
		switch k {
		case "nr_periods":
			s.Periods = n
		case "nr_throttled":
			s.Throttled = n
		case "throttled_time":
			if v == V1 {
				s.ThrottledTime = time.Duration(n)
			}
		case "throttled_usec":
			if v == V2 {
				s.ThrottledTime = time.Duration(n) * time.Microsecond
			}
		case "usage_usec":
			if v == V2 {
				s.Usage = time.Duration(n) * time.Microsecond
			}
		}
	}
	want := []string{"nr_periods", "nr_throttled", "throttled_time"}
	if v == V2 {
		want = []string{"usage_usec", "nr_periods", "nr_throttled", "throttled_usec"}
	}
	for _, k := range want {
		if !seen[k] {
			return Stat{}, fmt.Errorf("parse cpu.stat: no %s (is the cpu controller enabled for this cgroup?)", k)
		}
	}
	return s, nil
}

// Config is a group's CPU settings, as cAdvisor's container_spec_cpu_* report them.
type Config struct {
	// Shares is cpu.shares (v1), or cpu.weight converted back to shares (v2).
	Shares uint64
	// QuotaUs is the CFS quota in microseconds; -1 without a limit.
	QuotaUs int64
	// PeriodUs is the CFS period in microseconds.
	PeriodUs uint64
}

// Config reads the group's CPU settings.
func (g *Group) Config() (Config, error) {
	dir := filepath.Join(g.h.cpu, g.path)
	if g.h.version == V2 {
		w, err := readUint(filepath.Join(dir, "cpu.weight"))
		if err != nil {
			return Config{}, err
		}
		b, err := os.ReadFile(filepath.Join(dir, "cpu.max"))
		if err != nil {
			return Config{}, fmt.Errorf("read cpu.max of cgroup %s: %w", g.path, err)
		}
		c, err := ParseCPUMax(b)
		if err != nil {
			return Config{}, fmt.Errorf("cgroup %s: %w", g.path, err)
		}
		c.Shares = WeightToShares(w)
		return c, nil
	}
	var c Config
	var err error
	if c.Shares, err = readUint(filepath.Join(dir, "cpu.shares")); err != nil {
		return Config{}, err
	}
	if c.PeriodUs, err = readUint(filepath.Join(dir, "cpu.cfs_period_us")); err != nil {
		return Config{}, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "cpu.cfs_quota_us"))
	if err != nil {
		return Config{}, fmt.Errorf("read cpu.cfs_quota_us of cgroup %s: %w", g.path, err)
	}
	if c.QuotaUs, err = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err != nil {
		return Config{}, fmt.Errorf("parse cpu.cfs_quota_us of cgroup %s: %w", g.path, err)
	}
	return c, nil
}

// ParseCPUMax parses v2's cpu.max ("max 100000" or "50000 100000").
func ParseCPUMax(b []byte) (Config, error) {
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return Config{}, fmt.Errorf("parse cpu.max %q: expected QUOTA PERIOD", strings.TrimSpace(string(b)))
	}
	c := Config{QuotaUs: -1}
	if f[0] != "max" {
		q, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || q <= 0 {
			return Config{}, fmt.Errorf("parse cpu.max %q: quota %q is neither max nor a positive number", strings.TrimSpace(string(b)), f[0])
		}
		c.QuotaUs = q
	}
	p, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil || p == 0 {
		return Config{}, fmt.Errorf("parse cpu.max %q: period %q is not a positive number", strings.TrimSpace(string(b)), f[1])
	}
	c.PeriodUs = p
	return c, nil
}

func readUint(file string) (uint64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", file, err)
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parse %s: %w", file, err)
	}
	return n, nil
}
