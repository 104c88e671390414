package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"

	"github.com/tidemark/tidemark/exporter"
	"github.com/tidemark/tidemark/internal/aggregate"
	"github.com/tidemark/tidemark/internal/loadgen"
	"github.com/tidemark/tidemark/internal/loadtest"
	"github.com/tidemark/tidemark/internal/series"
	"github.com/tidemark/tidemark/internal/store"
	"github.com/tidemark/tidemark/internal/testrun"
	"github.com/tidemark/tidemark/remotewrite"
)

// outputFlags are the flags of `tidemark run` that send the run's series somewhere
// while it is live: remote write (push) and the exporter (pull).
//
// Precedence, lowest first: defaults, --remote-write.config.file, k6's
// K6_PROMETHEUS_RW_* environment variables, flags given on the command line.
type outputFlags struct {
	rwURLs         []string
	rwProtocol     string
	rwInterval     time.Duration
	rwFlush        time.Duration
	rwMaxValueLen  int
	rwLongValues   string
	rwTrendStats   string
	rwNative       bool
	rwStale        bool
	rwConfigFile   string
	rwLabels       []string
	rwDropLabels   []string
	instanceID     string
	exporterListen string
	webConfigFile  string
	outs           []string
	dataDir        string
	noStore        bool
	nativeDefault  bool   // native histograms unless configured otherwise (the embedded store)
	localURL       string // the embedded store's API once open (for --slo)
	share          bool   // the run is one share of a split run (testrun.Options.Share)

	set struct {
		url, protocol, interval, trendStats, native, stale, flush, maxValueLen, longValues bool
	}
	// env is the process environment (tests replace it).
	env testrun.Env
}

// addOutputFlags registers the output flags on the run command.
func addOutputFlags(cmd *kingpin.CmdClause) *outputFlags {
	f := &outputFlags{env: testrun.ProcessEnv()}
	cmd.Flag("remote-write.url", "Push the run's k6-compatible series to this Prometheus remote-write endpoint (e.g. http://prometheus:9090/api/v1/write). Repeatable: every endpoint gets every series. Also K6_PROMETHEUS_RW_SERVER_URL.").
		IsSetByUser(&f.set.url).StringsVar(&f.rwURLs)
	cmd.Flag("remote-write.protocol", "Remote-write protocol: 1.0 (as k6) or 2.0 (with type/help/unit metadata).").
		Default(remotewrite.Protocol1).IsSetByUser(&f.set.protocol).EnumVar(&f.rwProtocol, remotewrite.Protocol1, remotewrite.Protocol2)
	cmd.Flag("remote-write.push-interval", "How often every live series is pushed. Also K6_PROMETHEUS_RW_PUSH_INTERVAL.").
		Default(time.Duration(remotewrite.DefaultConfig.PushInterval).String()).IsSetByUser(&f.set.interval).DurationVar(&f.rwInterval)
	cmd.Flag("remote-write.flush-timeout", "Bound of the whole stop of remote write: the final push and the stale markers together. The default leaves the summary room within Kubernetes' 30 s grace period; a run whose series were not all delivered exits 111.").
		Default(time.Duration(remotewrite.DefaultQueueConfig.FinalFlushTimeout).String()).IsSetByUser(&f.set.flush).DurationVar(&f.rwFlush)
	cmd.Flag("remote-write.label-value-max-length", "Longest label value sent, in bytes (Grafana Mimir's default limit); 0 for no limit. Longer values are handled as --remote-write.long-label-values says.").
		Default(fmt.Sprint(series.DefaultLabelValueMaxLength)).IsSetByUser(&f.set.maxValueLen).IntVar(&f.rwMaxValueLen)
	cmd.Flag("remote-write.long-label-values", "What becomes of a series with a longer label value: truncate (cut, ending in ...# and a hash of the whole value, so distinct values stay distinct) or drop (not sent).").
		Default(series.LongTruncate).IsSetByUser(&f.set.longValues).EnumVar(&f.rwLongValues, series.LongTruncate, series.LongDrop)
	cmd.Flag("remote-write.trend-stats", "Trend stats sent as gauges k6_<trend>_<stat>, comma-separated (count,sum,min,max,avg,med,p(N)); empty for none. Also K6_PROMETHEUS_RW_TREND_STATS.").
		Default(strings.Join(series.DefaultTrendStats, ",")).IsSetByUser(&f.set.trendStats).StringVar(&f.rwTrendStats)
	cmd.Flag("remote-write.native-histograms", "Also send every trend as a native histogram k6_<trend>_seconds (schema 3), which makes per-stage percentiles and thresholds exact in tidemark correlate. K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM and K6_FEATURES=native-histograms send them instead of the trend gauges, as k6. Default: off, as k6 (the receiver must accept native histograms); on for the embedded store.").
		IsSetByUser(&f.set.native).BoolVar(&f.rwNative)
	cmd.Flag("remote-write.stale-markers", "Send stale markers for every series at the end of the run, stamped one push interval after the final push: the final values stay for range queries at any step up to the push interval, then the series vanish. Also K6_PROMETHEUS_RW_STALE_MARKERS.").
		Default("true").IsSetByUser(&f.set.stale).BoolVar(&f.rwStale)
	cmd.Flag("remote-write.config.file", "YAML file with the remote-write settings: auth (basic_auth, authorization, oauth2, sigv4), tls_config, proxy_url, headers, queue_config, label_rules.").
		StringVar(&f.rwConfigFile)
	cmd.Flag("remote-write.label", "Static label k=v added to every pushed or exported series (a tag of the same name wins). Repeatable. Also K6_PROMETHEUS_RW_LABELS.").
		StringsVar(&f.rwLabels)
	cmd.Flag("remote-write.drop-label", "Tag not to turn into a label, e.g. url for high-cardinality URLs. Repeatable; series that become equal are merged.").
		StringsVar(&f.rwDropLabels)
	cmd.Flag("instance-id", "Value of the instance_id label on every series, to tell instances of a distributed run apart. Default: none on a single instance (as k6); the Kubernetes Job completion index (JOB_COMPLETION_INDEX) in an Indexed Job, else the host name for a partial --execution-segment.").
		StringVar(&f.instanceID)
	cmd.Flag("out", "k6 output, repeatable (K6_OUT): json=FILE (k6's JSON lines; FILE.gz compresses; json alone: stdout), csv=FILE (k6's columns; csv=fileName=F,timeFormat=unix_milli,saveInterval=2s), experimental-prometheus-rw (remote write, to k6's default http://localhost:9090/api/v1/write unless a URL is configured), web-dashboard (a live page on localhost:5665; web-dashboard=port=8080&period=2s&export=report.html; also K6_WEB_DASHBOARD=true).").
		Short('o').StringsVar(&f.outs)
	cmd.Flag("exporter.listen-address", "Serve the run's series on /metrics at this address (e.g. :9464) for Prometheus to scrape.").
		StringVar(&f.exporterListen)
	cmd.Flag("web.config.file", "exporter-toolkit web configuration (TLS, basic auth) for --exporter.listen-address.").
		StringVar(&f.webConfigFile)
	return f
}

