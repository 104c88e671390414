package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/config"
	"github.com/prometheus/sigv4"

	"github.com/tidemark/tidemark/internal/barrier"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/remotewrite"
)

// distributedFlags are the flags of `tidemark run` for one instance of a run split over
// several (a Kubernetes Indexed Job): its share of the load and its synchronized start.
type distributedFlags struct {
	// instances is N, the number of instances of the run (1: not distributed).
	// Other flags read it (e.g. a summary at the end of the last instance).
	instances int
	// instanceIndex is this instance's index, 0..N-1 ("" when not given).
	instanceIndex string
	// startAt is --start-at as given (RFC 3339), parsed into start by apply.
	startAt string
	start   time.Time
	// startTimeout bounds the wait for all N to be ready.
	startTimeout time.Duration
	// promURL is the query API the barrier reads readiness from.
	promURL      string
	pollInterval time.Duration
	margin       time.Duration
}

// addDistributedFlags registers the distributed-run flags on the run command.
func addDistributedFlags(cmd *kingpin.CmdClause) *distributedFlags {
	d := &distributedFlags{}
	cmd.Flag("instances", "The number of instances the run is split over (an Indexed Job's completions). With --instance-index, "+
		"this instance runs the execution segment index/N:(index+1)/N of every scenario, labels its series instance_id=<index>, "+
		"and waits until all N are ready (or until --start-at) so that all start together. Also TIDEMARK_INSTANCES.").
		Default("1").Envar("TIDEMARK_INSTANCES").IntVar(&d.instances)
	cmd.Flag("instance-index", "This instance's index, 0 to --instances minus 1. Default: JOB_COMPLETION_INDEX, set by a Kubernetes Indexed Job.").
		Envar("JOB_COMPLETION_INDEX").StringVar(&d.instanceIndex)
	cmd.Flag("start-at", "Start at this wall-clock time (RFC 3339, e.g. 2026-05-01T10:00:00Z) instead of when all --instances are ready. "+
		"Needs synchronized clocks (NTP). Also TIDEMARK_START_AT.").
		Envar("TIDEMARK_START_AT").StringVar(&d.startAt)
	cmd.Flag("start-timeout", "How long an instance waits for all --instances to be ready; then it fails with exit code 102 saying how many were.").
		Default(barrier.DefaultTimeout.String()).DurationVar(&d.startTimeout)
	cmd.Flag("barrier.prometheus.url", "Prometheus-compatible query API the instances read each other's readiness from (the backend they remote-write to). "+
		"Default: derived from the first remote-write URL (Prometheus and VictoriaMetrics .../api/v1/write, VictoriaMetrics cluster /insert/<t>/prometheus/..., Mimir .../api/v1/push, Amazon Managed Prometheus .../api/v1/remote_write).").
		StringVar(&d.promURL)
	cmd.Flag("barrier.poll-interval", "How often an instance reads which instances are ready; N instances make N queries per interval.").
		Default(barrier.DefaultPollInterval.String()).DurationVar(&d.pollInterval)
	cmd.Flag("barrier.margin", "Added to the last instance's ready time, rounded up to a whole second, to give the start instant; must exceed the poll interval and the remote-write delay.").
		Default(barrier.DefaultMargin.String()).DurationVar(&d.margin)
	return d
}

// distributed reports whether the run waits for a start: several instances or --start-at.
func (d *distributedFlags) distributed() bool { return d.instances > 1 || d.startAt != "" }

// segmentOf returns the execution segment of instance i of n and the sequence of all
// n: i/n:(i+1)/n and 0,1/n,…,(n-1)/n,1, as k6-operator passes them.
func segmentOf(i, n int) (segment, sequence string) {
	frac := func(k int) string {
		switch k {
		case 0:
			return "0"
		case n:
			return "1"
		}
		return fmt.Sprintf("%d/%d", k, n)
	}
	seq := make([]string, 0, n+1)
	for k := 0; k <= n; k++ {
		seq = append(seq, frac(k))
	}
	return frac(i) + ":" + frac(i+1), strings.Join(seq, ",")
}

