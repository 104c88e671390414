package scenario

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
)

// BytesPerVU is the memory one VU is assumed to hold when a scenario's VU counts are
// checked against the machine. docs/benchmarks.md measured 20.2 KiB per VU at 10,000
// constant VUs (20.0 to 20.5 KiB across issue 11's runs); 24 KiB leaves room for
// what that flow did not hold (longer URLs and bodies, headers, TLS state).
const BytesPerVU = 24 << 10

// MaxIterationsPerSecond is the highest rate of iteration starts a scenario may ask
// for. BenchmarkClosedLoop measured 171 ns of executor overhead per no-op iteration
// (about 5.8 million a second on one core) and one dispatcher goroutine starts every
// arrival of an arrival-rate scenario, so no machine starts 10 million iterations a
// second: a rate above it would only be dropped, and an iteration count above it
// times the scenario's duration could never be run.
const MaxIterationsPerSecond = 10_000_000

// Limits bounds what a scenario may ask of the machine that runs it, so that a
// runaway value (vus: 1e12) is a configuration error at load time instead of a run
// that exhausts the machine's memory.
type Limits struct {
	// MemoryAvailable is the memory, in bytes, that VUs may take; 0 means unknown
	// and disables the memory bound (rates and iteration counts are still bound).
	MemoryAvailable uint64
}

// The files MachineLimits reads, relative to the root of the file system.
const (
	procMeminfo = "proc/meminfo"
	// cgroup v2: the limit ("max" for none) and the usage of the process's cgroup, which
	// a container sees at the root of its cgroup namespace.
	cgroup2Max     = "sys/fs/cgroup/memory.max"
	cgroup2Current = "sys/fs/cgroup/memory.current"
	// cgroup v1: the same under the memory controller's own hierarchy.
	cgroup1Limit = "sys/fs/cgroup/memory/memory.limit_in_bytes"
	cgroup1Usage = "sys/fs/cgroup/memory/memory.usage_in_bytes"
)

// cgroupNoLimit is where a cgroup memory limit stops being one: cgroup v1 reports
// "no limit" as the largest page count times the page size, rounded down to it
// (9223372036854771712 with 4 KiB pages, 9223372036854710272 with 64 KiB pages), and
// no machine has 4 EiB.
const cgroupNoLimit = 1 << 62

// MachineLimits returns the limits of this machine: MemAvailable from
// /proc/meminfo, or MemTotal when the kernel does not report MemAvailable, lowered to
// what the cgroup's memory limit leaves. Where /proc/meminfo cannot be read the
// memory bound is off.
func MachineLimits() Limits { return machineLimits(os.DirFS("/")) }

// machineLimits is MachineLimits over the file system root.
func machineLimits(root fs.FS) Limits {
	data, err := fs.ReadFile(root, procMeminfo)
	if err != nil {
		return Limits{}
	}
	// In a container (a k6-operator runner pod) /proc/meminfo is the node's; the pod's
	// cgroup memory limit is what the run can actually use. A cgroup v2 file decides
	// when there is one (a v2 node has no v1 hierarchy, and a hybrid one keeps memory
	// on v1); else cgroup v1's.
	limitFile, usageFile := cgroup2Max, cgroup2Current
	if _, err := fs.Stat(root, cgroup2Max); err != nil {
		limitFile, usageFile = cgroup1Limit, cgroup1Usage
	}
	limit, _ := fs.ReadFile(root, limitFile)
	usage, _ := fs.ReadFile(root, usageFile)
	return Limits{MemoryAvailable: cgroupBound(memAvailable(data), limit, usage)}
}

// cgroupBound lowers avail to what a cgroup memory limit leaves (cgroup v2's
// memory.max minus memory.current, cgroup v1's memory.limit_in_bytes minus
// memory.usage_in_bytes); a missing, unreadable or "max" limit, or one of
// cgroupNoLimit or more, leaves avail as it is.
func cgroupBound(avail uint64, limitFile, usageFile []byte) uint64 {
	limit, err := strconv.ParseUint(strings.TrimSpace(string(limitFile)), 10, 64)
	if err != nil || limit >= cgroupNoLimit {
		return avail
	}
	used, _ := strconv.ParseUint(strings.TrimSpace(string(usageFile)), 10, 64)
	left := uint64(1) // over the limit already: nothing left, and still known (0 is unknown)
	if limit > used+1 {
		left = limit - used
	}
	if avail == 0 || left < avail {
		return left
	}
	return avail
}

