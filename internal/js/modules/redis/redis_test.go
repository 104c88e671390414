//go:build integration

package redis_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// results returns the object the script logged (into b) as JSON with console.log.
func results(t *testing.T, b *modulestest.LogBuffer) map[string]any {
	t.Helper()
	for line := range strings.SplitSeq(b.String(), "\n") {
		var rec struct{ Msg string }
		if json.Unmarshal([]byte(line), &rec) == nil && strings.HasPrefix(rec.Msg, "{") {
			var out map[string]any
			require.NoError(t, json.Unmarshal([]byte(rec.Msg), &out))
			return out
		}
	}
	require.FailNow(t, "the script logged no results", b.String())
	return nil
}

// iterate runs one iteration of script (its Client made with clientArg) and
// returns the results it logged.
func iterate(t *testing.T, clientArg, body string, files map[string]string) (map[string]any, string) {
	t.Helper()
	log := &modulestest.LogBuffer{}
	if files == nil {
		files = map[string]string{}
	}
	files["script.js"] = "import redis from 'k6/x/redis';\nconst c = new redis.Client(" + clientArg + ");\n" +
		"export default async function () {\n  const r = {};\n" + body + "\n  console.log(JSON.stringify(r));\n}\n"
	h := modulestest.Start(t, files, modulestest.WithLogger(slog.New(slog.NewJSONHandler(log, nil))))
	vu := h.VUs(t, 1)[0]
	require.True(t, vu.Iterate(context.Background()), "the iteration did not complete:\n%s", log.String())
	return results(t, log), log.String()
}

