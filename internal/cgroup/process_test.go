package cgroup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeProc writes a /proc/<pid> directory with the given cgroup and mountinfo files, the
// mount points replaced by directories under root, and the files of files (relative to
// root) with their contents.
func fakeProc(t *testing.T, cgroup, mountinfo string, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	proc := filepath.Join(root, "proc")
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(proc, 0o755); err != nil {
		t.Fatal(err)
	}
	mountinfo = strings.ReplaceAll(mountinfo, "ROOT", root)
	for name, body := range map[string]string{"cgroup": cgroup, "mountinfo": mountinfo} {
		if err := os.WriteFile(filepath.Join(proc, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return proc
}

func TestProcessCPULimit(t *testing.T) {
	const v1Mounts = "32 31 0:29 / ROOT/cpu rw,relatime - cgroup cgroup rw,cpu\n" +
		"33 31 0:30 / ROOT/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n" +
		"41 31 0:38 / ROOT/unified rw,relatime - cgroup2 cgroup2 rw\n"
	for _, tc := range []struct {
		name      string
		cgroup    string
		mountinfo string
		files     map[string]string
		want      float64
		ok        bool
		err       string
	}{
		{
			name:      "v1: the process's own group's quota, below its parent's",
			cgroup:    "2:cpuacct:/\n1:cpu:/runner/pod\n0::/\n",
			mountinfo: v1Mounts,
			files: map[string]string{
				"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n",
				"cpu/runner/cpu.cfs_quota_us": "100000\n", "cpu/runner/cpu.cfs_period_us": "100000\n",
				"cpu/runner/pod/cpu.cfs_quota_us": "20000\n", "cpu/runner/pod/cpu.cfs_period_us": "100000\n",
			},
			want: 0.2, ok: true,
		},
		{
			name:      "v1: a parent's quota lower than the group's own",
			cgroup:    "1:cpu,cpuacct:/runner/pod\n",
			mountinfo: "32 31 0:29 / ROOT/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n",
			files: map[string]string{
				"cpu,cpuacct/runner/cpu.cfs_quota_us": "50000\n", "cpu,cpuacct/runner/cpu.cfs_period_us": "100000\n",
				"cpu,cpuacct/runner/pod/cpu.cfs_quota_us": "-1\n", "cpu,cpuacct/runner/pod/cpu.cfs_period_us": "100000\n",
			},
			want: 0.5, ok: true,
		},
		{
			name:      "v1 in a container: the mount's root is the container's own cgroup",
			cgroup:    "1:cpu,cpuacct:/kubepods/burstable/pod1/abc\n",
			mountinfo: "32 31 0:29 /kubepods/burstable/pod1/abc ROOT/sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct\n",
			files: map[string]string{
				"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "150000\n", "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
			},
			want: 1.5, ok: true,
		},
		{
			name:      "v1 without a quota anywhere",
			cgroup:    "1:cpu:/a\n",
			mountinfo: v1Mounts,
			files:     map[string]string{"cpu/a/cpu.cfs_quota_us": "-1\n", "cpu/a/cpu.cfs_period_us": "100000\n"},
			ok:        false,
		},
		{
			name:      "v2 with a cgroup namespace: the mount point is the group",
			cgroup:    "0::/\n",
			mountinfo: "30 23 0:26 / ROOT/sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n",
			files:     map[string]string{"sys/fs/cgroup/cpu.max": "25000 100000\n"},
			want:      0.25, ok: true,
		},
		{
			name:      "v2: the group's and its parent's cpu.max, the root without one",
			cgroup:    "0::/kubepods.slice/pod.slice/cri.scope\n",
			mountinfo: "30 23 0:26 / ROOT/cg rw - cgroup2 cgroup2 rw\n",
			files: map[string]string{
				"cg/kubepods.slice/cpu.max":                     "max 100000\n",
				"cg/kubepods.slice/pod.slice/cpu.max":           "300000 100000\n",
				"cg/kubepods.slice/pod.slice/cri.scope/cpu.max": "200000 100000\n",
			},
			want: 2, ok: true,
		},
		{
			name:      "v2: max everywhere",
			cgroup:    "0::/a\n",
			mountinfo: "30 23 0:26 / ROOT/cg rw - cgroup2 cgroup2 rw\n",
			files:     map[string]string{"cg/a/cpu.max": "max 100000\n"},
			ok:        false,
		},
		{
			name:      "no cgroup mount: not limited",
			cgroup:    "0::/\n",
			mountinfo: "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n",
			ok:        false,
		},
		{
			name:      "a cpu.max that does not parse",
			cgroup:    "0::/a\n",
			mountinfo: "30 23 0:26 / ROOT/cg rw - cgroup2 cgroup2 rw\n",
			files:     map[string]string{"cg/a/cpu.max": "lots\n"},
			err:       "expected QUOTA PERIOD",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proc := fakeProc(t, tc.cgroup, tc.mountinfo, tc.files)
			got, ok, err := ProcessCPULimit(proc)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.ok || got != tc.want {
				t.Errorf("ProcessCPULimit = %g, %v; want %g, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestProcessCPULimitWithoutProc(t *testing.T) {
	if _, _, err := ProcessCPULimit(filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "read the process's cgroup") {
		t.Errorf("error %v, want one naming the process's cgroup file", err)
	}
}
