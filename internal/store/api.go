package store

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	remoteapi "github.com/prometheus/client_golang/exp/api/remote"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/route"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/prometheus/prometheus/config"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/rules"
	"github.com/prometheus/prometheus/scrape"
	"github.com/prometheus/prometheus/tsdb"
	"github.com/prometheus/prometheus/util/notifications"
	apiv1 "github.com/prometheus/prometheus/web/api/v1"
)

// newHandler wires Prometheus' own HTTP API (web/api/v1) over the store, so that every
// answer has exactly Prometheus' JSON. The API also creates the remote-write receiver
// (storage/remote.NewWriteHandler); there must be only one per registry.
func (s *Store) newHandler(reg prometheus.Registerer, p parser.Parser) (http.Handler, error) {
	gatherer, ok := reg.(prometheus.Gatherer)
	if !ok {
		gatherer = prometheus.NewRegistry()
	}
	externalURL, err := url.Parse(s.cfg.ExternalURL)
	if err != nil {
		return nil, &ConfigError{Err: fmt.Errorf("parse external url %q: %w", s.cfg.ExternalURL, err)}
	}
	buildInfo := prometheusVersion()
	// The remote-write receiver and the fast path append through the same limits.
	appendable := limitAppendable{db: s.db, maxLabels: s.cfg.MaxLabelsPerSeries, maxValueLen: s.cfg.MaxLabelValueLength}
	api := apiv1.NewAPI(
		s.engine,
		s.db,
		appendable,
		s.db,
		func(context.Context) apiv1.ScrapePoolsRetriever { return s.scrape },
		func(context.Context) apiv1.TargetRetriever { return s.scrape },
		func(context.Context) apiv1.AlertmanagerRetriever { return noAlertmanagers{} },
		func() config.Config { return *s.prometheusConfig() },
		s.flags(),
		apiv1.GlobalURLOptions{ListenAddress: externalURL.Host, Host: externalURL.Host, Scheme: externalURL.Scheme},
		func(f http.HandlerFunc) http.HandlerFunc { return f },
		adminStats{s.db},
		s.cfg.Dir,
		false, // enableAdmin: no delete/snapshot over HTTP.
		false, // enableSearch: experimental.
		0,
		s.logger.With("component", "api"),
		func(context.Context) apiv1.RulesRetriever { return noRules{} },
		// Remote read limits: Prometheus' defaults of --storage.remote.read-*.
		50_000_000, 10, 1_048_576,
		false, // isAgent
		nil,   // CORS origin: none.
		s.runtimeInfo,
		buildInfo,
		func() []notifications.Notification { return nil },
		func() (<-chan notifications.Notification, func(), bool) { return nil, func() {}, false },
		gatherer,
		reg,
		nil,  // stats renderer: default.
		true, // remote-write receiver
		remoteapi.MessageTypes{remoteapi.WriteV1MessageType, remoteapi.WriteV2MessageType},
		false, false, false, // OTLP receiver off.
		s.cfg.LookbackDelta,
		false, // type-and-unit labels
		false, // append metadata to the WAL
		nil,
		nil, // feature registry
		apiv1.OpenAPIOptions{ExternalURL: s.cfg.ExternalURL, Version: buildInfo.Version},
		p,
		false,
		s.cfg.QueryTimeout,
	)

	requestDuration := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace,
		Subsystem: "store",
		Name:      "http_request_duration_seconds",
		Help:      "Duration of HTTP requests to the embedded store's API, by route.",
		Buckets:   prometheus.DefBuckets,
	}, []string{"handler"})
	if err := reg.Register(requestDuration); err != nil {
		return nil, fmt.Errorf("register store metrics: %w", err)
	}
	av1 := route.New().WithInstrumentation(func(name string, h http.HandlerFunc) http.HandlerFunc {
		return promhttp.InstrumentHandlerDuration(requestDuration.MustCurryWith(prometheus.Labels{"handler": "/api/v1" + name}), h)
	})
	api.Register(av1)

	landing, err := web.NewLandingPage(s.landingConfig())
	if err != nil {
		return nil, fmt.Errorf("create landing page: %w", err)
	}
	mux := http.NewServeMux()
	apiHandler := http.StripPrefix("/api/v1", av1)
	mux.Handle("/api/v1/", apiHandler)
	guard := newQueryGuard(s.cfg, p, s.evaluationInterval, apiHandler)
	for _, path := range queryPaths {
		mux.Handle(path, guard)
	}
	var fast *fastWrite
	if !s.cfg.noFastWrite {
		writeDuration := requestDuration.WithLabelValues("/api/v1/write")
		fast = newFastWrite(appendable, time.Now, func(d time.Duration) { writeDuration.Observe(d.Seconds()) })
	}
	writeRequests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace,
		Subsystem: "store",
		Name:      "remote_write_requests_total",
		Help:      "Remote-write requests by the path that answered them: fast (plain 1.0 requests of float samples) or prometheus (Prometheus' receiver: every other request).",
	}, []string{"path"})
	if err := reg.Register(writeRequests); err != nil {
		return nil, fmt.Errorf("register store metrics: %w", err)
	}
	mux.Handle("POST /api/v1/write", clearWriteErrors(apiHandler, fast, writeRequests, s.cfg.MaxLabelValueLength, s.db.refusing))
	mux.HandleFunc("/-/ready", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = fmt.Fprintln(w, "Tidemark store is Ready.")
	})
	mux.HandleFunc("/-/healthy", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = fmt.Fprintln(w, "Tidemark store is Healthy.")
	})
	mux.Handle("/", landing)
	return mux, nil
}