// apply checks the flags and derives this instance's execution segment and instance_id
// into c. Its errors are configuration errors.
func (d *distributedFlags) apply(c *runConfig) error {
	if d.startAt != "" {
		t, err := time.Parse(time.RFC3339Nano, d.startAt)
		if err != nil {
			return fmt.Errorf("--start-at %q: expected an RFC 3339 time such as 2026-05-01T10:00:00Z", d.startAt)
		}
		d.start = t
	}
	if d.instances < 1 {
		return fmt.Errorf("--instances %d: expected at least 1", d.instances)
	}
	if d.instances == 1 {
		return nil
	}
	if d.instanceIndex == "" {
		return fmt.Errorf("--instances %d needs --instance-index (or JOB_COMPLETION_INDEX, which an Indexed Job sets)", d.instances)
	}
	i, err := strconv.Atoi(d.instanceIndex)
	if err != nil || i < 0 || i >= d.instances {
		return fmt.Errorf("--instance-index %q: expected a whole number from 0 to %d (--instances %d)", d.instanceIndex, d.instances-1, d.instances)
	}
	if c.segment != "" || c.segmentSeq != "" {
		return fmt.Errorf("--instances %d with --execution-segment or --execution-segment-sequence: give one or the other", d.instances)
	}
	c.segment, c.segmentSeq = segmentOf(i, d.instances)
	if c.outputs.instanceID == "" {
		c.outputs.instanceID = strconv.Itoa(i)
	}
	if d.start.IsZero() {
		rw, err := c.outputs.remoteWriteConfigs("", "")
		if err != nil {
			return err
		}
		if len(rw) == 0 {
			return fmt.Errorf("--instances %d needs a remote-write URL (--remote-write.url or K6_PROMETHEUS_RW_SERVER_URL): "+
				"the instances find each other through that backend; or give --start-at", d.instances)
		}
		if d.promURL == "" {
			if d.promURL, err = queryURLOf(rw[0].URL.URL); err != nil {
				return err
			}
		}
	}
	return nil
}

// queryURLOf derives the query API's base URL from a remote-write URL of a known
// backend.
func queryURLOf(w *url.URL) (string, error) {
	u := *w
	u.RawQuery, u.Fragment = "", ""
	p := strings.TrimSuffix(u.Path, "/")
	switch {
	case strings.HasPrefix(p, "/insert/") && strings.HasSuffix(p, "/prometheus/api/v1/write"):
		// VictoriaMetrics cluster: vminsert /insert/<tenant>/prometheus/api/v1/write,
		// vmselect /select/<tenant>/prometheus.
		u.Path = "/select/" + strings.TrimSuffix(strings.TrimPrefix(p, "/insert/"), "/api/v1/write")
	case strings.HasSuffix(p, "/api/v1/write"):
		// Prometheus and single-node VictoriaMetrics serve both on one base.
		u.Path = strings.TrimSuffix(p, "/api/v1/write")
	case strings.HasSuffix(p, "/api/v1/remote_write"):
		// Amazon Managed Service for Prometheus: the workspace URL serves the query API.
		u.Path = strings.TrimSuffix(p, "/api/v1/remote_write")
	case strings.HasSuffix(p, "/api/v1/push"):
		// Mimir and Cortex: the Prometheus API under /prometheus.
		u.Path = strings.TrimSuffix(p, "/api/v1/push") + "/prometheus"
	default:
		return "", fmt.Errorf("remote-write URL %s: cannot tell where its query API is; set --barrier.prometheus.url", w.Redacted())
	}
	return u.String(), nil
}