// memAvailable returns MemAvailable (else MemTotal) of a /proc/meminfo document, in
// bytes; 0 when neither is there.
func memAvailable(meminfo []byte) uint64 {
	var total uint64
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		var key string
		var kb uint64
		if _, err := fmt.Sscanf(sc.Text(), "%s %d", &key, &kb); err != nil {
			continue
		}
		switch key {
		case "MemAvailable:":
			return kb << 10
		case "MemTotal:":
			total = kb << 10
		}
	}
	return total
}

// Load is the package's Load bounded by l.
func (l Limits) Load(path string, env map[string]string) (*Test, error) {
	return load(path, env, l)
}

// Parse is the package's Parse bounded by l.
func (l Limits) Parse(name string, data []byte, env ...map[string]string) (*Test, error) {
	return parse(name, data, l, env...)
}

// maxVUs returns how many VUs the memory holds, and false when there is no bound.
func (l Limits) maxVUs() (uint64, bool) {
	if l.MemoryAvailable == 0 {
		return 0, false
	}
	return l.MemoryAvailable / BytesPerVU, true
}

// CheckVUs reports, as an error, n more VUs than the memory holds (a REST API PATCH
// that raises vus-max is checked with the VUs it adds); nil when they fit or there is
// no bound.
func (l Limits) CheckVUs(n int64) error {
	if msg := l.checkVUs(float64(n)); msg != "" {
		return errors.New(msg)
	}
	return nil
}

// checkVUs reports a VU count the machine cannot hold, as a message for field; ""
// when it fits.
func (l Limits) checkVUs(n float64) string {
	most, ok := l.maxVUs()
	if !ok || n <= float64(most) {
		return ""
	}
	return fmt.Sprintf("%s VUs need about %s of memory (%s per VU); this machine has %s available, enough for %d VUs; expected at most %d",
		formatCount(n), formatBytes(n*BytesPerVU), formatBytes(BytesPerVU), formatBytes(float64(l.MemoryAvailable)), most, most)
}

// checkRate reports a rate of iterations per unit above MaxIterationsPerSecond; ""
// when it is within it.
func checkRate(rate float64, unit time.Duration) string {
	// Divide or multiply by the exact ratio, so that 1 per 1ns is 1e9 a second.
	perSecond := rate / unit.Seconds()
	if unit < time.Second {
		perSecond = rate * (float64(time.Second) / float64(unit))
	}
	if perSecond <= MaxIterationsPerSecond {
		return ""
	}
	return fmt.Sprintf("%s iterations per %s is %s a second, more than one machine can start; expected at most %s a second",
		formatCount(rate), unit, formatCount(perSecond), formatCount(MaxIterationsPerSecond))
}

// checkIterations reports an iteration count that cannot run within d at
// MaxIterationsPerSecond, after prefix; "" when it can.
func checkIterations(n float64, d time.Duration, prefix string) string {
	most := MaxIterationsPerSecond * d.Seconds()
	if n <= most {
		return ""
	}
	return fmt.Sprintf("%s%s iterations cannot run within maxDuration %s (at most %s iterations start a second); expected at most %s",
		prefix, formatCount(n), d, formatCount(MaxIterationsPerSecond), formatCount(most))
}

// formatCount writes n as a whole number when it is one of reasonable size, else in
// exponent form.
func formatCount(n float64) string {
	if n == float64(int64(n)) && n < 1e15 {
		return strconv.FormatInt(int64(n), 10)
	}
	return strconv.FormatFloat(n, 'g', 4, 64)
}

// formatBytes writes b in binary units: "24 KiB", "22 PiB", "1.5 GiB".
func formatBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if b < 10 && b != float64(int64(b)) {
		return strconv.FormatFloat(b, 'f', 1, 64) + " " + units[i]
	}
	return strconv.FormatFloat(b, 'f', 0, 64) + " " + units[i]
}