// addStoreFlags registers the embedded store's flags on the run command.
func (f *outputFlags) addStoreFlags(cmd *kingpin.CmdClause) {
	cmd.Flag("storage.tsdb.path", "Without a remote-write URL the run's series go into the embedded store in this directory "+
		"(or into the `tidemark serve` holding it), for `tidemark serve` and `tidemark correlate`.").
		Default(store.DefaultConfig.Dir).StringVar(&f.dataDir)
	cmd.Flag("no-embedded-store", "Keep the series only in memory when no remote-write URL is set.").BoolVar(&f.noStore)
}

// rwOuts are the remote-write --out values (experimental-prometheus-rw, for
// remotewrite.Compose); a bad value is a configuration error naming the supported
// outputs. runRun sets outs to the resolved ones (--out, else K6_OUT).
func (f *outputFlags) rwOuts() ([]string, error) {
	return testrun.Options{Outs: f.outs}.RemoteWriteOuts(f.env)
}

// overrides are the remote-write flags given on the command line.
func (f *outputFlags) overrides(testID, instanceID string) remotewrite.Overrides {
	rw, _ := f.rwOuts() // checked before the run (testrun.Options.Resolve)
	o := remotewrite.Overrides{ConfigFile: f.rwConfigFile, Labels: f.rwLabels, DropLabels: f.rwDropLabels,
		Outputs: rw, Environ: f.env, TestID: testID, InstanceID: instanceID, NativeByDefault: f.nativeDefault}
	if f.set.url {
		o.URLs = append([]string{}, f.rwURLs...)
	}
	if f.set.protocol {
		o.Protocol = &f.rwProtocol
	}
	if f.set.interval {
		o.PushInterval = &f.rwInterval
	}
	if f.set.flush {
		o.FlushTimeout = &f.rwFlush
	}
	if f.set.maxValueLen {
		o.LabelValueMaxLength = &f.rwMaxValueLen
	}
	if f.set.longValues {
		o.LongLabelValues = &f.rwLongValues
	}
	if f.set.trendStats {
		o.TrendStats = &f.rwTrendStats
	}
	if f.set.native {
		o.NativeHistograms = &f.rwNative
	}
	if f.set.stale {
		o.StaleMarkers = &f.rwStale
	}
	return o
}

// labelTestID is the testid among the static labels (--remote-write.label, the file,
// K6_PROMETHEUS_RW_LABELS), if any; a bad configuration is reported when the sinks are
// built.
func (f *outputFlags) labelTestID() string {
	base, _, _ := remotewrite.Compose(f.overrides("", ""))
	return base.Series.Labels[series.LabelTestID]
}

