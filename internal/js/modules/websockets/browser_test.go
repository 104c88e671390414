package websockets_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWebSocket drives the WebSocket class against the target's echo: its states and
// properties, the three kinds of send, onX handlers beside addEventListener, ping
// and pong, close(code, reason), and an iteration that waits for the socket.
func TestWebSocket(t *testing.T) {
	url := echoURL(t)
	h, ok, _ := run(t, `
import { WebSocket, Blob } from "k6/websockets";
import { check } from "k6";
export default function () {
  const ws = new WebSocket("`+url+`", null, { tags: { my_tag: "hello" }, headers: { "X-Test": "1" } });
  const seen = { states: [ws.readyState], got: [], pongs: 0, listened: 0, buffered: -1 };
  check(ws, {
    "url": (w) => w.url === "`+url+`",
    "connecting": (w) => w.readyState === WebSocket.CONNECTING && w.CONNECTING === 0 && WebSocket.OPEN === 1 && WebSocket.CLOSING === 2 && WebSocket.CLOSED === 3,
    "binaryType blob": (w) => w.binaryType === "blob",
    "bufferedAmount 0": (w) => w.bufferedAmount === 0,
  });
  ws.onopen = () => {
    seen.states.push(ws.readyState);
    ws.binaryType = "arraybuffer";
    ws.send("text");
    ws.send(new Uint8Array([1, 2]).buffer);
    ws.send(new Uint8Array([9, 8, 7, 6]).subarray(1, 3));
    ws.send(new Blob(["bl", new Uint8Array([111, 98])], { type: "text/plain" }));
    seen.buffered = ws.bufferedAmount;
    ws.ping();
  };
  ws.onmessage = (e) => {
    check(e, { "message event": (e) => e.type === "message" && typeof e.timestamp === "number" });
    seen.got.push(typeof e.data === "string" ? e.data : Array.from(new Uint8Array(e.data)).join(","));
    if (seen.got.length === 4 && seen.pongs === 1) ws.close(4000, "bye");
  };
  ws.addEventListener("message", () => { seen.listened++; });
  ws.onpong = () => {
    seen.pongs++;
    if (seen.got.length === 4) ws.close(4000, "bye");
  };
  ws.onclose = (e) => {
    seen.states.push(ws.readyState);
    check(e, {
      "close code and reason": (e) => e.code === 4000 && e.reason === "bye" && e.wasClean === true,
    });
    check(seen, {
      "states": (s) => s.states.join(",") === "0,1,3",
      "echoes": (s) => s.got.join("|") === "text|1,2|8,7|98,108,111,98",
      "listener too": (s) => s.listened === 4,
      "bufferedAmount counted the queued bytes": (s) => s.buffered >= 0 && s.buffered <= 12,
      "drained": () => ws.bufferedAmount === 0,
      "protocol and extensions": () => ws.protocol === "" && typeof ws.extensions === "string",
    });
  };
}`)
	require.True(t, ok, "the iteration did not complete")
	requireChecks(t, h, "url", "connecting", "close code and reason", "states", "echoes", "listener too", "drained")

	c := h.Collector
	require.Equal(t, 1.0, sum(c.Of("ws_sessions")))
	require.Equal(t, 4.0, sum(c.Of("ws_msgs_sent")))
	require.Equal(t, 4.0, sum(c.Of("ws_msgs_received")))
	require.Len(t, c.Of("ws_ping"), 1)
	require.Len(t, c.Of("ws_session_duration"), 1)
	require.Equal(t, map[string]string{"scenario": "default", "testid": "t", "my_tag": "hello", "url": url, "status": "101"},
		tagsOf(c.Of("ws_msgs_sent")[0]))
}

