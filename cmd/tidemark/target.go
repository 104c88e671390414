package main

import (
	"context"
	"fmt"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/tidemark/tidemark/internal/dbpool"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/sim/workload"
	"github.com/tidemark/tidemark/internal/target"
)

// defaultTargetAddress is where `tidemark target` listens: loopback only.
const defaultTargetAddress = "127.0.0.1:8099"

const targetHelp = `Run the built-in HTTP target: a loopback server with configurable latency, CPU work
and errors that counts what it served (GET /stats for JSON, /metrics for Prometheus).
Every path but /stats, /healthz, /metrics, /ws (WebSocket echo), /ws/broadcast (a room) and
test.k6.io's pages (/news.php, /my_messages.php, /login.php, /contacts.php, /browser.php, /pi.php,
/flip_coin.php, /static/) and /page?backend=URL (a page whose LCP image waits for URL's answer)
is load; query parameters override: ?delay=1s&status=503&size=100&cpu=1ms.
It also serves a QuickPizza stand-in (home page, login and admin pages, pizza API) on
--quickpizza.listen-address, where QuickPizza's k6 scripts look without BASE_URL.

Examples:
  tidemark target                                           # 127.0.0.1:8099, "ok\n" at once
  tidemark target --latency=lognormal:20ms,0.5 --error-ratio=0.01
  tidemark target --cpu-work=2ms --web.listen-address=127.0.0.1:9000
  curl -s 127.0.0.1:8099/stats                              # what it served, by status
  tidemark run quickpizza/k6/browser/01.basic.js            # QuickPizza on 127.0.0.1:3333

Compare /stats with tidemark run's http_reqs: they agree exactly.`

type targetConfig struct {
	listen, latency       string
	cpuWork               time.Duration
	errorRatio            float64
	errorStatus, bodySize int
	db                    dbpool.Config
}

// targetCmd is `tidemark target`: the built-in HTTP target for examples, tests and
// benchmarks.
func targetCmd(app *kingpin.Application, g *globals) (*kingpin.CmdClause, action) {
	cfg := &targetConfig{}
	cmd := app.Command("target", targetHelp)
	cmd.Flag("web.listen-address", "Address to listen on.").Default(defaultTargetAddress).StringVar(&cfg.listen)
	grpcAddr := cmd.Flag("grpc.listen-address", "Address of the gRPC target (k6's example services, health, reflection); empty: off.").Default(target.DefaultGRPCAddress).String()
	qpAddr := cmd.Flag("quickpizza.listen-address", "Address of the QuickPizza stand-in (its pages and API, for QuickPizza's k6 scripts); empty: off.").Default(target.DefaultQuickPizzaAddress).String()
	cmd.Flag("latency", "Added latency: a duration (10ms), fixed:D, uniform:MIN,MAX, normal:MEAN,STDDEV or lognormal:MEDIAN,SIGMA.").
		Default("0").StringVar(&cfg.latency)
	cmd.Flag("cpu-work", "Busy CPU time per request, e.g. 200us.").Default("0s").DurationVar(&cfg.cpuWork)
	cmd.Flag("error-ratio", "Share of requests, 0 to 1, answered with --error-status.").Default("0").Float64Var(&cfg.errorRatio)
	cmd.Flag("error-status", "Status of error responses.").Default("500").IntVar(&cfg.errorStatus)
	cmd.Flag("body-size", "Response body size in bytes.").Default("3").IntVar(&cfg.bodySize)
	dbpool.AddFlags(cmd, &cfg.db)
	pod := workload.BindFlags(cmd) // --pod.*: a pod of the process runtime (internal/sim/process)
	return cmd, func(ctx context.Context) error { return runTarget(ctx, cfg, *grpcAddr, *qpAddr, pod, g) }
}

func runTarget(ctx context.Context, cfg *targetConfig, grpcAddr, qpAddr string, pod *workload.Flags, g *globals) error {
	if pod.Enabled() {
		return pod.Run(ctx, cfg.listen, cfg.db, g.logger())
	}
	lat, err := target.ParseLatency(cfg.latency)
	if err != nil {
		return exitcode.Invalid(fmt.Errorf("--latency: %w", err))
	}
	srv, err := target.New(target.Config{Latency: lat, CPUWork: cfg.cpuWork, ErrorRatio: cfg.errorRatio, ErrorStatus: cfg.errorStatus, BodySize: cfg.bodySize, Pool: cfg.db})
	if err != nil {
		return exitcode.Invalid(err)
	}
	return srv.ListenAndServeAll(ctx, cfg.listen, grpcAddr, qpAddr, 5*time.Second, g.logger())
}
