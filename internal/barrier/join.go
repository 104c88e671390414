package barrier

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/common/config"
	"github.com/prometheus/sigv4"

	"github.com/tidemark/tidemark/internal/query"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/verdict"
)

// Writer writes series to the run's remote-write endpoint (remotewrite.Client).
type Writer interface {
	Write(ctx context.Context, ts int64, batch []series.Series) error
}

// Backend is where the instances of a run meet: the remote-write endpoint they write
// to and that endpoint's query API.
type Backend struct {
	// Writer writes to the run's first remote-write endpoint.
	Writer Writer
	// Where names that endpoint in errors (its redacted URL).
	Where string
	// QueryURL is the query API's base URL.
	QueryURL string
	// Transport authenticates the queries as the writes are (Transport).
	Transport http.RoundTripper
}

// Querier is the backend's query API, with timeout bounding each query.
func (b *Backend) Querier(timeout time.Duration) (query.Querier, error) {
	return query.NewPrometheus(b.QueryURL, b.Transport, query.WithTimeout(timeout))
}

// Join holds the run until its start instant: cfg.StartAt, or all cfg.Instances ready
// as this instance announces and reads through be (unused with StartAt). It returns
// configuration errors (verdict.ErrInvalid), a *TimeoutError, or, when ctx ends first,
// an error of kind verdict.ErrInterrupted.
func Join(ctx context.Context, cfg Config, be *Backend, logger *slog.Logger) error {
	var announce AnnounceFunc
	var source Source
	if cfg.StartAt.IsZero() {
		if err := cfg.Validate(); err != nil {
			return verdict.Invalid(err)
		}
		announce = Announcer(be.Writer, be.Where, cfg.TestID, cfg.InstanceID, cfg.PollInterval)
		q, err := be.Querier(cmp.Or(cfg.PollInterval, DefaultPollInterval) * 5)
		if err != nil {
			return verdict.Invalid(err)
		}
		source = NewPrometheus(q, nil)
	}
	b, err := New(cfg, announce, source, logger)
	if err != nil {
		return verdict.Invalid(err)
	}
	if _, err := b.Wait(ctx); err != nil {
		if ctx.Err() != nil {
			return verdict.As(verdict.ErrInterrupted, err)
		}
		return err
	}
	return nil
}

// Announcer writes this instance's ready time, as the ReadyMetric series, through w
// (the run's first remote-write endpoint, named where in errors).
func Announcer(w Writer, where, testID, instanceID string, poll time.Duration) AnnounceFunc {
	labels := []series.Label{{Name: series.LabelInstanceID, Value: instanceID}, {Name: series.LabelTestID, Value: testID}}
	return func(ctx context.Context, at time.Time) error {
		// Bounded, so that a backend that does not answer delays the next poll by a few
		// intervals at most; the barrier retries.
		ctx, cancel := context.WithTimeout(ctx, 5*cmp.Or(poll, DefaultPollInterval))
		defer cancel()
		s := series.Series{Name: ReadyMetric, Labels: labels, Type: series.Gauge,
			Help: "When this instance of the run was ready to start, in seconds since the epoch.",
			// Milliseconds, as every instance reads it back; all compute the same start.
			Value: float64(at.UnixMilli()) / 1e3}
		if err := w.Write(ctx, time.Now().UnixMilli(), []series.Series{s}); err != nil {
			return fmt.Errorf("announce readiness to %s: %w", where, err)
		}
		return nil
	}
}

// QueryURLOf derives the query API's base URL from a remote-write URL of a known
// backend.
func QueryURLOf(w *url.URL) (string, error) {
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

// Transport authenticates queries as the remote-write endpoint's writes are: basic
// auth, bearer, OAuth 2, TLS, SigV4 (when sv4 is set) and headers (e.g. X-Scope-OrgID).
func Transport(hc config.HTTPClientConfig, sv4 *sigv4.SigV4Config, headers map[string]string) (http.RoundTripper, error) {
	rt, err := config.NewRoundTripperFromConfig(hc, "barrier")
	if err != nil {
		return nil, fmt.Errorf("create the barrier's query client: %w", err)
	}
	if sv4 != nil {
		if rt, err = sigv4.NewSigV4RoundTripper(sv4, rt); err != nil {
			return nil, fmt.Errorf("create the barrier's sigv4 signer: %w", err)
		}
	}
	if len(headers) > 0 {
		rt = headerTransport{next: rt, headers: headers}
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
