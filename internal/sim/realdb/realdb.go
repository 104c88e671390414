// Package realdb is the database side of a simulated cluster whose pods are real
// processes (the process runtime): it provides the profile's real server (a throwaway
// PostgreSQL or MariaDB, or the one named by database.dsn) with its exporter, gives each
// pod the flags and environment of its connection pool (sim.TargetDB), serves every
// pod's own metrics (its pool) on one path labelled by pod (package podmetrics), and
// writes the scrape jobs of both. A runtime calls Start before its first pod, PodArgs for
// each pod it launches, adds ScrapeJobs to its scrape configuration and calls Close after
// its last pod has stopped.
package realdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/tidemark/tidemark/internal/dbserver"
	"github.com/tidemark/tidemark/internal/podmetrics"
	"github.com/tidemark/tidemark/internal/sim"
)

// PodsPath is where the pods' own metrics are served.
const PodsPath = "/metrics/pods"

// Enabled reports whether profile p asks for a real database (database.engine).
func Enabled(p *sim.Profile) bool { return p.Database != nil && p.Database.Engine != "" }

// DB is a running database side.
type DB struct {
	profile *sim.Profile
	db      *dbserver.Database
	srv     *http.Server
	addr    string
	served  chan error
}

// Start provides the profile's database and serves the pods' metrics, which pods
// returns at each scrape, on a loopback port. The caller must Close it.
func Start(ctx context.Context, p *sim.Profile, pods podmetrics.TargetsFunc, logger *slog.Logger) (*DB, error) {
	if !Enabled(p) {
		return nil, errors.New("start the real database: the profile has no database.engine")
	}
	db, err := dbserver.Provide(ctx, dbserver.Config{Engine: dbserver.Engine(p.Database.Engine), MaxConnections: p.Database.MaxConnections},
		string(p.Database.DSN), logger)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Join(fmt.Errorf("listen for the pods' metrics: %w", err), db.Close())
	}
	mux := http.NewServeMux()
	mux.Handle(PodsPath, podmetrics.New(pods, logger).Handler())
	d := &DB{profile: p, db: db, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, addr: ln.Addr().String(), served: make(chan error, 1)}
	go func() { d.served <- d.srv.Serve(ln) }()
	return d, nil
}

// PodArgs returns the `tidemark target` flags and the environment (the DSN) of pod, a
// pod of svc; both nil when the service runs no queries.
func (d *DB) PodArgs(svc sim.ServiceSpec, pod string) (args, env []string) {
	return sim.TargetDB(svc, d.profile.Database, d.db.DSN, pod)
}

// ExporterAddr is the host:port of the database exporter's /metrics.
func (d *DB) ExporterAddr() string { return d.db.Exporter.Addr() }

// PodsURL is the URL of the pods' metrics.
func (d *DB) PodsURL() string { return "http://" + d.addr + PodsPath }

// ScrapeJobs returns scrape_configs entries (YAML list items, indented for a
// scrape_configs: key) for the exporter, as a static job named as in Debian's
// prometheus.yml (postgres, mysqld), and for the pods' metrics, whose namespace, pod and
// container labels are kept (honor_labels) as a PodMonitor's are.
func (d *DB) ScrapeJobs() string {
	job := "postgres"
	if d.profile.Database.Engine == sim.EngineMariaDB {
		job = "mysqld"
	}
	return fmt.Sprintf(`  - job_name: %s
    static_configs: [{targets: [%q]}]
  - job_name: pods
    honor_labels: true
    metrics_path: %s
    static_configs: [{targets: [%q]}]
`, job, d.ExporterAddr(), PodsPath, d.addr)
}

// Close stops serving the pods' metrics and stops what Start provided (the server, or
// the exporter of a given DSN).
func (d *DB) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := d.srv.Shutdown(ctx)
	if serr := <-d.served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	d.served <- http.ErrServerClosed // a second Close returns at once
	return errors.Join(err, d.db.Close())
}
