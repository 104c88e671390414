package buildversion

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRead: without -ldflags the version comes from the module version or, for a
// (devel) build, is "devel" with the VCS revision; it is never empty.
func TestRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		bi           *debug.BuildInfo
		version, rev string
	}{
		{"go install", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.1"}}, "v0.9.1", ""},
		{"go build in a checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}}}, "devel", "0123456789"},
		{"no build info", nil, "devel", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			info := Read(func() (*debug.BuildInfo, bool) { return tc.bi, tc.bi != nil })
			require.Equal(t, tc.version, info.Version)
			require.Equal(t, tc.rev, info.Commit)
			require.Regexp(t, `^tidemark `+tc.version+` \((commit/[0-9a-f]+, )?go\S+, \w+/\w+\)$`, info.String())
			require.Contains(t, info.JSON(), `"version":"`+tc.version+`"`)
		})
	}
}
