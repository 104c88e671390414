package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tidemark/tidemark/internal/sim"
	"github.com/tidemark/tidemark/internal/sim/process"
	"github.com/tidemark/tidemark/internal/sim/realdb"
)

// withDB is the process runtime of a profile with database.engine: its real database
// side (internal/sim/realdb) starts before the first pod and stops after the last, each
// pod gets its pool's flags and DSN, and the scrape configuration adds the exporter's
// and the pods' jobs.
type withDB struct {
	*process.Runtime
	logger *slog.Logger
	mu     sync.Mutex
	db     *realdb.DB
}

var _ Cluster = (*withDB)(nil)

// podArgs is the runtime's PodArgsFunc: the pool of the database side, once started.
func (c *withDB) podArgs(svc sim.ServiceSpec, pod string) (args, env []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.db == nil {
		return nil, nil
	}
	return c.db.PodArgs(svc, pod)
}

// Start provides the database, then starts the runtime.
func (c *withDB) Start(ctx context.Context) error {
	db, err := realdb.Start(ctx, c.Profile(), c.PodTargets, c.logger)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.db = db
	c.mu.Unlock()
	if err := c.Runtime.Start(ctx); err != nil {
		return errors.Join(err, db.Close())
	}
	return nil
}

// Stop stops the runtime (every pod), then the database side.
func (c *withDB) Stop() error {
	err := c.Runtime.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.db != nil {
		err = errors.Join(err, c.db.Close())
		c.db = nil
	}
	return err
}

// ScrapeConfig is the runtime's with the database exporter's and the pods' jobs.
func (c *withDB) ScrapeConfig(interval time.Duration) (string, error) {
	s, err := c.Runtime.ScrapeConfig(interval)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.db == nil {
		return "", fmt.Errorf("scrape config: the database of profile %q is not started", c.Profile().Name)
	}
	return s + c.db.ScrapeJobs(), nil
}
