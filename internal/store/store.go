package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/config"
	"github.com/prometheus/prometheus/discovery"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/scrape"
	"github.com/prometheus/prometheus/tsdb"
)

// Config configures the embedded store. Zero fields other than Dir take their value from
// DefaultConfig.
type Config struct {
	// Dir is the TSDB data directory. It is created when missing.
	Dir string
	// Retention is how long samples are kept.
	Retention time.Duration
	// RetentionSize is the maximum number of bytes kept in storage blocks. Zero means no
	// limit.
	RetentionSize int64
	// OutOfOrderWindow accepts samples up to this much older than the newest sample of
	// their series. Zero, Prometheus' default, rejects them (remote write answers 400).
	OutOfOrderWindow time.Duration

	// LookbackDelta is how far back PromQL looks for the latest sample of a series.
	LookbackDelta time.Duration
	// QueryTimeout bounds the evaluation of one query.
	QueryTimeout time.Duration
	// MaxSamples bounds the number of samples one query may load into memory.
	MaxSamples int
	// MaxQueryLength rejects a query longer than this many bytes (400): the parser's
	// time grows faster than the query's length. Zero means DefaultConfig's value.
	MaxQueryLength int
	// MaxConcurrentQueries bounds the queries evaluated at once; others wait up to
	// QueryTimeout for a slot (503). Zero means DefaultConfig's value.
	MaxConcurrentQueries int
	// MaxSubquerySteps rejects a query whose subqueries would evaluate more steps than
	// this (422), checked before evaluation: the engine allocates a subquery's steps
	// before its sample limit. Zero means DefaultConfig's value.
	MaxSubquerySteps int64

	// ScrapeTargets are host:port targets scraped every ScrapeInterval as job
	// ScrapeJobName. They are used only when ScrapeConfigFile is empty.
	ScrapeTargets []string
	// ScrapeInterval is the scrape interval of ScrapeTargets.
	ScrapeInterval time.Duration
	// ScrapeConfigFile is a Prometheus configuration file. Its global and scrape_configs
	// sections are used (static_configs and file_sd_configs discovery); rules,
	// alerting and remote_write sections are ignored.
	ScrapeConfigFile string

	// MaxLabelsPerSeries rejects remote-written series with more labels than this
	// (400 Bad Request). Zero means DefaultConfig's value; negative means no limit.
	MaxLabelsPerSeries int
	// MaxLabelValueLength rejects remote-written series with a label value longer than
	// this many bytes (400 Bad Request). Zero means DefaultConfig's value; negative means
	// no limit.
	MaxLabelValueLength int

	// ExternalURL is the URL users reach the store at, for the landing page. Optional.
	ExternalURL string
	// Version is the version of the program embedding the store, shown on the landing
	// page. Optional.
	Version string

	// noFastWrite sends every remote-write request through Prometheus' receiver, for
	// the differential tests of the fast path.
	noFastWrite bool
	// walRecoveryInterval is how often a store refusing writes after a failed WAL write
	// checks whether it can reopen its TSDB; zero means defaultWALRecoveryInterval.
	walRecoveryInterval time.Duration
}

// ScrapeJobName is the job label of the targets given in Config.ScrapeTargets.
const ScrapeJobName = "tidemark"

// DefaultConfig holds the defaults of Config. They follow Prometheus' own defaults.
var DefaultConfig = Config{
	Dir:       "tidemark-data",
	Retention: 15 * 24 * time.Hour, // Prometheus' --storage.tsdb.retention.time default.
	// The next three are Prometheus' --query.* defaults.
	LookbackDelta: 5 * time.Minute,
	QueryTimeout:  2 * time.Minute,
	MaxSamples:    50_000_000,
	// Ours: Prometheus has no such limits (see queryguard.go); --query.max-concurrency is
	// Prometheus' default.
	MaxQueryLength:       defaultMaxQueryLength,
	MaxConcurrentQueries: defaultMaxConcurrentQueries,
	MaxSubquerySteps:     defaultMaxSubquerySteps,
	ScrapeInterval:       15 * time.Second,
	// Prometheus sets no limit here. k6 series carry about ten labels; 256 is far above
	// any sane series and far below what exhausts memory.
	MaxLabelsPerSeries: 256,
	// Long enough for full URLs used as label values (k6 "url" / "name" tags).
	MaxLabelValueLength: 16 * 1024,
}

// ErrLocked is returned by Open when another store (tidemark serve or tidemark run) holds
// the data directory. Use Discover to find a server holding it.
var ErrLocked = errors.New("data directory is locked by another tidemark process")

// maxExemplars is the size of the in-memory exemplar ring buffer, Prometheus' default for
// --storage.exemplars.exemplars-limit when exemplar storage is enabled.
const maxExemplars = 100_000

