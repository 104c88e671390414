package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"
)

// machine23GiB is a machine with 23 GiB available: 1,004,885 VUs at 24 KiB.
var machine23GiB = Limits{MemoryAvailable: 23 << 30}

// TestLoadMachineLimits checks that a runaway VU count, rate or iteration count is a
// configuration error at load time, and that it is found fast (vus: 1e12 is
// refused without allocating anything).
func TestLoadMachineLimits(t *testing.T) {
	t.Parallel()
	const vusMsg = "1000000000000 VUs need about 22 PiB of memory (24 KiB per VU); this machine has 23 GiB available, enough for 1004885 VUs; expected at most 1004885"
	const twoM = "2000000 VUs need about 46 GiB of memory (24 KiB per VU); this machine has 23 GiB available, enough for 1004885 VUs; expected at most 1004885"
	for _, tc := range []struct {
		name    string
		in      string
		limits  Limits
		wantErr string
	}{
		{name: "vus shortcut", in: "vus: 1e12\nduration: 1s", limits: machine23GiB, wantErr: "t.yaml:1: vus: " + vusMsg},
		{name: "constant-vus", in: "scenarios: {s: {executor: constant-vus, vus: 2000000, duration: 1s}}", limits: machine23GiB, wantErr: "t.yaml:1: scenarios.s.vus: " + twoM},
		{name: "per-vu-iterations", in: "scenarios: {s: {executor: per-vu-iterations, vus: 2000000}}", limits: machine23GiB, wantErr: "t.yaml:1: scenarios.s.vus: " + twoM},
		{name: "startVUs", in: "scenarios: {s: {executor: ramping-vus, startVUs: 2000000, stages: [{duration: 1s, target: 1}]}}", limits: machine23GiB, wantErr: "t.yaml:1: scenarios.s.startVUs: " + twoM},
		{
			name: "ramping-vus stage target", limits: machine23GiB,
			in:      "scenarios: {s: {executor: ramping-vus, stages: [{duration: 1s, target: 10}, {duration: 1s, target: 2000000}]}}",
			wantErr: "t.yaml:1: scenarios.s.stages[1].target: " + twoM,
		},
		{
			name: "stages shortcut", limits: machine23GiB,
			in:      "stages: [{duration: 1s, target: 1e12}]",
			wantErr: "t.yaml:1: stages[0].target: " + vusMsg,
		},
		{
			name: "preAllocatedVUs", limits: machine23GiB,
			in:      "scenarios: {s: {executor: constant-arrival-rate, rate: 1, duration: 1s, preAllocatedVUs: 2000000}}",
			wantErr: "t.yaml:1: scenarios.s.preAllocatedVUs: " + twoM,
		},
		{
			name: "maxVUs", limits: machine23GiB,
			in:      "scenarios: {s: {executor: ramping-arrival-rate, preAllocatedVUs: 1, maxVUs: 2000000, stages: [{duration: 1s, target: 1}]}}",
			wantErr: "t.yaml:1: scenarios.s.maxVUs: " + twoM,
		},
		{
			name: "bare vus is as many iterations", in: "vus: 1e12", limits: machine23GiB,
			wantErr: "t.yaml:1: vus: " + vusMsg + "\nt.yaml:1: vus: 1000000000000 iterations cannot run within maxDuration 10m0s (at most 10000000 iterations start a second); expected at most 6000000000",
		},
		{name: "a million VUs fit", in: "vus: 1000000\nduration: 1s", limits: machine23GiB},
		{name: "unknown memory: no bound", in: "vus: 1e12\nduration: 1s"},
		{
			name:    "constant rate",
			in:      "scenarios: {s: {executor: constant-arrival-rate, rate: 1000000000, duration: 1s, preAllocatedVUs: 1}}",
			wantErr: "t.yaml:1: scenarios.s.rate: 1000000000 iterations per 1s is 1000000000 a second, more than one machine can start; expected at most 10000000 a second",
		},
		{
			name:    "rate by a tiny timeUnit",
			in:      "scenarios: {s: {executor: constant-arrival-rate, rate: 1, timeUnit: 1ns, duration: 1s, preAllocatedVUs: 1}}",
			wantErr: "t.yaml:1: scenarios.s.rate: 1 iterations per 1ns is 1000000000 a second, more than one machine can start; expected at most 10000000 a second",
		},
		{name: "highest rate", in: "scenarios: {s: {executor: constant-arrival-rate, rate: 10000000, duration: 1s, preAllocatedVUs: 1}}"},
		{
			name:    "startRate",
			in:      "scenarios: {s: {executor: ramping-arrival-rate, startRate: 6e11, timeUnit: 1m, preAllocatedVUs: 1, stages: [{duration: 1s, target: 1}]}}",
			wantErr: "t.yaml:1: scenarios.s.startRate: 600000000000 iterations per 1m0s is 10000000000 a second, more than one machine can start; expected at most 10000000 a second",
		},
		{
			name:    "ramping rate target",
			in:      "scenarios: {s: {executor: ramping-arrival-rate, preAllocatedVUs: 1, stages: [{duration: 1s, target: 1}, {duration: 1s, target: 1e300}]}}",
			wantErr: "t.yaml:1: scenarios.s.stages[1].target: 1e+300 iterations per 1s is 1e+300 a second, more than one machine can start; expected at most 10000000 a second",
		},
		{
			name:    "shared iterations",
			in:      "iterations: 1e15\nduration: 1m",
			wantErr: "t.yaml:1: iterations: 1e+15 iterations cannot run within maxDuration 1m0s (at most 10000000 iterations start a second); expected at most 600000000",
		},
		{
			name:    "per-vu iterations",
			in:      "scenarios: {s: {executor: per-vu-iterations, vus: 1000, iterations: 1000000, maxDuration: 10s}}",
			wantErr: "t.yaml:1: scenarios.s.iterations: 1000 VUs of 1000000 iterations: 1000000000 iterations cannot run within maxDuration 10s (at most 10000000 iterations start a second); expected at most 100000000",
		},
		{
			name:    "stages longer than a time.Duration",
			in:      "stages: [{duration: 2000000h, target: 1}, {duration: 1000000h, target: 1}]",
			wantErr: "t.yaml:1: stages[1].duration: the stages last more than 2562047h0m0s (about 292 years) in total; expected less",
		},
		{name: "shared iterations that fit", in: "iterations: 6e9\nvus: 10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			_, err := tc.limits.Parse("t.yaml", []byte(tc.in+flow))
			// Generous: the check is arithmetic, nothing is allocated per VU.
			require.Less(t, time.Since(start), 5*time.Second)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.wantErr)
		})
	}
}