// TestClientMethods: every method k6 documents, against a real redis-server, with
// the replies k6 documents (numbers, booleans, strings, arrays, objects, null) and
// rejections for a missing key, a wrong type and an argument of a type Redis does
// not take.
func TestClientMethods(t *testing.T) {
	t.Parallel()
	s := startRedis(t, false)
	const body = `
  r.randomKeyEmpty = await c.randomKey().catch((e) => 'rejected: ' + e);
  r.set = await c.set('k', 'v', 0);
  r.get = await c.get('k');
  r.getSet = await c.getSet('k', 'v2');
  r.getDel = await c.getDel('k');
  r.existsAfterGetDel = await c.exists('k');
  r.getMissing = await c.get('k').catch((e) => 'rejected: ' + e);
  await c.set('n', 1);
  r.incr = await c.incr('n');
  r.incrBy = await c.incrBy('n', 10);
  r.decr = await c.decr('n');
  r.decrBy = await c.decrBy('n', 5);
  r.mget = await c.mget('n', 'missing');
  r.expire = await c.expire('n', 100);
  r.ttl = await c.ttl('n');
  r.persist = await c.persist('n');
  r.ttlAfterPersist = await c.ttl('n');
  r.ttlMissing = await c.ttl('missing');
  r.randomKey = await c.randomKey();
  await c.set('word', 'abc', 1000);
  r.incrNotNumber = await c.incr('word').catch((e) => 'rejected: ' + e);
  r.setObject = await c.set('o', { a: 1 }).catch((e) => 'rejected: ' + e);
  r.setBool = await c.set('b', true);
  r.mgetArray = await c.mget(['b', 'word']);
  r.del = await c.del('n', 'missing', 'word', 'b');
  r.exists = await c.exists('n', 'k');
  r.rpush = await c.rpush('l', 'b', 'c');
  r.lpush = await c.lpush('l', 'a');
  r.lrange = await c.lrange('l', 0, -1);
  r.lindex = await c.lindex('l', -1);
  r.lindexOut = await c.lindex('l', 10).catch((e) => 'rejected: ' + e);
  r.lset = await c.lset('l', 1, 'B');
  r.rpushNumber = await c.rpush('l', 'a', 7);
  r.lrem = await c.lrem('l', 0, 'a');
  r.llen = await c.llen('l');
  r.lpop = await c.lpop('l');
  r.rpop = await c.rpop('l');
  r.hset = await c.hset('h', 'f', 'v');
  r.hsetnx = await c.hsetnx('h', 'f', 'x');
  r.hsetnxNew = await c.hsetnx('h', 'g', 1);
  r.hget = await c.hget('h', 'f');
  r.hgetMissing = await c.hget('h', 'nope').catch((e) => 'rejected: ' + e);
  r.hincrby = await c.hincrby('h', 'g', 4);
  r.hgetall = await c.hgetall('h');
  r.hkeys = (await c.hkeys('h')).sort();
  r.hvals = (await c.hvals('h')).sort();
  r.hlen = await c.hlen('h');
  r.hdel = await c.hdel('h', 'f', 'nope');
  r.sadd = await c.sadd('s', 'x', 'y', 3);
  r.srem = await c.srem('s', 'y', 'nope');
  r.sismember = await c.sismember('s', 3);
  r.sismemberNot = await c.sismember('s', 'y');
  r.smembers = (await c.smembers('s')).sort();
  r.srandmember = ['3', 'x'].includes(await c.srandmember('s'));
  r.spop = ['3', 'x'].includes(await c.spop('s'));
  r.spopMissing = await c.spop('nope').catch((e) => 'rejected: ' + e);
  r.echo = await c.sendCommand('ECHO', 'Hello world');
  r.scard = await c.sendCommand('SCARD', 's');
  r.isArray = Array.isArray(await c.lrange('l', 0, -1));
  const p = c.get('s');
  r.promise = p instanceof Promise;
  r.wrongType = await p.catch((e) => String(e));
`
	got, _ := iterate(t, strconv.Quote("redis://"+s.addr), body, nil)
	require.Contains(t, got["randomKeyEmpty"], "rejected: GoError: redis.Client.randomKey: redis: nil")
	require.Contains(t, got["getMissing"], "rejected: GoError: redis.Client.get: redis: nil")
	require.Contains(t, got["incrNotNumber"], "ERR value is not an integer")
	require.Contains(t, got["setObject"], "redis.Client.set: argument 2: expected a string, a number or a boolean")
	require.Contains(t, got["lindexOut"], "redis.Client.lindex: redis: nil")
	require.Contains(t, got["hgetMissing"], "redis.Client.hget: redis: nil")
	require.Contains(t, got["spopMissing"], "redis.Client.spop: redis: nil")
	require.Contains(t, got["wrongType"], "WRONGTYPE")
	for _, k := range []string{"randomKeyEmpty", "getMissing", "incrNotNumber", "setObject", "lindexOut", "hgetMissing", "spopMissing", "wrongType"} {
		delete(got, k)
	}
	ttl := got["ttl"].(float64)
	require.True(t, ttl > 98 && ttl <= 100, "ttl %v", ttl)
	delete(got, "ttl")
	require.Equal(t, map[string]any{
		"set": "OK", "get": "v", "getSet": "v", "getDel": "v2", "existsAfterGetDel": 0.0,
		"incr": 2.0, "incrBy": 12.0, "decr": 11.0, "decrBy": 6.0, "mget": []any{"6", nil},
		"expire": true, "persist": true, "ttlAfterPersist": -1.0, "ttlMissing": -2.0, "randomKey": "n",
		"setBool": "OK", "mgetArray": []any{"1", "abc"}, "del": 3.0, "exists": 0.0,
		"rpush": 2.0, "lpush": 3.0, "lrange": []any{"a", "b", "c"}, "lindex": "c", "lset": "OK",
		"rpushNumber": 5.0, "lrem": 2.0, "llen": 3.0, "lpop": "B", "rpop": "7",
		"hset": 1.0, "hsetnx": false, "hsetnxNew": true, "hget": "v", "hincrby": 5.0,
		"hgetall": map[string]any{"f": "v", "g": "5"}, "hkeys": []any{"f", "g"}, "hvals": []any{"5", "v"}, "hlen": 2.0, "hdel": 1.0,
		"sadd": 3.0, "srem": 1.0, "sismember": true, "sismemberNot": false, "smembers": []any{"3", "x"},
		"srandmember": true, "spop": true, "echo": "Hello world", "scard": 1.0, "isArray": true, "promise": true,
	}, got)
	direct := s.direct(t, nil)
	require.Equal(t, map[string]string{"g": "5"}, direct.HGetAll(ctx(t), "h").Val(), "the script's writes reach the server")
	require.Equal(t, []string{"c"}, direct.LRange(ctx(t), "l", 0, -1).Val())
}

// TestEventLoop: commands whose promises the script does not await still finish
// before the iteration ends, their then() callbacks included; commands in the init
// context throw, as k6's protocol calls do.
func TestEventLoop(t *testing.T) {
	t.Parallel()
	s := startRedis(t, false)
	log := &modulestest.LogBuffer{}
	script := fmt.Sprintf(`import redis from 'k6/x/redis';
import { check } from 'k6';
const c = new redis.Client('redis://%s');
let initErr = '';
try { c.get('x'); } catch (e) { initErr = String(e); }
export default function () {
  c.set('fire', 'and-forget');
  c.incr('counter').then((v) => c.set('after', 'counter was ' + v));
  check(initErr, { 'init context': (e) => e.includes('redis.Client.get: not available in the init context') });
}
`, s.addr)
	h := modulestest.Start(t, map[string]string{"script.js": script}, modulestest.WithLogger(slog.New(slog.NewJSONHandler(log, nil))))
	vu := h.VUs(t, 1)[0]
	require.True(t, vu.Iterate(context.Background()), log.String())
	direct := s.direct(t, nil)
	require.Equal(t, "and-forget", direct.Get(ctx(t), "fire").Val())
	require.Equal(t, "counter was 1", direct.Get(ctx(t), "after").Val())
	require.Equal(t, map[string]bool{"init context": true}, h.Checks())
}

