package cadvisor

import (
	"testing"

	"github.com/opencontainers/cgroups"
	"github.com/stretchr/testify/require"
)

func TestCheckV1(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mounts  []cgroups.Mount
		wantErr string
	}{
		{name: "separate", mounts: []cgroups.Mount{
			{Mountpoint: "/sys/fs/cgroup/cpu", Subsystems: []string{"cpu"}},
			{Mountpoint: "/sys/fs/cgroup/cpuacct", Subsystems: []string{"cpuacct"}},
		}},
		{name: "together", mounts: []cgroups.Mount{
			{Mountpoint: "/sys/fs/cgroup/cpu,cpuacct", Subsystems: []string{"cpu", "cpuacct"}},
		}},
		{name: "none", wantErr: "no cgroup filesystem is mounted (no cgroup or cgroup2 line in /proc/self/mountinfo)"},
		{name: "no cpuacct", mounts: []cgroups.Mount{
			{Mountpoint: "/sys/fs/cgroup/cpu", Subsystems: []string{"cpu"}},
			{Mountpoint: "/sys/fs/cgroup/memory", Subsystems: []string{"memory"}},
		}, wantErr: "cgroup v1 controller cpuacct is not mounted (/proc/self/mountinfo has no cgroup mount with it)"},
		{name: "no cpu", mounts: []cgroups.Mount{
			{Mountpoint: "/sys/fs/cgroup/systemd", Subsystems: []string{"name=systemd"}},
		}, wantErr: "cgroup v1 controller cpu is not mounted (/proc/self/mountinfo has no cgroup mount with it)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := checkV1(tc.mounts)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.wantErr)
		})
	}
}

func TestCheckV2(t *testing.T) {
	require.NoError(t, checkV2("cpuset cpu io memory pids\n"))
	require.EqualError(t, checkV2("cpuset io memory\n"), `cgroup v2 controller cpu is not enabled (/sys/fs/cgroup/cgroup.controllers lists "cpuset io memory")`)
	require.EqualError(t, checkV2("cpuset"), `cgroup v2 controller cpu is not enabled (/sys/fs/cgroup/cgroup.controllers lists "cpuset")`)
}
