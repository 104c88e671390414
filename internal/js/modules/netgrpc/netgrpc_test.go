package netgrpc_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/target/grpctarget"
)

// TestInvoke calls the route guide's unary method from a loaded .proto file: the
// Response has status, message (every field, zero values too), headers and trailers,
// and grpc_req_duration carries k6's gRPC tags.
func TestInvoke(t *testing.T) {
	addr := startTarget(t)
	h := run(t, addr, `
import grpc from 'k6/net/grpc';
import { check } from 'k6';
const client = new grpc.Client();
client.load([], 'route_guide.proto');
export default () => {
  client.connect('ADDR', { plaintext: true, timeout: '5s' });
  const r = client.invoke('main.FeatureExplorer/GetFeature', { latitude: 410248224, longitude: -747127767 }, { tags: { kind: 'known' } });
  check(r, {
    'status OK': (r) => r.status === grpc.StatusOK && r.error === null,
    'feature found': (r) => r.message.name === 'Berkshire Valley Management Area Trail, Jefferson, NJ, USA' && r.message.location.latitude === 410248224,
    'headers': (r) => r.headers['content-type'][0] === 'application/grpc',
  });
  const none = client.invoke('/main.FeatureExplorer/GetFeature', { latitude: 1, longitude: 2 });
  check(none, { 'nameless feature with zero values': (r) => r.message.name === '' && r.message.location.longitude === 2 });
  client.close();
  let threw = '';
  try { client.invoke('main.FeatureExplorer/GetFeature', {}); } catch (e) { threw = String(e); }
  check(threw, { 'invoke after close throws': (s) => s.includes('connect first') });
}`, nil)
	requireChecks(t, h, "status OK", "feature found", "headers", "nameless feature with zero values", "invoke after close throws")
	samples := h.Collector.Of("grpc_req_duration")
	require.Len(t, samples, 2)
	tags := tagsOf(samples[0])
	url := addr + "/main.FeatureExplorer/GetFeature"
	require.Equal(t, map[string]string{"scenario": "default", "testid": "t", "name": url, "url": url, "method": "GetFeature",
		"service": "main.FeatureExplorer", "status": "0", "kind": "known"}, tags)
	require.Positive(t, samples[0].Value)
	require.Less(t, samples[0].Value, 5.0, "seconds")
}

