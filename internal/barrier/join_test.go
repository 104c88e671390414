package barrier

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestQueryURLOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ write, want, wantErr string }{
		{"http://prometheus:9090/api/v1/write", "http://prometheus:9090", ""},
		{"http://vm:8428/api/v1/write", "http://vm:8428", ""},
		{"http://vminsert:8480/insert/0/prometheus/api/v1/write", "http://vminsert:8480/select/0/prometheus", ""},
		{"https://mimir.example/api/v1/push", "https://mimir.example/prometheus", ""},
		{"https://user:secret@prom.example/sub/api/v1/write?x=1", "https://user:secret@prom.example/sub", ""},
		{"https://aps-workspaces.example/workspaces/ws-1/api/v1/remote_write", "https://aps-workspaces.example/workspaces/ws-1", ""},
		{"http://thanos-receive:19291/receive", "",
			"remote-write URL http://thanos-receive:19291/receive: cannot tell where its query API is; set --barrier.prometheus.url"},
	} {
		u, err := url.Parse(tc.write)
		require.NoError(t, err)
		got, err := QueryURLOf(u)
		if tc.wantErr != "" {
			require.EqualError(t, err, tc.wantErr)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
}
