package request

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
)

// TestMemoryPerVU measures the live heap and stacks one VU's client holds while
// its request is in flight, without GC slack. Set TIDEMARK_MEM_VUS to run it.
func TestMemoryPerVU(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TIDEMARK_MEM_VUS"))
	if n == 0 {
		t.Skip("set TIDEMARK_MEM_VUS")
	}
	url := os.Getenv("TIDEMARK_MEM_URL")
	if url == "" {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			time.Sleep(3 * time.Second)
			_, _ = w.Write([]byte("ok\n"))
		}))
		defer srv.Close()
		url = srv.URL
	}
	pool := metrics.NewTagPool()
	env := &Env{Pusher: metrics.PusherFunc(func([]metrics.Sample) {}), Metrics: metrics.RegisterBuiltin(metrics.NewRegistry()), Pool: pool}
	u, _ := scenario.ParseTemplate(url + "/")
	st, _ := Compile(&scenario.Step{URL: u}, []metrics.Tag{{Key: "scenario", Value: "m"}}, pool, "")
	var heap, stack uint64
	measure := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap, stack = ms.HeapInuse, ms.StackInuse
		return ms.HeapInuse + ms.StackInuse
	}
	before := measure()
	h0, s0 := heap, stack
	var wg sync.WaitGroup
	clients := make([]*Client, n)
	for i := range clients {
		bs, _ := strconv.Atoi(os.Getenv("TIDEMARK_MEM_BUF"))
		clients[i] = NewClient(env, Options{ReadBufferSize: bs, WriteBufferSize: bs})
		c := clients[i]
		wg.Go(func() {
			for range 2 {
				c.Do(context.Background(), st, &scenario.Vars{})
			}
		})
	}
	time.Sleep(4500 * time.Millisecond) // the second request of every VU is in flight
	during := measure()
	t.Logf("VUs=%d: %.1f KiB per VU (heap+stacks, no GC slack): heap %.1f KiB, stacks %.1f KiB", n, float64(during-before)/float64(n)/1024,
		float64(heap-h0)/float64(n)/1024, float64(stack-s0)/float64(n)/1024)
	if p := os.Getenv("TIDEMARK_MEM_HEAPPROFILE"); p != "" {
		f, err := os.Create(p)
		if err == nil {
			_ = pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
		}
	}
	wg.Wait()
}