// TestInvokeStatusMetadataTimeout covers an error status with details, metadata
// (text and -bin) sent and echoed, headers and trailers, the JSON mapping of int64,
// enum, bytes and Duration, a timeout and params.tags.name.
func TestInvokeStatusMetadataTimeout(t *testing.T) {
	addr := startTarget(t)
	h := run(t, addr, `
import grpc from 'k6/net/grpc';
import encoding from 'k6/encoding';
import { check } from 'k6';
const client = new grpc.Client();
client.load(['.'], 'echo.proto');
export default () => {
  client.connect('ADDR', { plaintext: true });
  const ok = client.invoke('tidemark.echo.Echo/Echo',
    { text: 'hi', count: '9007199254740993', kind: 'KIND_LARGE', payload: encoding.b64encode('abc') },
    { metadata: { 'x-user': 'u1', 'x-raw-bin': new Uint8Array([1, 2, 255]) } });
  check(ok, {
    'echo': (r) => r.status === grpc.StatusOK && r.message.text === 'hi' && r.message.count === '9007199254740993' && r.message.kind === 'KIND_LARGE',
    'bytes as base64': (r) => r.message.payload === encoding.b64encode('abc'),
    'metadata sent': (r) => r.message.metadata['x-user'] === 'u1' && r.message.metadata['x-raw-bin'] === 'AQL/',
    'header and trailer': (r) => r.headers['x-echo-header'][0] === 'hi' && r.trailers['x-echo-trailer'][0] === 'done',
  });
  const nf = client.invoke('tidemark.echo.Echo/Echo', { text: 'no such pizza', code: 5, details: ['OUT_OF_DOUGH'] });
  check(nf, {
    'status NotFound': (r) => r.status === grpc.StatusNotFound && r.message === null,
    'error object': (r) => r.error.code === 5 && r.error.message === 'no such pizza',
    'error details': (r) => r.error.details.length === 1 && r.error.details[0].reason === 'OUT_OF_DOUGH' && r.error.details[0]['@type'].endsWith('google.rpc.ErrorInfo'),
  });
  const slow = client.invoke('tidemark.echo.Echo/Echo', { delay: '5s' }, { timeout: 100, tags: { name: 'slow' } });
  check(slow, { 'deadline exceeded': (r) => r.status === grpc.StatusDeadlineExceeded });
  const discarded = client.invoke('tidemark.echo.Echo/Echo', { text: 'x' }, { discardResponseMessage: true });
  check(discarded, { 'discarded message': (r) => r.status === grpc.StatusOK && r.message === null });
  let threw = '';
  try { client.invoke('tidemark.echo.Echo/Echo', { nosuchfield: 1 }); } catch (e) { threw = String(e); }
  check(threw, { 'unknown field throws': (s) => s.includes('unable to serialise request object') && s.includes('nosuchfield') });
  threw = '';
  try { client.invoke('tidemark.echo.Echo/Nope', {}); } catch (e) { threw = String(e); }
  check(threw, { 'unknown method named': (s) => s.includes('method "/tidemark.echo.Echo/Nope" not found') });
  threw = '';
  try { client.invoke('tidemark.echo.Echo/Echo', {}, { headers: {} }); } catch (e) { threw = String(e); }
  check(threw, { 'unknown param named': (s) => s.includes('unknown param: "headers"') });
  client.close();
}`, nil)
	requireChecks(t, h, "echo", "bytes as base64", "metadata sent", "header and trailer", "status NotFound", "error object",
		"error details", "deadline exceeded", "discarded message", "unknown field throws", "unknown method named", "unknown param named")
	samples := h.Collector.Of("grpc_req_duration")
	require.Len(t, samples, 4)
	statuses := []string{}
	for _, s := range samples {
		statuses = append(statuses, tagsOf(s)["status"])
	}
	require.Equal(t, []string{"0", "5", "4", "0"}, statuses)
	require.Equal(t, "slow", tagsOf(samples[2])["name"])
	require.GreaterOrEqual(t, samples[2].Value, 0.1)
	require.Less(t, samples[2].Value, 4.0, "the timeout ended the call")
}

// TestAsyncInvoke runs two calls at once on the event loop: the iteration waits for
// both promises.
func TestAsyncInvoke(t *testing.T) {
	addr := startTarget(t)
	h := run(t, addr, `
import grpc from 'k6/net/grpc';
import { check } from 'k6';
const client = new grpc.Client();
client.load([], 'echo.proto');
export default async () => {
  client.connect('ADDR', { plaintext: true });
  const started = Date.now();
  const [a, b] = await Promise.all([
    client.asyncInvoke('tidemark.echo.Echo/Echo', { text: 'a', delay: '0.3s' }),
    client.asyncInvoke('tidemark.echo.Echo/Echo', { text: 'b', delay: '0.3s' }),
  ]);
  check(null, {
    'both answered': () => a.message.text === 'a' && b.message.text === 'b' && a.status === grpc.StatusOK,
    'concurrently': () => Date.now() - started < 550,
  });
  client.asyncInvoke('tidemark.echo.Echo/Echo', { text: 'late', delay: '0.1s' }).then((r) => {
    check(r, { 'an unawaited call still settles in the iteration': (r) => r.message.text === 'late' });
    client.close();
  });
}`, nil)
	requireChecks(t, h, "both answered", "concurrently", "an unawaited call still settles in the iteration")
	require.Len(t, h.Collector.Of("grpc_req_duration"), 3)
}

