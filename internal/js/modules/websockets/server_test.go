package websockets_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gws "github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/metrics"
)

// peer serves WebSockets that end or ping on their own: /close1011 closes with 1011
// "oops", /drop drops the TCP connection, /ping pings and answers "ponged" once
// the client's pong came back, /headers sends back the handshake's X-Test and
// Cookie. It speaks the subprotocol "chat" and permessage-deflate when asked.
func peer(t *testing.T) string {
	t.Helper()
	up := gws.Upgrader{Subprotocols: []string{"chat"}, EnableCompression: true}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		deadline := time.Now().Add(5 * time.Second)
		switch r.URL.Path {
		case "/close1011":
			_ = c.WriteControl(gws.CloseMessage, gws.FormatCloseMessage(1011, "oops"), deadline)
			_, _, _ = c.ReadMessage()
		case "/drop":
			return
		case "/headers":
			_ = c.WriteMessage(gws.TextMessage, []byte(r.Header.Get("X-Test")+"|"+r.Header.Get("Cookie")))
			_, _, _ = c.ReadMessage()
		case "/ping":
			c.SetPongHandler(func(string) error { return c.WriteMessage(gws.TextMessage, []byte("ponged")) })
			_ = c.WriteControl(gws.PingMessage, []byte("p"), deadline)
			for {
				if _, _, err := c.ReadMessage(); err != nil {
					return
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// TestServerEnds: a server's close frame and a dropped connection, in both modules.
func TestServerEnds(t *testing.T) {
	base := peer(t)
	h, ok, _ := run(t, `
import ws from "k6/ws";
import { WebSocket } from "k6/websockets";
import { check } from "k6";
export default function () {
  const legacy = [];
  ws.connect("`+base+`/close1011", function (socket) {
    socket.on("error", (e) => legacy.push("error:" + e.error()));
    socket.on("close", (code) => legacy.push("close:" + code));
  });
  check(legacy, { "ws: error then close 1011": (l) => l.length === 2 && l[0].includes("close 1011") && l[1] === "close:1011" });
  const dropped = [];
  ws.connect("`+base+`/drop", function (socket) {
    socket.on("error", () => dropped.push("error"));
    socket.on("close", (code) => dropped.push("close:" + code));
  });
  check(dropped, { "ws: dropped is error then 1006": (l) => l.join(",") === "error,close:1006" });

  const a = new WebSocket("`+base+`/close1011");
  a.onclose = (e) => check(e, { "websockets: close 1011 oops": (e) => e.code === 1011 && e.reason === "oops" && e.wasClean });
  const b = new WebSocket("`+base+`/drop");
  const seen = [];
  b.onerror = () => seen.push("error");
  b.onclose = (e) => { seen.push("close:" + e.code); check(seen, { "websockets: dropped is error then 1006": (s) => s.join(",") === "error,close:1006" }); };
}`)
	require.True(t, ok)
	requireChecks(t, h, "ws: error then close 1011", "ws: dropped is error then 1006", "websockets: close 1011 oops", "websockets: dropped is error then 1006")
}

// TestServerPing: a ping from the server is an event and gets its pong back.
func TestServerPing(t *testing.T) {
	base := peer(t)
	h, ok, _ := run(t, `
import ws from "k6/ws";
import { WebSocket } from "k6/websockets";
import { check } from "k6";
export default function () {
  let pinged = 0;
  ws.connect("`+base+`/ping", function (socket) {
    socket.on("ping", () => pinged++);
    socket.on("message", (m) => { check(m, { "ws: pong reached the server": (m) => m === "ponged" && pinged === 1 }); socket.close(); });
  });
  const w = new WebSocket("`+base+`/ping");
  let wpinged = 0;
  w.onping = () => wpinged++;
  w.onmessage = (e) => { check(e, { "websockets: pong reached the server": (e) => e.data === "ponged" && wpinged === 1 }); w.close(); };
}`)
	require.True(t, ok)
	requireChecks(t, h, "ws: pong reached the server", "websockets: pong reached the server")
}

// TestInterrupted: an iteration that ends (gracefulStop, the end of the run) while a
// socket is open closes the socket and still emits the session's end.
func TestInterrupted(t *testing.T) {
	url := echoURL(t)
	for _, script := range []string{
		`import { WebSocket } from "k6/websockets";
export default function () { new WebSocket("` + url + `"); }`,
		`import ws from "k6/ws";
export default function () { ws.connect("` + url + `", function (socket) {}); }`,
	} {
		h := modulestest.Start(t, map[string]string{"script.js": script})
		var opened, ended atomic.Int64
		h.Env.Pusher = metrics.PusherFunc(func(ss []metrics.Sample) {
			for _, s := range ss {
				switch s.Metric.Name {
				case "ws_sessions":
					opened.Add(1)
				case "ws_session_duration":
					ended.Add(1)
				}
			}
		})
		vu := h.VUs(t, 1)[0]
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan bool)
		go func() { done <- vu.Iterate(ctx) }()
		require.Eventually(t, func() bool { return opened.Load() == 1 }, 10*time.Second, time.Millisecond)
		cancel()
		require.False(t, <-done, "an interrupted iteration is not complete")
		require.Eventually(t, func() bool { return ended.Load() == 1 }, 10*time.Second, time.Millisecond)
	}
}

// TestParams: headers, the jar's cookies, compression, protocols and the name tag
// reach the handshake and the samples, in both modules.
func TestParams(t *testing.T) {
	base := peer(t)
	h, ok, _ := run(t, `
import ws from "k6/ws";
import http from "k6/http";
import { WebSocket } from "k6/websockets";
import { check } from "k6";
export default function () {
  const jar = new http.CookieJar();
  jar.set("http://`+strings.TrimPrefix(base, "ws://")+`/", "session", "abc");
  const params = { headers: { "X-Test": "yes" }, jar: jar, compression: "deflate", tags: { name: "the-chat" } };
  const res = ws.connect("`+base+`/headers", params, function (socket) {
    socket.on("message", (m) => { check(m, { "ws: headers and cookie": (m) => m === "yes|session=abc" }); socket.close(); });
  });
  check(res, { "ws: deflate negotiated": (r) => r.headers["Sec-Websocket-Extensions"].includes("permessage-deflate") });
  const w = new WebSocket("`+base+`/headers", ["chat"], params);
  w.onmessage = (e) => {
    check(w, {
      "websockets: headers and cookie": () => e.data === "yes|session=abc",
      "websockets: protocol": (w) => w.protocol === "chat",
      "websockets: extensions": (w) => w.extensions.includes("permessage-deflate"),
    });
    w.close();
  };
}`)
	require.True(t, ok)
	requireChecks(t, h, "ws: headers and cookie", "ws: deflate negotiated", "websockets: headers and cookie", "websockets: protocol", "websockets: extensions")
	sessions := h.Collector.Of("ws_sessions")
	require.Len(t, sessions, 2)
	require.Equal(t, "the-chat", tagsOf(sessions[0])["url"])
	require.Equal(t, "the-chat", tagsOf(sessions[1])["name"])
	require.Equal(t, "chat", tagsOf(sessions[1])["subproto"])
	_, hasSub := tagsOf(sessions[0])["subproto"]
	require.False(t, hasSub)
}