func TestMemAvailable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   string
		want uint64
	}{
		{name: "MemAvailable", in: "MemTotal:       24684084 kB\nMemFree:        19475496 kB\nMemAvailable:   24211216 kB\n", want: 24211216 << 10},
		{name: "old kernel: MemTotal", in: "MemTotal:       1024 kB\nMemFree:        512 kB\n", want: 1 << 20},
		{name: "neither", in: "garbage\n", want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, memAvailable([]byte(tc.in)))
		})
	}
}

func TestFormatBytes(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]string{0: "0 B", 1023: "1023 B", 24 << 10: "24 KiB", 1.5 * (1 << 30): "1.5 GiB", 1e12 * (24 << 10): "22 PiB"} {
		require.Equal(t, want, formatBytes(in))
	}
}

func TestCgroupBound(t *testing.T) {
	t.Parallel()
	const gib = 1 << 30
	for _, tc := range []struct {
		name, max, current string
		avail, want        uint64
	}{
		{name: "no cgroup file", avail: 23 * gib, want: 23 * gib},
		{name: "unlimited", max: "max\n", current: "12345\n", avail: 23 * gib, want: 23 * gib},
		{name: "pod limit below the node", max: "4294967296\n", current: "1073741824\n", avail: 23 * gib, want: 3 * gib},
		{name: "limit above the node", max: "107374182400\n", current: "0\n", avail: 23 * gib, want: 23 * gib},
		{name: "over the limit already: known, nothing left", max: "1000\n", current: "2000\n", avail: 23 * gib, want: 1},
		{name: "no meminfo, a limit", max: "4294967296\n", current: "", avail: 0, want: 4 * gib},
		{name: "cgroup v1 no limit, 4 KiB pages", max: "9223372036854771712\n", current: "1073741824\n", avail: 23 * gib, want: 23 * gib},
		{name: "cgroup v1 no limit, 64 KiB pages", max: "9223372036854710272\n", current: "1073741824\n", avail: 23 * gib, want: 23 * gib},
		{name: "cgroup v1 no limit, no meminfo: still unknown", max: "9223372036854771712\n", current: "0\n", avail: 0, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, cgroupBound(tc.avail, []byte(tc.max), []byte(tc.current)))
		})
	}
}