// TestReflectionAndHealth loads the services by server reflection (no .proto) and
// checks health: the whole server, a service, and an unknown service.
func TestReflectionAndHealth(t *testing.T) {
	addr := startTarget(t)
	h := run(t, addr, `
import grpc from 'k6/net/grpc';
import { check } from 'k6';
const client = new grpc.Client();
export default () => {
  client.connect('ADDR', { plaintext: true, reflect: true, reflectMetadata: { 'x-reflect': 'yes' } });
  const r = client.invoke('main.FeatureExplorer/GetFeature', { latitude: 410248224, longitude: -747127767 });
  check(r, { 'reflected method works': (r) => r.status === grpc.StatusOK && r.message.name.startsWith('Berkshire') });
  const e = client.invoke('tidemark.echo.Echo/Echo', { delay: '0.001s', count: 3 });
  check(e, { 'reflected imports (Duration)': (r) => r.status === grpc.StatusOK && r.message.count === '3' });
  const hc = client.healthCheck();
  check(hc, { 'server serving': (r) => r.status === grpc.StatusOK && r.message.status === grpc.HealthCheckServing && r.Status === grpc.HealthCheckServing });
  const svc = client.healthCheck('quickpizza.GRPC');
  check(svc, { 'service serving': (r) => r.message.status === 'SERVING' });
  const unknown = client.healthCheck('no.such.Service');
  check(unknown, { 'unknown service NotFound': (r) => r.status === grpc.StatusNotFound && r.message === null && r.Status === grpc.HealthCheckServiceUnkown });
  client.close();
}`, nil)
	requireChecks(t, h, "reflected method works", "reflected imports (Duration)", "server serving", "service serving", "unknown service NotFound")
}

// TestStreams runs the three kinds of streaming call; their events run on the event
// loop and the stream metrics count them.
func TestStreams(t *testing.T) {
	addr := startTarget(t)
	h := run(t, addr, `
import { Client, Stream, StatusInvalidArgument } from 'k6/net/grpc';
import { check } from 'k6';
const client = new Client();
client.load([], 'route_guide.proto', 'echo.proto');
export default async () => {
  client.connect('ADDR', { plaintext: true });
  const names = [];
  await new Promise((resolve) => {
    const s = new Stream(client, 'main.FeatureExplorer/ListFeatures', null);
    s.on('data', (f, meta) => { names.push(f.name); check(meta, { 'metadata ts': (m) => Math.abs(m.ts - Date.now()) < 10000 }); });
    s.on('end', resolve);
    s.write({ lo: { latitude: 400000000, longitude: -750000000 }, hi: { latitude: 420000000, longitude: -730000000 } });
  });
  check(names, { 'server streaming': (n) => n.length === 11 && n.includes('U.S. 6, Shohola, PA 18458, USA') });
  const summary = await new Promise((resolve) => {
    const s = new Stream(client, 'main.RouteGuide/RecordRoute');
    let got;
    s.on('data', (d) => { got = d; });
    s.on('end', () => resolve(got));
    s.write({ latitude: 407838351, longitude: -746143763 });
    s.write({ latitude: 408122808, longitude: -743999179 });
    s.write({ latitude: 1, longitude: 1 });
    s.end();
  });
  check(summary, { 'client streaming': (s) => s.pointCount === 3 && s.featureCount === 2 && s.distance > 100000 });
  const echoes = [];
  let err;
  await new Promise((resolve) => {
    const s = new Stream(client, 'tidemark.echo.Echo/Chat', { metadata: { 'x-chat': 'on' } });
    s.on('data', (d) => { echoes.push(d.text); if (echoes.length === 2) s.write({ text: 'bad', code: StatusInvalidArgument }); });
    s.on('error', (e) => { err = e; });
    s.on('end', resolve);
    s.write({ text: 'one' });
    s.write({ text: 'two' });
  });
  check(err, {
    'bidirectional': () => echoes.join(',') === 'one,two',
    'error event': (e) => e.code === StatusInvalidArgument && e.message === 'bad',
  });
  let threw = '';
  try { new Stream(client, 'main.RouteGuide/Nope'); } catch (e) { threw = String(e); }
  check(threw, { 'unknown stream method': (s) => s.includes('not found') });
  threw = '';
  try { new Stream(client, 'main.RouteGuide/RouteChat').on('status', () => {}); } catch (e) { threw = String(e); }
  check(threw, { 'unknown event': (s) => s.includes('unknown event "status"') });
  client.close();
}`, nil)
	checks := h.Checks()
	require.True(t, checks["metadata ts"], "%v", checks)
	delete(checks, "metadata ts")
	for _, n := range []string{"server streaming", "client streaming", "bidirectional", "error event", "unknown stream method", "unknown event"} {
		require.True(t, checks[n], "check %q: %v", n, checks)
	}
	count := func(name string) map[string]int {
		out := map[string]int{}
		for _, s := range h.Collector.Of(name) {
			out[tagsOf(s)["method"]] += int(s.Value)
		}
		return out
	}
	require.Equal(t, map[string]int{"ListFeatures": 1, "RecordRoute": 1, "Chat": 1, "RouteChat": 1}, count("grpc_streams"))
	require.Equal(t, map[string]int{"ListFeatures": 1, "RecordRoute": 3, "Chat": 3}, count("grpc_streams_msgs_sent"))
	require.Equal(t, map[string]int{"ListFeatures": 11, "RecordRoute": 1, "Chat": 2}, count("grpc_streams_msgs_received"))
	tags := tagsOf(h.Collector.Of("grpc_streams")[0])
	require.Equal(t, "main.FeatureExplorer", tags["service"])
	require.Equal(t, addr+"/main.FeatureExplorer/ListFeatures", tags["url"])
}

