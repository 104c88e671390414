package redis_test

import (
	"context"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
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

// TestExperimentalName: k6 v1's k6/experimental/redis is the same Client, with one
// warning per run that k6 v2 removed it; a command to a port nothing listens on
// rejects with the connection's error.
func TestExperimentalName(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close()) // a closed loopback port: connections are refused
	log := &modulestest.LogBuffer{}
	h := modulestest.Start(t, map[string]string{"script.js": `
import redis from 'k6/experimental/redis';
import { check } from 'k6';
const c = new redis.Client({ socket: { host: '127.0.0.1', port: ` + strings.Split(addr, ":")[1] + `, dialTimeout: 1 } });
export default async function () {
  const err = await c.get('k').then(() => 'resolved', (e) => String(e));
  check(err, { refused: (e) => e.includes('redis.Client.get: dial tcp ` + addr + `') && e.includes('connection refused') });
}
`}, modulestest.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	for _, vu := range h.VUs(t, 2) {
		require.True(t, vu.Iterate(context.Background()), log.String())
	}
	require.Equal(t, map[string]bool{"refused": true}, h.Checks(), log.String())
	require.Equal(t, 1, strings.Count(log.String(), "k6/experimental/redis was removed in k6 v2; import k6/x/redis"), log.String())
}
