package websockets_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gws "github.com/gorilla/websocket"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/target"
	"github.com/tidemark/tidemark/internal/target/targettest"
)

// roundTrips is how many messages one benchmark iteration sends and gets back.
const roundTrips = 1000

// BenchmarkMessages is one VU's message throughput against the target's echo: each
// op is an iteration that opens a socket, sends a message and sends the next when
// the echo arrives, roundTrips times, then closes. msgs/s counts both directions.
func BenchmarkMessages(b *testing.B) {
	_, base := targettest.Start(b, target.Config{})
	url := "ws" + strings.TrimPrefix(base, "http") + "/ws"
	n := strconv.Itoa(roundTrips)
	for _, bc := range []struct{ name, script string }{
		{"websockets", `
import { WebSocket } from "k6/websockets";
export default function () {
  const ws = new WebSocket("` + url + `");
  let left = ` + n + `;
  ws.onopen = () => ws.send("0123456789abcdef");
  ws.onmessage = (e) => { if (--left === 0) ws.close(); else ws.send(e.data); };
}`},
		{"ws", `
import ws from "k6/ws";
export default function () {
  ws.connect("` + url + `", function (socket) {
    let left = ` + n + `;
    socket.on("open", () => socket.send("0123456789abcdef"));
    socket.on("message", (m) => { if (--left === 0) socket.close(); else socket.send(m); });
  });
}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := modulestest.Start(b, map[string]string{"script.js": bc.script})
			h.Env.Pusher = metrics.PusherFunc(func([]metrics.Sample) {})
			vu := h.VUs(b, 1)[0]
			ctx := context.Background()
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				if !vu.Iterate(ctx) {
					b.Fatal("the iteration did not complete")
				}
			}
			b.ReportMetric(float64(2*roundTrips*b.N)/time.Since(start).Seconds(), "msgs/s")
		})
	}
}

// BenchmarkVUMemory is the heap each VU holds with one open k6/websockets socket:
// vus VUs each open a socket to the target's broadcast room and keep it until a
// "stop" arrives; the heap is measured once every socket is open.
func BenchmarkVUMemory(b *testing.B) {
	const vus = 200
	_, base := targettest.Start(b, target.Config{})
	room := "ws" + strings.TrimPrefix(base, "http") + "/ws/broadcast"
	for b.Loop() {
		h := modulestest.Start(b, map[string]string{"script.js": `
import { WebSocket } from "k6/websockets";
export default function () {
  const ws = new WebSocket("` + room + `");
  ws.onmessage = (e) => { if (e.data === "stop") ws.close(); };
}`})
		var opened atomic.Int64
		h.Env.Pusher = metrics.PusherFunc(func(ss []metrics.Sample) {
			for _, s := range ss {
				if s.Metric.Name == "ws_sessions" {
					opened.Add(1)
				}
			}
		})
		before := heapInUse()
		list := h.VUs(b, vus)
		var wg sync.WaitGroup
		for _, vu := range list {
			wg.Go(func() { vu.Iterate(context.Background()) })
		}
		for opened.Load() < vus {
			time.Sleep(time.Millisecond)
		}
		b.ReportMetric(float64(heapInUse()-before)/vus, "heap-bytes/VU")
		stop, _, err := gws.DefaultDialer.Dial(room, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := stop.WriteMessage(gws.TextMessage, []byte("stop")); err != nil {
			b.Fatal(err)
		}
		wg.Wait()
		_ = stop.Close()
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