// TestWebSocketBlobMessages: with the default binaryType a binary message is a Blob.
func TestWebSocketBlobMessages(t *testing.T) {
	url := echoURL(t)
	h, ok, _ := run(t, `
import { WebSocket, Blob } from "k6/websockets";
import { check } from "k6";
export default function () {
  const ws = new WebSocket("`+url+`");
  ws.onopen = () => ws.send(new Uint8Array([104, 105]));
  ws.onmessage = async (e) => {
    const isBlob = e.data instanceof Blob;
    const text = await e.data.text();
    check(e.data, { "a Blob": () => isBlob && e.data.size === 2, "its text": () => text === "hi" });
    ws.close();
  };
}`)
	require.True(t, ok)
	requireChecks(t, h, "a Blob", "its text")
}

// TestBlob: Blob's constructor parts and options, size, type, text, arrayBuffer,
// bytes, slice and stream.
func TestBlob(t *testing.T) {
	h, ok, _ := run(t, `
import { Blob } from "k6/websockets";
import { check } from "k6";
export default async function () {
  const inner = new Blob(["cd"]);
  const b = new Blob(["ab", inner, new Uint8Array([101]), new Uint8Array([102]).buffer], { type: "text/plain" });
  const text = await b.text();
  const buf = new Uint8Array(await b.arrayBuffer());
  const bytes = await b.bytes();
  const part = b.slice(1, -1, "x/y");
  const partText = await part.text();
  const reader = b.stream().getReader();
  const first = await reader.read();
  const second = await reader.read();
  check(b, {
    "size and type": (b) => b.size === 6 && b.type === "text/plain",
    "text": () => text === "abcdef",
    "arrayBuffer": () => buf.length === 6 && buf[5] === 102,
    "bytes": () => bytes instanceof Uint8Array && bytes.join(",") === "97,98,99,100,101,102",
    "slice": () => partText === "bcde" && part.type === "x/y" && part.size === 4,
    "slice from the end": () => b.slice(-2).size === 2,
    "stream": () => !first.done && first.value.length === 6 && second.done,
    "empty": () => new Blob().size === 0 && new Blob().type === "",
  });
}`)
	require.True(t, ok)
	requireChecks(t, h, "size and type", "text", "arrayBuffer", "bytes", "slice", "slice from the end", "stream", "empty")
}

// TestWebSocketClosedPort: a connection to a closed port dispatches an error event
// with the reason, then a close event with code 1006; without an error handler the
// error fails the iteration.
func TestWebSocketClosedPort(t *testing.T) {
	addr := closedPort(t)
	h, ok, _ := run(t, `
import { WebSocket } from "k6/websockets";
import { check } from "k6";
export default function () {
  const ws = new WebSocket("ws://`+addr+`/");
  const seen = [];
  ws.onopen = () => seen.push("open");
  ws.onerror = (e) => { seen.push("error"); check(e, { "refused": (e) => e.type === "error" && e.error.includes("connection refused") }); };
  ws.onclose = (e) => {
    seen.push("close");
    check(e, { "1006": (e) => e.code === 1006 && e.wasClean === false });
    check(seen, { "error then close": (s) => s.join(",") === "error,close", "closed": () => ws.readyState === 3 });
  };
}`)
	require.True(t, ok)
	requireChecks(t, h, "refused", "1006", "error then close", "closed")
	require.Empty(t, h.Collector.Of("ws_sessions"))

	_, ok, l := run(t, `
import { WebSocket } from "k6/websockets";
export default function () { new WebSocket("ws://`+addr+`/"); }`)
	require.False(t, ok, "an unhandled connection error must fail the iteration")
	require.Contains(t, strings.Join(l.lines, "\n"), "connection refused")
}

// TestWebSocketsInOneVU: one VU holds several sockets at once (k6's websockets
// example); the broadcast room relays every message to every socket.
func TestWebSocketsInOneVU(t *testing.T) {
	url := echoURL(t) + "/broadcast"
	h, ok, _ := run(t, `
import { WebSocket } from "k6/websockets";
import { check } from "k6";
export default function () {
  let opened = 0, received = 0, closed = 0;
  const sockets = [];
  for (let i = 0; i < 3; i++) {
    const ws = new WebSocket("`+url+`");
    sockets.push(ws);
    ws.addEventListener("open", () => {
      if (++opened === 3) sockets[0].send("to all");
    });
    ws.addEventListener("message", (e) => {
      if (e.data === "to all" && ++received === 3) sockets.forEach((s) => s.close());
    });
    ws.addEventListener("close", () => {
      if (++closed === 3) check(received, { "all three got it": (r) => r === 3 });
    });
  }
}`)
	require.True(t, ok)
	requireChecks(t, h, "all three got it")
	require.Equal(t, 3.0, sum(h.Collector.Of("ws_sessions")))
	require.Equal(t, 3.0, sum(h.Collector.Of("ws_msgs_received")))
}

