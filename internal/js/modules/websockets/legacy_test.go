package websockets_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLegacyConnect drives every Socket method against the target's echo: text and
// binary messages come back, a ping gets its pong, setTimeout and setInterval run
// while the socket is open, close() ends ws.connect with the close handlers, and
// the Response is the handshake's.
func TestLegacyConnect(t *testing.T) {
	url := echoURL(t)
	h, ok, _ := run(t, `
import ws from "k6/ws";
import { check } from "k6";
export default function () {
  const seen = { open: 0, message: [], binary: [], pong: 0, other: 0, ticks: 0, timeout: 0, close: [] };
  const res = ws.connect("`+url+`", { tags: { my_tag: "hello" }, headers: { "X-Test": "1" } }, function (socket) {
    socket.on("open", () => {
      seen.open++;
      socket.send("hello");
      socket.send(42);
      socket.sendBinary(new Uint8Array([1, 2, 3]).buffer);
      socket.ping();
    });
    socket.on("message", (m) => { seen.message.push(m); });
    socket.on("binaryMessage", (m) => { seen.binary.push(Array.from(new Uint8Array(m))); });
    socket.on("pong", () => { seen.pong++; });
    socket.on("pong", () => { seen.other++; });
    socket.setInterval(() => { seen.ticks++; }, 10);
    socket.setTimeout(() => { seen.timeout++; }, 20);
    socket.on("close", (code) => { seen.close.push(code); });
    socket.setTimeout(() => {
      if (seen.message.length === 2 && seen.binary.length === 1 && seen.pong === 1 && seen.timeout === 1 && seen.ticks >= 2) {
        socket.close();
      }
    }, 0);
    socket.setInterval(() => {
      if (seen.message.length === 2 && seen.binary.length === 1 && seen.pong === 1 && seen.timeout === 1 && seen.ticks >= 2) {
        socket.close();
      }
    }, 25);
    socket.setTimeout(() => { throw new Error("never closed"); }, 5000);
  });
  check(res, {
    "status is 101": (r) => r.status === 101,
    "url": (r) => r.url === "`+url+`",
    "upgrade header": (r) => r.headers["Upgrade"] === "websocket",
    "no error": (r) => r.error === "" && r.error_code === 0,
    "no body": (r) => r.body === "",
  });
  check(seen, {
    "open once": (s) => s.open === 1,
    "text echoed": (s) => s.message[0] === "hello" && s.message[1] === "42",
    "binary echoed": (s) => s.binary[0].join(",") === "1,2,3",
    "both pong handlers": (s) => s.pong === 1 && s.other === 1,
    "close 1001": (s) => s.close.length === 1 && s.close[0] === 1001,
  });
}`)
	require.True(t, ok, "the iteration did not complete")
	requireChecks(t, h, "status is 101", "text echoed", "binary echoed", "both pong handlers", "close 1001")

	c := h.Collector
	require.Equal(t, 1.0, sum(c.Of("ws_sessions")))
	require.Equal(t, 3.0, sum(c.Of("ws_msgs_sent")))
	require.Equal(t, 3.0, sum(c.Of("ws_msgs_received")))
	require.Len(t, c.Of("ws_ping"), 1)
	require.Len(t, c.Of("ws_connecting"), 1)
	require.Len(t, c.Of("ws_session_duration"), 1)
	require.Greater(t, c.Of("ws_session_duration")[0].Value, c.Of("ws_connecting")[0].Value)
	require.Greater(t, sum(c.Of("data_sent")), 0.0)
	require.Greater(t, sum(c.Of("data_received")), 0.0)
	tags := tagsOf(c.Of("ws_sessions")[0])
	require.Equal(t, map[string]string{"scenario": "default", "testid": "t", "my_tag": "hello", "url": url, "status": "101"}, tags)
}

// TestLegacyClosedPort: a connection to a closed port returns k6's Response with
// the error and error code 1212, emits no ws_* sample, and the iteration goes on;
// with the throw option it throws.
func TestLegacyClosedPort(t *testing.T) {
	addr := closedPort(t)
	h, ok, _ := run(t, `
import ws from "k6/ws";
import { check } from "k6";
export default function () {
  let called = false;
  const res = ws.connect("ws://`+addr+`/ws", function (socket) { called = true; });
  check(res, {
    "status 0": (r) => r.status === 0,
    "refused": (r) => r.error.includes("connection refused"),
    "error code 1212": (r) => r.error_code === 1212,
    "callback not called": () => !called,
  });
}`)
	require.True(t, ok)
	requireChecks(t, h, "status 0", "refused", "error code 1212", "callback not called")
	require.Empty(t, h.Collector.Of("ws_sessions"))
	require.Empty(t, h.Collector.Of("ws_connecting"))

	_, ok, _ = run(t, `
import ws from "k6/ws";
export const options = { throw: true };
export default function () {
  ws.connect("ws://`+addr+`/ws", function (socket) {});
}`)
	require.False(t, ok, "with throw, the refused connection must end the iteration")
}

// TestLegacyRefusedHandshake: a server that answers the upgrade with an error status
// gives that status and k6's error code for it.
func TestLegacyRefusedHandshake(t *testing.T) {
	url := strings.TrimSuffix(echoURL(t), "/ws") + "/nows?status=404"
	h, ok, _ := run(t, `
import ws from "k6/ws";
import { check } from "k6";
export default function () {
  const res = ws.connect("`+url+`", null, function (socket) {});
  check(res, {
    "status 404": (r) => r.status === 404,
    "error code 1404": (r) => r.error_code === 1404,
    "bad handshake": (r) => r.error.includes("bad handshake"),
  });
}`)
	require.True(t, ok)
	requireChecks(t, h, "status 404", "error code 1404", "bad handshake")
}

// TestLegacyHandlerException: an exception in a handler ends ws.connect and the
// iteration, and the session still ends with its metrics.
func TestLegacyHandlerException(t *testing.T) {
	url := echoURL(t)
	h, ok, _ := run(t, `
import ws from "k6/ws";
export default function () {
  ws.connect("`+url+`", function (socket) {
    socket.on("open", () => socket.send("x"));
    socket.on("message", () => { throw new Error("boom"); });
  });
}`)
	require.False(t, ok)
	require.Len(t, h.Collector.Of("ws_session_duration"), 1)
}

// TestLegacyInitContext: ws.connect is not allowed in the init context.
func TestLegacyInitContext(t *testing.T) {
	_, err := runInit(t, `
import ws from "k6/ws";
ws.connect("ws://127.0.0.1:1/", function () {});
export default function () {}`)
	require.ErrorContains(t, err, "init context")
}
