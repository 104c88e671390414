package regress

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// groupCases reads testdata/groups.tsv: testids and the group Group gives each (dates
// and times of every recognised shape; no suffix; not dates: invalid month or day, too
// few digits, not at the end). The dashboards' group variable is tested on the same
// file.
func groupCases(t *testing.T) [][2]string {
	t.Helper()
	f, err := os.Open("testdata/groups.tsv")
	require.NoError(t, err)
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			id, group, ok := strings.Cut(l, "\t")
			require.True(t, ok, l)
			out = append(out, [2]string{id, group})
		}
	}
	require.NoError(t, sc.Err())
	return out
}

func TestGroup(t *testing.T) {
	t.Parallel()
	cases := groupCases(t)
	require.Greater(t, len(cases), 20)
	for _, tc := range cases {
		require.Equal(t, tc[1], Group(tc[0]), tc[0])
	}
}