// Store is an open embedded Prometheus. Create it with Open; it serves its HTTP API through
// Handler until Close.
type Store struct {
	cfg     Config
	logger  *slog.Logger
	db      *liveDB
	engine  *promql.Engine
	handler http.Handler

	cfgMu   sync.RWMutex // guards promCfg.
	promCfg *config.Config
	started time.Time

	scrape        *scrape.Manager
	discovery     *discovery.Manager
	stopDiscovery context.CancelFunc
	wg            sync.WaitGroup

	stopRecovery context.CancelFunc
	recoveryDone chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// Open opens (or creates) the TSDB in cfg.Dir, replays its write-ahead log, and starts
// scraping the configured targets. reg receives the metrics of the TSDB, the query engine,
// the remote-write receiver and the scrape manager; a nil reg keeps them private. As in
// Prometheus, these register once: give each store of a process its own registry (or nil),
// also when reopening a directory. The caller must Close the store. Errors that come
// from the configuration (Config and the scrape configuration file) rather than the
// system are *ConfigError.
func Open(cfg Config, logger *slog.Logger, reg prometheus.Registerer) (*Store, error) {
	cfg = withDefaults(cfg)
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	// Prometheus' components log what they reject whole (logcap.go).
	logger = newCappedLogger(logger, maxLoggedValue)
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	if err := checkWritable(cfg.Dir); err != nil {
		return nil, err
	}
	promCfg, err := scrapeConfig(cfg, logger)
	if err != nil {
		return nil, err
	}

	opts := tsdb.DefaultOptions()
	opts.RetentionDuration = cfg.Retention.Milliseconds()
	opts.MaxBytes = cfg.RetentionSize
	opts.OutOfOrderTimeWindow = cfg.OutOfOrderWindow.Milliseconds()
	opts.EnableExemplarStorage = true
	opts.MaxExemplars = maxExemplars
	// The TSDB's metrics go through tsdbMetrics, so that a reopen (liveDB) can register
	// them again.
	metrics := &tsdbMetrics{}
	if err := reg.Register(metrics); err != nil {
		return nil, fmt.Errorf("register tsdb metrics: %w", err)
	}
	db, err := openLiveDB(cfg.Dir, opts, logger.With("component", "tsdb"), metrics)
	if err != nil {
		reg.Unregister(metrics)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("open tsdb %q: %w: %w", cfg.Dir, ErrLocked, err)
		}
		return nil, fmt.Errorf("open tsdb %q: %w", cfg.Dir, err)
	}

	s := &Store{cfg: cfg, logger: logger, db: db, promCfg: promCfg, started: time.Now()}
	if err := s.init(reg); err != nil {
		return nil, errors.Join(err, db.close())
	}
	return s, nil
}