// TestBadInput: a .proto that does not compile names its file and line; a missing
// file names itself; load outside the init context and connect inside it are
// refused; connect to a closed port fails with the dial error.
func TestBadInput(t *testing.T) {
	t.Run("proto syntax", func(t *testing.T) {
		dir := modulestest.WriteFiles(t, map[string]string{
			"bad.proto": "syntax = \"proto3\";\n\nmessage Broken {\n  string name = ;\n}\n",
			"script.js": "import { Client } from 'k6/net/grpc';\nconst c = new Client();\nc.load([], 'bad.proto');\nexport default () => {};\n",
		})
		_, err := modulestest.Load(t, dir+"/script.js", nil)
		require.ErrorContains(t, err, "bad.proto:4:")
	})
	t.Run("proto type", func(t *testing.T) {
		dir := modulestest.WriteFiles(t, map[string]string{
			"protos/types.proto": "syntax = \"proto3\";\npackage p;\nmessage M {\n  Missing m = 1;\n}\n",
			"script.js":          "import { Client } from 'k6/net/grpc';\nconst c = new Client();\nc.load(['protos'], 'types.proto');\nexport default () => {};\n",
		})
		_, err := modulestest.Load(t, dir+"/script.js", nil)
		require.ErrorContains(t, err, "types.proto:4:3:")
		require.ErrorContains(t, err, "Missing")
	})
	t.Run("missing file", func(t *testing.T) {
		dir := modulestest.WriteFiles(t, map[string]string{
			"script.js": "import { Client } from 'k6/net/grpc';\nconst c = new Client();\nc.load([], 'nowhere.proto');\nexport default () => {};\n",
		})
		_, err := modulestest.Load(t, dir+"/script.js", nil)
		require.ErrorContains(t, err, "nowhere.proto")
	})
	t.Run("contexts and closed port", func(t *testing.T) {
		h := run(t, closedAddr(t), `
import { Client } from 'k6/net/grpc';
import { check } from 'k6';
const client = new Client();
let initConnect = '';
try { client.connect('ADDR', { plaintext: true }); } catch (e) { initConnect = String(e); }
export default () => {
  let threw = '';
  try { client.connect('ADDR', { plaintext: true, timeout: '5s' }); } catch (e) { threw = String(e); }
  check(threw, { 'closed port': (s) => s.includes('failed to connect to ADDR') && s.includes('connection refused') });
  threw = '';
  try { client.load([], 'route_guide.proto'); } catch (e) { threw = String(e); }
  check(threw, { 'load outside init': (s) => s.includes('init context') });
  check(initConnect, { 'connect in init': (s) => s.includes('not available in the init context') });
  threw = '';
  try { client.connect('ADDR', { plaintext: true, nope: 1 }); } catch (e) { threw = String(e); }
  check(threw, { 'unknown connect param': (s) => s.includes('unknown connect param: "nope"') });
}`, nil)
		requireChecks(t, h, "closed port", "load outside init", "connect in init", "unknown connect param")
	})
}

