package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tidemark/tidemark/internal/barrier"
	"github.com/tidemark/tidemark/internal/exitcode"
	"github.com/tidemark/tidemark/internal/pacer"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/testrun"
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

// apply checks the flags and derives this instance's execution segment and
// instance_id into o and out. Its errors are configuration errors.
func (d *distributedFlags) apply(o *testrun.Options, out *outputFlags) error {
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
	if o.Segment != "" || o.SegmentSequence != "" {
		return fmt.Errorf("--instances %d with --execution-segment or --execution-segment-sequence: give one or the other", d.instances)
	}
	o.Segment, o.SegmentSequence = pacer.SegmentOf(i, d.instances)
	if out.instanceID == "" {
		out.instanceID = strconv.Itoa(i)
	}
	if d.start.IsZero() {
		rw, err := out.remoteWriteConfigs("", "")
		if err != nil {
			return err
		}
		if len(rw) == 0 {
			return fmt.Errorf("--instances %d needs a remote-write URL (--remote-write.url or K6_PROMETHEUS_RW_SERVER_URL): "+
				"the instances find each other through that backend; or give --start-at", d.instances)
		}
		if d.promURL == "" {
			if d.promURL, err = barrier.QueryURLOf(rw[0].URL.URL); err != nil {
				return err
			}
		}
	}
	return nil
}

// wait holds the run until its start instant (--start-at, or all --instances ready).
// A timeout exits 102 (k6's GenericTimeout), SIGINT/SIGTERM 105.
func (d *distributedFlags) wait(ctx context.Context, o testrun.Options, out *outputFlags, logger *slog.Logger) error {
	tags, err := testrun.ParsePairs("tag", o.Tags)
	if err != nil {
		return exitcode.Invalid(err)
	}
	testID := cmp.Or(o.TestID, tags["testid"])
	cfg := barrier.Config{Instances: d.instances, InstanceID: out.instanceID, TestID: testID, StartAt: d.start,
		Timeout: d.startTimeout, PollInterval: d.pollInterval, Margin: d.margin}
	var be *barrier.Backend
	if d.start.IsZero() {
		if err := cfg.Validate(); err != nil {
			return exitcode.Invalid(err)
		}
		rw, err := out.remoteWriteConfigs(testID, out.instanceID)
		if err != nil {
			return exitcode.Invalid(err)
		}
		if be, err = backendOf(rw[0], d.promURL, logger); err != nil {
			return exitcode.Invalid(err)
		}
	}
	return barrier.Join(ctx, cfg, be, logger)
}

// backendOf is where the instances meet: the remote-write endpoint cfg, and its query
// API at promURL (default: derived from cfg's URL), read as cfg authenticates.
func backendOf(cfg remotewrite.Config, promURL string, logger *slog.Logger) (*barrier.Backend, error) {
	none := series.SnapshotFunc(func() []series.Input { return nil })
	client, err := remotewrite.NewClient(cfg, none, logger, prometheus.NewRegistry())
	if err != nil {
		return nil, err
	}
	if promURL == "" {
		if promURL, err = barrier.QueryURLOf(cfg.URL.URL); err != nil {
			return nil, err
		}
	}
	rt, err := barrier.Transport(cfg.HTTPClientConfig, cfg.SigV4, cfg.Headers)
	if err != nil {
		return nil, err
	}
	return &barrier.Backend{Writer: client, Where: cfg.URL.Redacted(), QueryURL: promURL, Transport: rt}, nil
}