// wait holds the run until its start instant (--start-at, or all --instances ready).
// A timeout exits 102 (k6's GenericTimeout), SIGINT/SIGTERM 105.
func (d *distributedFlags) wait(ctx context.Context, c *runConfig, logger *slog.Logger) error {
	if !d.distributed() {
		return nil
	}
	tags, err := parsePairs("tag", c.tags)
	if err != nil {
		return exitcode.Invalid(err)
	}
	testID := cmp.Or(c.testID, tags["testid"])
	cfg := barrier.Config{Instances: d.instances, InstanceID: c.outputs.instanceID, TestID: testID, StartAt: d.start,
		Timeout: d.startTimeout, PollInterval: d.pollInterval, Margin: d.margin}
	var announce barrier.AnnounceFunc
	var source barrier.Source
	if d.start.IsZero() {
		if err := cfg.Validate(); err != nil {
			return exitcode.Invalid(err)
		}
		rw, err := c.outputs.remoteWriteConfigs(testID, c.outputs.instanceID)
		if err != nil {
			return exitcode.Invalid(err)
		}
		if announce, err = announcer(rw[0], testID, c.outputs.instanceID, d.pollInterval, logger); err != nil {
			return exitcode.Invalid(err)
		}
		rt, err := readTransport(rw[0])
		if err != nil {
			return exitcode.Invalid(err)
		}
		q, err := query.NewPrometheus(d.promURL, rt, query.WithTimeout(cmp.Or(d.pollInterval, barrier.DefaultPollInterval)*5))
		if err != nil {
			return exitcode.Invalid(err)
		}
		source = barrier.NewPrometheus(q, nil)
	}
	b, err := barrier.New(cfg, announce, source, logger)
	if err != nil {
		return exitcode.Invalid(err)
	}
	if _, err := b.Wait(ctx); err != nil {
		if ctx.Err() != nil {
			return exitcode.With(exitcode.ExternalAbort, err)
		}
		return err
	}
	return nil
}

// announcer writes this instance's ready time, as the tidemark_instance_ready series,
// to the run's first remote-write endpoint (with its authentication and headers).
func announcer(cfg remotewrite.Config, testID, instanceID string, poll time.Duration, logger *slog.Logger) (barrier.AnnounceFunc, error) {
	none := series.SnapshotFunc(func() []series.Input { return nil })
	client, err := remotewrite.NewClient(cfg, none, logger, prometheus.NewRegistry())
	if err != nil {
		return nil, err
	}
	labels := []series.Label{{Name: series.LabelInstanceID, Value: instanceID}, {Name: series.LabelTestID, Value: testID}}
	return func(ctx context.Context, at time.Time) error {
		// Bounded, so that a backend that does not answer delays the next poll by a few
		// intervals at most; the barrier retries.
		ctx, cancel := context.WithTimeout(ctx, 5*cmp.Or(poll, barrier.DefaultPollInterval))
		defer cancel()
		s := series.Series{Name: barrier.ReadyMetric, Labels: labels, Type: series.Gauge,
			Help: "When this instance of the run was ready to start, in seconds since the epoch.",
			// Milliseconds, as every instance reads it back; all compute the same start.
			Value: float64(at.UnixMilli()) / 1e3}
		if err := client.Write(ctx, time.Now().UnixMilli(), []series.Series{s}); err != nil {
			return fmt.Errorf("announce readiness to %s: %w", cfg.URL.Redacted(), err)
		}
		return nil
	}, nil
}

// readTransport authenticates queries as the remote-write endpoint's writes are:
// basic auth, bearer, OAuth 2, TLS, SigV4 and headers (e.g. X-Scope-OrgID).
func readTransport(cfg remotewrite.Config) (http.RoundTripper, error) {
	rt, err := config.NewRoundTripperFromConfig(cfg.HTTPClientConfig, "barrier")
	if err != nil {
		return nil, fmt.Errorf("create the barrier's query client: %w", err)
	}
	if cfg.SigV4 != nil {
		if rt, err = sigv4.NewSigV4RoundTripper(cfg.SigV4, rt); err != nil {
			return nil, fmt.Errorf("create the barrier's sigv4 signer: %w", err)
		}
	}
	if len(cfg.Headers) > 0 {
		rt = headerTransport{next: rt, headers: cfg.Headers}
	}
	return rt, nil
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	next    http.RoundTripper
	headers map[string]string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.next.RoundTrip(r)
}
