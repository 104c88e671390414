package browser_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/browser"
	"github.com/tidemark/tidemark/internal/js"
	k6browser "github.com/tidemark/tidemark/internal/js/modules/browser"
	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// pizzaHome is a small page in the place of quickpizza.grafana.com's: it calls two
// APIs and loads an image when it loads, and its button orders a pizza whose name it
// shows (its script does not spell "Name:", which getByText would find in it).
const pizzaHome = `<!doctype html><html><head><title>QuickPizza</title></head><body>
<h1>QuickPizza</h1><img src="/images/pizza.png" alt="pizza">
<button id="order">Pizza, Please!</button><div id="result"></div>
<script>
fetch('/api/tools').catch(() => null);
fetch('/api/config').then((r) => r.json()).catch(() => null);
document.getElementById('order').addEventListener('click', () => {
	fetch('/api/pizza', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ maxCalories: 1000 }) })
		.then((r) => r.json()).then((j) => { document.getElementById('result').textContent = ['Name', j.pizza.name].join(': '); });
});
</script></body></html>`

// startPizza serves pizzaHome and its APIs over TLS.
func startPizza(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(pizzaHome))
	})
	mux.HandleFunc("/test.k6.io/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<!doctype html><title>test.k6.io</title><h1>test.k6.io</h1>"))
	})
	mux.HandleFunc("/images/pizza.png", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/api/pizza" {
			_, _ = w.Write([]byte(`{"ok":true}`))
			return
		}
		var in struct {
			CustomName string `json:"customName"`
		}
		_ = json.NewDecoder(r.Body).Decode(&in)
		name := in.CustomName
		if name == "" {
			name = "Pepperoni Dream"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"pizza": map[string]any{"name": name}})
	})
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // Chromium's handshakes before it ignores the certificate
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// TestBrowserK6EventExamples runs k6's page.on and page.route examples unchanged,
// with Chromium resolving quickpizza.grafana.com to a local stand-in (pizzaHome):
// every check passes, the runs exit 0 and the handlers log what the examples print.
func TestBrowserK6EventExamples(t *testing.T) {
	t.Parallel()
	addr := startPizza(t)
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	lookup := func(name string) (string, bool) {
		if name == browser.EnvArgs {
			return "host-resolver-rules=MAP quickpizza.grafana.com 127.0.0.1:" + port + ",ignore-certificate-errors", true
		}
		return "", false
	}
	dir := filepath.Join("..", "..", "testdata", "realworld", "k6", "examples", "browser")
	for name, want := range map[string]struct {
		checks int
		logs   []string
	}{
		"pageon.js":                 {checks: 4},
		"pageon-request.js":         {logs: []string{"https://quickpizza.grafana.com/api/tools", "https://quickpizza.grafana.com/images/pizza.png"}},
		"pageon-requestfinished.js": {logs: []string{"✓ Request finished: GET https://quickpizza.grafana.com/api/config", "API requests: 2"}},
		"pageon-requestfailed.js":   {logs: []string{"Request failed: https://does-not-exist.invalid/", "Error: net::ERR_NAME_NOT_RESOLVED"}},
		"pageon-metric.js":          {},
		"route.js":                  {checks: 4, logs: []string{"on response url https://quickpizza.grafana.com/api/pizza"}},
		"route_continue.js":         {checks: 1},
	} {
		t.Run(name, func(t *testing.T) {
			reg := js.DefaultModules()
			reg.Replace("k6/browser", k6browser.NewWith(k6browser.Options{Lookup: lookup}))
			logs := &modulestest.LogBuffer{}
			out := modulestest.RunTest(t, filepath.Join(dir, name), nil, modulestest.WithModules(reg),
				modulestest.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
			require.NoError(t, out.Err, out.Summary+logs.String())
			require.Equal(t, 0, out.ExitCode, out.Summary)
			if want.checks > 0 {
				require.Regexp(t, fmt.Sprintf(`checks_succeeded\.+: 100\.00%% %d out of %d\n`, want.checks, want.checks), out.Summary, logs.String())
			}
			for _, l := range want.logs {
				require.Contains(t, logs.String(), l)
			}
		})
	}
}