// startRecovery starts reopening the TSDB after failed WAL writes (walRecovery) until
// Close.
func (s *Store) startRecovery(reg prometheus.Registerer) error {
	r, err := newWALRecovery(s.db, s.cfg.walRecoveryInterval, s.logger.With("component", "wal recovery"), reg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stopRecovery, s.recoveryDone = cancel, make(chan struct{})
	go func() {
		defer close(s.recoveryDone)
		r.run(ctx)
	}()
	return nil
}

// evaluationInterval is the global evaluation interval: the step of a subquery without one.
func (s *Store) evaluationInterval() time.Duration {
	return time.Duration(s.prometheusConfig().GlobalConfig.EvaluationInterval)
}

func (s *Store) init(reg prometheus.Registerer) error {
	p := parser.NewParser(parser.Options{})
	s.engine = promql.NewEngine(promql.EngineOpts{
		Logger:               s.logger.With("component", "query engine"),
		Reg:                  reg,
		MaxSamples:           s.cfg.MaxSamples,
		Timeout:              s.cfg.QueryTimeout,
		LookbackDelta:        s.cfg.LookbackDelta,
		EnableAtModifier:     true,
		EnableNegativeOffset: true,
		// Subqueries without a step use the global evaluation interval, as in Prometheus.
		NoStepSubqueryIntervalFn: func(int64) int64 { return s.evaluationInterval().Milliseconds() },
		Parser:                   p,
	})

	sdMetrics, err := discovery.CreateAndRegisterSDMetrics(reg)
	if err != nil {
		return fmt.Errorf("register service discovery metrics: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stopDiscovery = cancel
	s.discovery = discovery.NewManager(ctx, s.logger.With("component", "discovery manager scrape"), reg, sdMetrics, discovery.Name("scrape"))
	if s.discovery == nil {
		cancel()
		return errors.New("create discovery manager")
	}
	s.scrape, err = scrape.NewManager(&scrape.Options{
		// Start scraping static targets at once rather than after Prometheus' 5 s reload
		// tick: a load test wants its first cluster sample as early as possible.
		DiscoveryReloadOnStartup: true,
		DiscoveryReloadInterval:  model.Duration(time.Second),
	}, s.logger.With("component", "scrape manager"), nil, nil, s.db, reg)
	if err != nil {
		cancel()
		return fmt.Errorf("create scrape manager: %w", err)
	}
	if err := s.applyScrapeConfig(s.promCfg); err != nil {
		cancel()
		return err
	}
	s.wg.Go(func() { _ = s.discovery.Run() })
	s.wg.Go(func() { _ = s.scrape.Run(s.discovery.SyncCh()) })

	h, err := s.newHandler(reg, p)
	if err == nil {
		err = s.startRecovery(reg)
	}
	if err != nil {
		s.stopScraping()
		return err
	}
	s.handler = h
	return nil
}

// Reload re-reads the scrape configuration (Config.ScrapeConfigFile) and applies it to the
// running scrape manager, as Prometheus does on SIGHUP. On error the running configuration
// stays in force.
func (s *Store) Reload() error {
	c, err := scrapeConfig(s.cfg, s.logger)
	if err != nil {
		return err
	}
	// Held while applying, so that concurrent reloads apply in the order they set promCfg.
	s.cfgMu.Lock()
	defer s.cfgMu.Unlock()
	if err := s.applyScrapeConfig(c); err != nil {
		return err
	}
	s.promCfg = c
	return nil
}

// prometheusConfig returns the configuration in force.
func (s *Store) prometheusConfig() *config.Config {
	s.cfgMu.RLock()
	defer s.cfgMu.RUnlock()
	return s.promCfg
}

func (s *Store) applyScrapeConfig(c *config.Config) error {
	if err := s.scrape.ApplyConfig(c); err != nil {
		return fmt.Errorf("apply scrape config: %w", err)
	}
	scfgs, err := c.GetScrapeConfigs()
	if err != nil {
		return fmt.Errorf("load scrape configs: %w", err)
	}
	sd := make(map[string]discovery.Configs, len(scfgs))
	for _, v := range scfgs {
		sd[v.JobName] = v.ServiceDiscoveryConfigs
	}
	if err := s.discovery.ApplyConfig(sd); err != nil {
		return fmt.Errorf("apply service discovery config: %w", err)
	}
	return nil
}

// Handler returns the store's HTTP handler: the Prometheus HTTP API under /api/v1 (with
// the remote-write receiver at /api/v1/write), /-/ready, /-/healthy and a landing page
// at /. The handler is valid until Close.
func (s *Store) Handler() http.Handler { return s.handler }

// Dir returns the data directory of the store.
func (s *Store) Dir() string { return s.cfg.Dir }

// Close stops scraping, flushes and closes the TSDB, and releases its lock. Samples
// acknowledged before Close are in the write-ahead log and survive a restart. It is safe
// to call more than once.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.stopRecovery()
		<-s.recoveryDone
		s.stopScraping()
		if err := s.db.close(); err != nil {
			s.closeErr = fmt.Errorf("close tsdb %q: %w", s.cfg.Dir, err)
		}
	})
	return s.closeErr
}

func (s *Store) stopScraping() {
	s.scrape.Stop()
	s.stopDiscovery()
	s.wg.Wait()
}

func withDefaults(cfg Config) Config {
	d := DefaultConfig
	if cfg.Dir == "" {
		cfg.Dir = d.Dir
	}
	if cfg.Retention <= 0 {
		cfg.Retention = d.Retention
	}
	if cfg.LookbackDelta <= 0 {
		cfg.LookbackDelta = d.LookbackDelta
	}
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = d.QueryTimeout
	}
	if cfg.MaxSamples <= 0 {
		cfg.MaxSamples = d.MaxSamples
	}
	if cfg.ScrapeInterval <= 0 {
		cfg.ScrapeInterval = d.ScrapeInterval
	}
	if cfg.MaxLabelsPerSeries == 0 {
		cfg.MaxLabelsPerSeries = d.MaxLabelsPerSeries
	}
	if cfg.MaxLabelValueLength == 0 {
		cfg.MaxLabelValueLength = d.MaxLabelValueLength
	}
	if cfg.MaxQueryLength <= 0 {
		cfg.MaxQueryLength = d.MaxQueryLength
	}
	if cfg.MaxConcurrentQueries <= 0 {
		cfg.MaxConcurrentQueries = d.MaxConcurrentQueries
	}
	if cfg.MaxSubquerySteps <= 0 {
		cfg.MaxSubquerySteps = d.MaxSubquerySteps
	}
	if cfg.walRecoveryInterval <= 0 {
		cfg.walRecoveryInterval = defaultWALRecoveryInterval
	}
	return cfg
}

// checkWritable creates dir when missing and proves that files can be written in it, so
// that a read-only or full disk fails at start with a clear message rather than at the
// first write.
func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	f, err := os.CreateTemp(dir, ".tidemark-write-check-*")
	if err != nil {
		return fmt.Errorf("data directory %q is not writable: %w", dir, err)
	}
	name := f.Name()
	_, werr := f.Write([]byte("ok"))
	cerr := f.Close()
	rerr := os.Remove(name)
	if err := errors.Join(werr, cerr, rerr); err != nil {
		return fmt.Errorf("data directory %q is not writable: %w", dir, err)
	}
	return nil
}