// TestLoadProtoset loads the services from a protoset file (with its imports).
func TestLoadProtoset(t *testing.T) {
	addr := startTarget(t)
	set := &descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{
		protodesc.ToFileDescriptorProto(durationpb.File_google_protobuf_duration_proto),
	}}
	files := protosetFiles(t)
	set.File = append(set.File, files...)
	raw, err := proto.Marshal(set)
	require.NoError(t, err)
	h := run(t, addr, `
import grpc from 'k6/net/grpc';
import { check } from 'k6';
const client = new grpc.Client();
client.loadProtoset('services.protoset');
export default () => {
  client.connect('ADDR', { plaintext: true });
  const r = client.invoke('tidemark.echo.Echo/Echo', { text: 'from protoset', delay: '0.01s' });
  check(r, { 'protoset method works': (r) => r.status === grpc.StatusOK && r.message.text === 'from protoset' });
  client.close();
}`, map[string]string{"services.protoset": string(raw)})
	requireChecks(t, h, "protoset method works")

	dir := modulestest.WriteFiles(t, map[string]string{
		"bad.protoset": "\xff\xff not a protoset",
		"script.js":    "import { Client } from 'k6/net/grpc';\nconst c = new Client();\nc.loadProtoset('bad.protoset');\nexport default () => {};\n",
	})
	_, err = modulestest.Load(t, dir+"/script.js", nil)
	require.ErrorContains(t, err, "loadProtoset bad.protoset")
}

// protosetFiles are the target's files as descriptor protos, read back by reflection
// of what the target compiled.
func protosetFiles(t *testing.T) []*descriptorpb.FileDescriptorProto {
	t.Helper()
	fds, err := grpctarget.Descriptors()
	require.NoError(t, err)
	out := make([]*descriptorpb.FileDescriptorProto, 0, len(fds))
	for _, fd := range fds {
		out = append(out, protodesc.ToFileDescriptorProto(fd))
	}
	return out
}

// TestTLS connects over TLS with a client certificate (mutual TLS) and the CA given in
// tls.cacerts; without the client certificate the connection fails.
func TestTLS(t *testing.T) {
	p := newPKI(t)
	addr := startTarget(t, grpc.Creds(credentials.NewTLS(p.serverTLS(t))))
	script := strings.NewReplacer("CA", jsString(p.caPEM), "CERT", jsString(p.clientCert), "KEY", jsString(p.clientKey)).Replace(`
import grpc from 'k6/net/grpc';
import { check } from 'k6';
const client = new grpc.Client();
client.load([], 'quickpizza.proto');
export default () => {
  client.connect('ADDR', { tls: { cacerts: [CA], cert: CERT, key: KEY }, timeout: '5s' });
  const r = client.invoke('quickpizza.GRPC/RatePizza', { ingredients: ['Pepperoni', 'Mozzarella'], dough: 'Stuffed' });
  check(r, { 'mutual TLS call': (r) => r.status === grpc.StatusOK && r.message.starsRating === 3 });
  client.close();
  let threw = '';
  try { client.connect('ADDR', { tls: { cacerts: CA }, timeout: '5s' }); } catch (e) { threw = String(e); }
  check(threw, { 'no client certificate fails': (s) => s.includes('failed to connect to ADDR') });
}`)
	h := run(t, addr, script, nil)
	requireChecks(t, h, "mutual TLS call", "no client certificate fails")
}