// TestWebSocketHandlerException: an exception in an event handler fails the
// iteration.
func TestWebSocketHandlerException(t *testing.T) {
	url := echoURL(t)
	_, ok, l := run(t, `
import { WebSocket } from "k6/websockets";
export default function () {
  const ws = new WebSocket("`+url+`");
  ws.onopen = () => { throw new Error("boom in onopen"); };
}`)
	require.False(t, ok)
	require.Contains(t, strings.Join(l.lines, "\n"), "boom in onopen")
}

// TestExperimentalWebSockets: k6 v2 still serves k6/experimental/websockets.
func TestExperimentalWebSockets(t *testing.T) {
	url := echoURL(t)
	h, ok, l := run(t, `
import { WebSocket } from "k6/experimental/websockets";
import { check } from "k6";
export default function () {
  const ws = new WebSocket("`+url+`");
  ws.onopen = () => ws.send("x");
  ws.onmessage = (e) => { check(e, { "echo": (e) => e.data === "x" }); ws.close(); };
}`)
	require.True(t, ok)
	requireChecks(t, h, "echo")
	require.Contains(t, strings.Join(l.lines, "\n"), "k6/experimental/websockets is deprecated")
}

// TestWebSocketBadInput: bad URLs, close codes and binaryTypes throw; the
// constructor is not allowed in the init context.
func TestWebSocketBadInput(t *testing.T) {
	url := echoURL(t)
	h, ok, _ := run(t, `
import { WebSocket } from "k6/websockets";
import { check } from "k6";
function throws(f) { try { f(); return ""; } catch (e) { return String(e); } }
export default function () {
  check(null, {
    "http url": () => throws(() => new WebSocket("http://x/")).includes("scheme must be ws or wss"),
  });
  const ws = new WebSocket("`+url+`");
  check(ws, {
    "send while connecting": (w) => throws(() => w.send("x")).includes("InvalidStateError"),
    "bad binaryType": (w) => throws(() => { w.binaryType = "text"; }).includes("binaryType"),
    "bad close code": (w) => throws(() => w.close(1001)).includes("InvalidAccessError"),
  });
  ws.onopen = () => ws.close();
}`)
	require.True(t, ok)
	requireChecks(t, h, "http url", "send while connecting", "bad binaryType", "bad close code")

	_, err := runInit(t, `
import { WebSocket } from "k6/websockets";
new WebSocket("ws://127.0.0.1:1/");
export default function () {}`)
	require.ErrorContains(t, err, "init context")
}

// TestWebSocketSendDataView: a DataView is sent as the bytes it views; a number as
// its text.
func TestWebSocketSendDataView(t *testing.T) {
	url := echoURL(t)
	h, ok, _ := run(t, `
import { WebSocket } from "k6/websockets";
import { check } from "k6";
export default function () {
  const ws = new WebSocket("`+url+`");
  ws.binaryType = "arraybuffer";
  const got = [];
  ws.onopen = () => { ws.send(new DataView(new Uint8Array([5, 6, 7]).buffer, 1, 2)); ws.send(42); };
  ws.onmessage = (e) => {
    got.push(typeof e.data === "string" ? e.data : Array.from(new Uint8Array(e.data)).join(","));
    if (got.length === 2) {
      check(got, { "dataview bytes, number as text": (g) => g[0] === "6,7" && g[1] === "42" });
      ws.close();
    }
  };
}`)
	require.True(t, ok)
	requireChecks(t, h, "dataview bytes, number as text")
}
