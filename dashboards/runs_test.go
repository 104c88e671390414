package dashboards

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/regress"
)

// TestGroupVariableAgreesWithRegress runs the Runs over time dashboard's group variable
// regex (as Go's RE2, which accepts the JavaScript pattern) and its testid selector on
// every testid regress.Group is tested on: the variable offers regress.Group's group,
// and the selector of that group selects the testid.
func TestGroupVariableAgreesWithRegress(t *testing.T) {
	t.Parallel()
	f, err := os.Open("../internal/regress/testdata/groups.tsv")
	require.NoError(t, err)
	defer f.Close()
	variable := regexp.MustCompile(strings.TrimSuffix(strings.TrimPrefix(groupRegex, "/"), "/"))
	sel := regexp.MustCompile(`^testid=~"(.*)"$`).FindStringSubmatch(runsSelector)
	require.NotNil(t, sel, runsSelector)
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		id, group, ok := strings.Cut(l, "\t")
		require.True(t, ok, l)
		require.Equal(t, group, regress.Group(id), "testdata agrees with regress.Group")
		m := variable.FindStringSubmatch(id)
		require.NotNil(t, m, id)
		require.Equal(t, group, m[1], "group variable of %s", id)
		// PromQL anchors its regex; ${group:regex} is the group escaped.
		re := regexp.MustCompile("^(?:" + strings.ReplaceAll(sel[1], "${group:regex}", regexp.QuoteMeta(group)) + ")$")
		require.True(t, re.MatchString(id), "the selector of group %s selects %s", group, id)
		n++
	}
	require.NoError(t, sc.Err())
	require.Greater(t, n, 20)

	// The selector of a group does not take another group's runs.
	re := regexp.MustCompile("^(?:" + strings.ReplaceAll(sel[1], "${group:regex}", "spike") + ")$")
	for _, id := range []string{"spike-50-20260528", "spike-20260528-eu", "spike-20261328"} {
		require.False(t, re.MatchString(id), id)
	}
	require.True(t, re.MatchString("spike-20260528"))
}