// TestConstants checks the exported constants' values.
func TestConstants(t *testing.T) {
	h := run(t, "unused", `
import * as grpc from 'k6/net/grpc';
import { check } from 'k6';
export default () => {
  const want = { StatusOK: 0, StatusCanceled: 1, StatusUnknown: 2, StatusInvalidArgument: 3, StatusDeadlineExceeded: 4,
    StatusNotFound: 5, StatusAlreadyExists: 6, StatusPermissionDenied: 7, StatusResourceExhausted: 8,
    StatusFailedPrecondition: 9, StatusAborted: 10, StatusOutOfRange: 11, StatusUnimplemented: 12, StatusInternal: 13,
    StatusUnavailable: 14, StatusDataLoss: 15, StatusUnauthenticated: 16,
    HealthCheckServing: 'SERVING', HealthCheckNotServing: 'NOT_SERVING', HealthCheckUnknown: 'UNKNOWN',
    HealthCheckServiceUnkown: 'SERVICE_UNKNOWN' };
  check(null, { 'constants': () => Object.keys(want).every((k) => grpc[k] === want[k]) });
  check(null, { 'classes': () => typeof new grpc.Client().invoke === 'function' && grpc.default.Stream === grpc.Stream });
}`, nil)
	requireChecks(t, h, "constants", "classes")
}

// TestMessageSizes: maxReceiveSize and maxSendSize refuse larger messages with
// StatusResourceExhausted; smaller ones pass.
func TestMessageSizes(t *testing.T) {
	addr := startTarget(t)
	h := run(t, addr, `
import grpc from 'k6/net/grpc';
import encoding from 'k6/encoding';
import { check } from 'k6';
const client = new grpc.Client();
client.load([], 'echo.proto');
const big = encoding.b64encode('x'.repeat(2000));
export default () => {
  client.connect('ADDR', { plaintext: true, maxReceiveSize: 1000 });
  check(client.invoke('tidemark.echo.Echo/Echo', { text: 'small' }), { 'small answer received': (r) => r.status === grpc.StatusOK });
  check(client.invoke('tidemark.echo.Echo/Echo', { payload: big }), { 'large answer refused': (r) => r.status === grpc.StatusResourceExhausted });
  client.connect('ADDR', { plaintext: true, maxSendSize: 1000 });
  check(client.invoke('tidemark.echo.Echo/Echo', { payload: big }), { 'large request refused': (r) => r.status === grpc.StatusResourceExhausted && r.error.message.includes('larger than max') });
  client.close();
}`, nil)
	requireChecks(t, h, "small answer received", "large answer refused", "large request refused")
}

// TestInterruptedStream: an iteration that throws with a stream open does not wait for
// it; the stream is canceled and the next iteration runs its own to the end.
func TestInterruptedStream(t *testing.T) {
	addr := startTarget(t)
	files := protos(t)
	files["script.js"] = strings.ReplaceAll(`
import { Client, Stream } from 'k6/net/grpc';
import { check } from 'k6';
const client = new Client();
client.load([], 'route_guide.proto');
export default () => {
  if (__ITER === 0) client.connect('ADDR', { plaintext: true });
  const s = new Stream(client, 'main.RouteGuide/RouteChat');
  s.on('end', () => check(null, { 'second stream ended': () => __ITER === 1 }));
  if (__ITER === 0) throw new Error('boom');
  s.end();
}`, "ADDR", addr)
	h := modulestest.Start(t, files)
	vu := h.VUs(t, 1)[0]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.False(t, vu.Iterate(ctx), "the first iteration throws")
	require.True(t, vu.Iterate(ctx), "the second iteration ends with its stream")
	require.Equal(t, map[string]bool{"second stream ended": true}, h.Checks())
}