// TestMachineLimitsReadsCgroups reads the machine's files from a fake root: the node's
// MemAvailable, lowered by a cgroup v2 limit when the v2 files are there, else by a
// cgroup v1 limit.
func TestMachineLimitsReadsCgroups(t *testing.T) {
	t.Parallel()
	const gib = 1 << 30
	meminfo := &fstest.MapFile{Data: []byte("MemTotal:       25165824 kB\nMemAvailable:   24117248 kB\n")} // 23 GiB available
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, tc := range []struct {
		name string
		root fstest.MapFS
		want uint64
	}{
		{name: "no meminfo: no bound", root: fstest.MapFS{cgroup1Limit: file("4294967296\n")}, want: 0},
		{name: "no cgroup files", root: fstest.MapFS{procMeminfo: meminfo}, want: 23 * gib},
		{
			name: "cgroup v2 limit",
			root: fstest.MapFS{procMeminfo: meminfo, cgroup2Max: file("4294967296\n"), cgroup2Current: file("1073741824\n")},
			want: 3 * gib,
		},
		{
			name: "cgroup v1 limit",
			root: fstest.MapFS{procMeminfo: meminfo, cgroup1Limit: file("4294967296\n"), cgroup1Usage: file("1073741824\n")},
			want: 3 * gib,
		},
		{
			name: "cgroup v1 unlimited",
			root: fstest.MapFS{procMeminfo: meminfo, cgroup1Limit: file("9223372036854771712\n"), cgroup1Usage: file("1073741824\n")},
			want: 23 * gib,
		},
		{
			name: "cgroup v2 before v1",
			root: fstest.MapFS{
				procMeminfo: meminfo, cgroup2Max: file("2147483648\n"), cgroup2Current: file("1073741824\n"),
				cgroup1Limit: file("4294967296\n"), cgroup1Usage: file("0\n"),
			},
			want: 1 * gib,
		},
		{
			name: "cgroup v2 unlimited before a v1 limit",
			root: fstest.MapFS{procMeminfo: meminfo, cgroup2Max: file("max\n"), cgroup2Current: file("1073741824\n"), cgroup1Limit: file("4294967296\n")},
			want: 23 * gib,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, Limits{MemoryAvailable: tc.want}, machineLimits(tc.root))
		})
	}
}

// TestLoadTooLarge is issue 24's 31 MB scenario of stages, which was parsed whole (9.5 GB,
// 132 s) before its values were checked: a file over MaxFileSize is refused unread, by
// Load and LoadK6, with the file named.
func TestLoadTooLarge(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("stages:\n")
	for b.Len() <= MaxFileSize {
		b.WriteString("  - {duration: 1s, target: 10}\n")
	}
	p := filepath.Join(t.TempDir(), "huge.yaml")
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	_, err := Load(p, nil)
	require.ErrorContains(t, err, "huge.yaml")
	require.ErrorContains(t, err, "cannot read file: larger than 4194304 bytes, the most a scenario file may be")
	_, _, err = LoadK6(p, nil, nil)
	require.ErrorContains(t, err, "larger than 4194304 bytes")
}