// remoteWriteConfigs composes one configuration per remote-write endpoint; none when
// remote write is off.
func (f *outputFlags) remoteWriteConfigs(testID, instanceID string) ([]remotewrite.Config, error) {
	_, cfgs, err := remotewrite.Compose(f.overrides(testID, instanceID))
	return cfgs, err
}

// actor is the run's outputs (loadtest.Outputs of sinks).
func (f *outputFlags) actor(logger *slog.Logger) loadtest.Actor {
	return loadtest.Outputs(func(agg *aggregate.Store, runTags map[string]string) ([]loadtest.Sink, error) {
		return f.sinks(agg, runTags, logger)
	})
}

// sinks builds the run's sinks from the flags. Without a remote-write URL (flag, file or
// K6_PROMETHEUS_RW_SERVER_URL) the series are remote-written into the embedded store:
// a `tidemark serve` holding --storage.tsdb.path, or that directory opened in-process.
func (f *outputFlags) sinks(agg *aggregate.Store, runTags map[string]string, logger *slog.Logger) ([]loadtest.Sink, error) {
	rw, err := f.remoteWriteConfigs("", "")
	if err != nil {
		return nil, err
	}
	var local *store.Local
	if len(rw) == 0 && !f.noStore {
		if local, err = store.OpenLocal(context.Background(), f.dataDir, logger); err != nil {
			return nil, err
		}
		if err := local.Listen("", logger); err != nil {
			return nil, errors.Join(err, local.Close())
		}
		// The embedded store reads native histograms, so trends go as histograms too:
		// per-stage percentiles, and thresholds judged per stage, are exact.
		f.rwURLs, f.set.url, f.nativeDefault, f.localURL = []string{local.URL + "/api/v1/write"}, true, true, local.URL
	}
	sinks, err := f.build(agg, runTags, logger)
	if err != nil {
		if local != nil {
			err = errors.Join(err, local.Close())
		}
		return nil, err
	}
	if local != nil {
		// After the remote-write sink, so its final flush lands before the store closes.
		ls := &store.Sink{Local: local, Dir: f.dataDir}
		for _, s := range sinks {
			if rw, ok := s.(*remotewrite.Sink); ok {
				ls.Lost = rw.Lost
			}
		}
		sinks = append(sinks, ls)
	}
	return sinks, nil
}

// build returns the run's output sinks. store is the run's aggregate store; runTags
// are the run's tags (testid included). The sinks read the store while the run is
// live; none is returned when no output is configured.
func (f *outputFlags) build(store series.AggregateSource, runTags map[string]string, logger *slog.Logger) ([]loadtest.Sink, error) {
	instanceID := remotewrite.InstanceID(f.instanceID, f.env, f.share)
	testID := runTags[series.LabelTestID]
	src := series.FromAggregate(store)
	reg := prometheus.NewRegistry()

	base, cfgs, err := remotewrite.Compose(f.overrides(testID, instanceID))
	if err != nil {
		return nil, err
	}
	sinks, err := toSinks(remotewrite.Sinks(cfgs, loadgen.Source(src, runTags, logger), logger, reg))
	if err != nil {
		return nil, err
	}

	if f.exporterListen != "" {
		// The exporter shares the naming (trend stats, histograms, labels) with remote
		// write, so scraped and pushed series are the same.
		scfg := base.Series
		col, err := exporter.NewCollector(src, scfg, time.Now())
		if err != nil {
			return nil, err
		}
		if err := errors.Join(reg.Register(col), reg.Register(versioncollector.NewCollector("tidemark")),
			reg.Register(collectors.NewGoCollector()), reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))); err != nil {
			return nil, fmt.Errorf("register exporter collectors: %w", err)
		}
		srv := exporter.NewServer(exporter.ServerConfig{ListenAddress: f.exporterListen, WebConfigFile: f.webConfigFile}, reg, logger)
		// Listen now, so a busy port is a configuration error before the run starts.
		if err := srv.Start(); err != nil {
			return nil, err
		}
		sinks = append(sinks, &exporterSink{srv})
	}
	return sinks, nil
}

// toSinks is remotewrite.Sinks as the run's sinks.
func toSinks(rw []*remotewrite.Sink, err error) ([]loadtest.Sink, error) {
	sinks := make([]loadtest.Sink, 0, len(rw))
	for _, s := range rw {
		sinks = append(sinks, s)
	}
	return sinks, err
}

// exporterSink adapts the exporter's server to a loadtest.Sink. It is already listening.
type exporterSink struct{ s *exporter.Server }

func (s *exporterSink) Start()                 {}
func (s *exporterSink) Stop() error            { return s.s.Stop() }
func (s *exporterSink) SummaryLines() []string { return []string{"exporter: served on " + s.s.Addr()} }

var (
	_ loadtest.Summarizer = (*exporterSink)(nil)
	_ loadtest.Sink       = (*exporterSink)(nil)
)