// namespace is the namespace of Tidemark's own metrics.
const namespace = "tidemark"

func (s *Store) landingConfig() web.LandingConfig {
	return web.LandingConfig{
		Name: "Tidemark store",
		Description: "The embedded Prometheus of Tidemark: Prometheus' own TSDB, PromQL engine, " +
			"remote-write receiver (1.0 and 2.0, native histograms) and HTTP API. " +
			"In Grafana, add a Prometheus data source with this page's URL (without a path) " +
			"as the Prometheus server URL, type Prometheus, version " + prometheusVersion().Version + ". " +
			"Remote-write to /api/v1/write.",
		Version: s.cfg.Version,
		Links: []web.LandingLinks{
			{Address: "api/v1/status/buildinfo", Text: "Build info", Description: "What Grafana reads to detect the server"},
			{Address: "api/v1/labels", Text: "Labels", Description: "Prometheus HTTP API (/api/v1)"},
			{Address: "api/v1/query?query=up", Text: "Query", Description: "Instant query: up"},
			{Address: "api/v1/targets", Text: "Targets", Description: "Scrape targets"},
			{Address: "api/v1/status/tsdb", Text: "TSDB status", Description: "Head series and cardinality"},
			{Address: "metrics", Text: "Metrics", Description: "The server's own metrics"},
			{Address: "https://grafana.com/docs/grafana/latest/datasources/prometheus/configure/", Text: "Grafana data source settings", Description: "How to add a Prometheus data source"},
		},
	}
}

func (s *Store) flags() map[string]string {
	return map[string]string{
		"storage.tsdb.path":                s.cfg.Dir,
		"storage.tsdb.retention.time":      s.cfg.Retention.String(),
		"storage.tsdb.retention.size":      fmt.Sprint(s.cfg.RetentionSize),
		"query.lookback-delta":             s.cfg.LookbackDelta.String(),
		"query.timeout":                    s.cfg.QueryTimeout.String(),
		"query.max-samples":                fmt.Sprint(s.cfg.MaxSamples),
		"web.enable-remote-write-receiver": "true",
	}
}

func (s *Store) runtimeInfo() (apiv1.RuntimeInfo, error) {
	cwd, _ := os.Getwd()
	host, _ := os.Hostname()
	retention := s.cfg.Retention.String()
	if s.cfg.RetentionSize > 0 {
		retention += fmt.Sprintf(" or %dB", s.cfg.RetentionSize)
	}
	return apiv1.RuntimeInfo{
		StartTime:           s.started,
		CWD:                 cwd,
		Hostname:            host,
		ServerTime:          time.Now().UTC(),
		ReloadConfigSuccess: true,
		LastConfigTime:      s.started,
		GoroutineCount:      runtime.NumGoroutine(),
		GOMAXPROCS:          runtime.GOMAXPROCS(0),
		GOMEMLIMIT:          debug.SetMemoryLimit(-1),
		GOGC:                os.Getenv("GOGC"),
		GODEBUG:             os.Getenv("GODEBUG"),
		StorageRetention:    retention,
	}, nil
}

