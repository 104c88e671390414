package redis_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// TestBadOptions: a Client's bad URL or options are a TypeError in the init context
// naming the option at fault.
func TestBadOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ arg, want string }{
		{`{ socket: { host: 'h', port: 'x' } }`, "redis.Client: socket.port: expected a number"},
		{`{ socket: { host: 'h' }, passwd: 'x' }`, "redis.Client: passwd: unknown option"},
		{`{ socket: { port: 1 } }`, "redis.Client: socket.host: expected a host name or address"},
		{`{ socket: { host: 'h', tls: { cert: 'x' } } }`, "redis.Client: socket.tls: cert and key: expected both (mutual TLS) or neither"},
		{`{ socket: { host: 'h', tls: { ca: ['not pem'] } } }`, "redis.Client: socket.tls: ca[0]: expected a PEM certificate"},
		{`{ cluster: { nodes: [] } }`, "redis.Client: cluster.nodes: expected URLs or objects with a socket"},
		{`{}`, "redis.Client: socket: expected {host, port} (or cluster.nodes)"},
		{`'http://x'`, `redis.Client: url "http://x": redis: invalid URL scheme: http`},
		{`42`, "redis.Client: expected a redis[s]:// URL or an options object"},
	} {
		dir := modulestest.WriteFiles(t, map[string]string{"script.js": "import redis from 'k6/x/redis';\nnew redis.Client(" + tc.arg + ");\nexport default function () {}\n"})
		_, err := modulestest.Load(t, filepath.Join(dir, "script.js"), nil)
		require.ErrorContains(t, err, "TypeError: "+tc.want, tc.arg)
	}
}