// TestClientOptions: an options object (socket, database, clientName), and a
// password in the URL and in the options.
func TestClientOptions(t *testing.T) {
	t.Parallel()
	s := startRedis(t, false, "--requirepass", "s3cret")
	host, port, _ := strings.Cut(s.addr, ":")
	opts := fmt.Sprintf(`{ socket: { host: %q, port: %s, dialTimeout: 2, readTimeout: 2, poolSize: 2 }, password: 's3cret', database: 2, clientName: 'tidemark-vu' }`, host, port)
	got, _ := iterate(t, opts, `
  r.set = await c.set('db2', 'yes');
  r.name = await c.sendCommand('CLIENT', 'GETNAME');`, nil)
	require.Equal(t, map[string]any{"set": "OK", "name": "tidemark-vu"}, got)
	direct := s.direct(t, &goredis.Options{Password: "s3cret", DB: 2})
	require.Equal(t, "yes", direct.Get(ctx(t), "db2").Val(), "database 2")

	got, _ = iterate(t, strconv.Quote("redis://:s3cret@"+s.addr+"/3"), `r.set = await c.set('db3', 'yes');`, nil)
	require.Equal(t, map[string]any{"set": "OK"}, got)
	direct = s.direct(t, &goredis.Options{Password: "s3cret", DB: 3})
	require.Equal(t, "yes", direct.Get(ctx(t), "db3").Val(), "database 3 from the URL")

	got, _ = iterate(t, strconv.Quote("redis://:wrong@"+s.addr), `r.err = await c.set('x', 1).catch((e) => String(e));`, nil)
	require.Contains(t, got["err"], "WRONGPASS")
}

// TestTLS: socket.tls with the server's CA, mutual TLS with cert and key, a server
// that requires a client certificate refusing a client without one, and rediss://
// refusing a certificate no trusted CA signed.
func TestTLS(t *testing.T) {
	t.Parallel()
	p := testPKI(t)
	files := map[string]string{}
	s := tlsServer(t, p, true)
	host, port, _ := strings.Cut(s.addr, ":")
	withCert := fmt.Sprintf(`{ socket: { host: %q, port: %s, tls: { ca: [open(%q)], cert: open(%q), key: open(%q) } } }`, host, port, p.ca, p.clientCert, p.clientKey)
	got, _ := iterate(t, withCert, `r.ping = await c.sendCommand('PING'); r.set = await c.set('tls', 'on');`, files)
	require.Equal(t, map[string]any{"ping": "PONG", "set": "OK"}, got)

	withoutCert := fmt.Sprintf(`{ socket: { host: %q, port: %s, tls: { ca: [open(%q)] } } }`, host, port, p.ca)
	got, _ = iterate(t, withoutCert, `r.err = await c.set('x', 1).then(() => 'no error', (e) => String(e));`, files)
	require.NotEqual(t, "no error", got["err"], "the server requires a client certificate")

	one := tlsServer(t, p, false)
	host, port, _ = strings.Cut(one.addr, ":")
	caOnly := fmt.Sprintf(`{ socket: { host: %q, port: %s, tls: { ca: [open(%q, 'b')] } } }`, host, port, p.ca)
	got, _ = iterate(t, caOnly, `r.ping = await c.sendCommand('PING');`, files)
	require.Equal(t, map[string]any{"ping": "PONG"}, got, "the CA as an ArrayBuffer")

	got, _ = iterate(t, strconv.Quote("rediss://"+one.addr), `r.err = await c.set('x', 1).then(() => 'no error', (e) => String(e));`, files)
	require.Contains(t, got["err"], "certificate signed by unknown authority")
}

// TestCluster: cluster.nodes reaches a real Redis Cluster (one node holding every
// slot), given as URLs or as sockets.
func TestCluster(t *testing.T) {
	t.Parallel()
	s := startRedis(t, false, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
	direct := s.direct(t, nil)
	require.NoError(t, direct.Do(ctx(t), "CLUSTER", "ADDSLOTSRANGE", "0", "16383").Err())
	require.Eventually(t, func() bool {
		info, err := direct.ClusterInfo(ctx(t)).Result()
		return err == nil && strings.Contains(info, "cluster_state:ok")
	}, 30*time.Second, 20*time.Millisecond)
	host, port, _ := strings.Cut(s.addr, ":")
	for _, nodes := range []string{
		strconv.Quote("redis://" + s.addr),
		fmt.Sprintf(`{ socket: { host: %q, port: %s } }`, host, port),
	} {
		got, _ := iterate(t, `{ cluster: { maxRedirects: 2, nodes: [`+nodes+`] } }`, `
  r.set = await c.set('{user1}:a', 1);
  r.incr = await c.incr('{user1}:a');
  r.mode = (await c.sendCommand('CLUSTER', 'INFO')).includes('cluster_state:ok');`, nil)
		require.Equal(t, map[string]any{"set": "OK", "incr": 2.0, "mode": true}, got, nodes)
		require.NoError(t, direct.Del(ctx(t), "{user1}:a").Err())
	}
}