// prometheusVersion is what /api/v1/status/buildinfo reports. Grafana reads the version to
// decide which API features the server has, so it is the version of the Prometheus
// libraries the store is built from (module v0.316.0 is Prometheus 3.16.0); the revision and
// branch are Tidemark's own.
func prometheusVersion() *apiv1.PrometheusVersion {
	v := "3.16.0"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/prometheus/prometheus" {
				v = promModuleToRelease(m.Version, v)
			}
		}
	}
	return &apiv1.PrometheusVersion{
		Version:   v,
		Revision:  version.Revision,
		Branch:    version.Branch,
		BuildUser: version.BuildUser,
		BuildDate: version.BuildDate,
		GoVersion: runtime.Version(),
	}
}

// promModuleToRelease turns the Go module version of Prometheus (v0.MMmpp.x, e.g.
// v0.316.0) into its release version (3.16.0), or returns fallback.
func promModuleToRelease(modVersion, fallback string) string {
	var minor, patch int
	if _, err := fmt.Sscanf(strings.TrimPrefix(modVersion, "v0."), "%d.%d", &minor, &patch); err != nil || minor < 100 {
		return fallback
	}
	return fmt.Sprintf("%d.%d.%d", minor/100, minor%100, patch)
}

// noAlertmanagers and noRules stand in for Prometheus' notifier and rule manager, which
// the store does not run: /api/v1/alertmanagers, /rules and /alerts answer empty lists.
type (
	noAlertmanagers struct{}
	noRules         struct{}
)

func (noAlertmanagers) Alertmanagers() []*url.URL        { return nil }
func (noAlertmanagers) DroppedAlertmanagers() []*url.URL { return nil }
func (noRules) RuleGroups() []*rules.Group               { return nil }
func (noRules) AlertingRules() []*rules.AlertingRule     { return nil }

// adminStats adapts the TSDB to what /api/v1/status/tsdb and friends need, as
// cmd/prometheus's readyStorage does; it fails while the TSDB is being reopened.
type adminStats struct{ db *liveDB }

// with calls f with the current TSDB, held until f returns.
func (a adminStats) with(f func(db *tsdb.DB) error) error {
	g, err := a.db.acquire()
	if err != nil {
		return err
	}
	defer g.users.Done()
	return f(g.db)
}

func (a adminStats) CleanTombstones() error {
	return a.with(func(db *tsdb.DB) error { return db.CleanTombstones() })
}

func (a adminStats) Delete(ctx context.Context, mint, maxt int64, ms ...*labels.Matcher) error {
	return a.with(func(db *tsdb.DB) error { return db.Delete(ctx, mint, maxt, ms...) })
}

func (a adminStats) Snapshot(dir string, withHead bool) error {
	return a.with(func(db *tsdb.DB) error { return db.Snapshot(dir, withHead) })
}

func (a adminStats) Stats(statsByLabelName string, limit int) (st *tsdb.Stats, err error) {
	err = a.with(func(db *tsdb.DB) error {
		st = db.Head().Stats(statsByLabelName, limit)
		return nil
	})
	return st, err
}

func (a adminStats) WALReplayStatus() (tsdb.WALReplayStatus, error) {
	// Open (and a reopen) returns only after the WAL has been replayed.
	return tsdb.WALReplayStatus{}, nil
}

func (a adminStats) BlockMetas() (m []tsdb.BlockMeta, err error) {
	err = a.with(func(db *tsdb.DB) error {
		m = db.BlockMetas()
		return nil
	})
	return m, err
}

var (
	_ apiv1.TSDBAdminStats        = adminStats{}
	_ apiv1.AlertmanagerRetriever = noAlertmanagers{}
	_ apiv1.RulesRetriever        = noRules{}
	_ apiv1.TargetRetriever       = (*scrape.Manager)(nil)
	_ apiv1.ScrapePoolsRetriever  = (*scrape.Manager)(nil)
)
