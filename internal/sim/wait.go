package sim

import (
	"context"
	"errors"
	"time"
)

// FirstServiceURL returns the URL of the profile's first service: the one a demo's load
// is aimed at.
func (s *Server) FirstServiceURL() (string, error) {
	urls := s.ServiceURLs()
	for _, svc := range s.profile.Services {
		if u, ok := urls[svc.Name]; ok {
			return u, nil
		}
	}
	return "", errors.New("the simulated cluster serves no service")
}

// PoolPerPod returns the database pool size of the first service with a pool, or 0.
func (p *Profile) PoolPerPod() int {
	for _, s := range p.Services {
		if s.Pool.Size > 0 {
			return s.Pool.Size
		}
	}
	return 0
}

// DBMaxConnections returns the database's max_connections, or 0 without a database.
func (p *Profile) DBMaxConnections() int {
	if p.Database == nil {
		return 0
	}
	return p.Database.MaxConnections
}

// WaitScaledIn waits until every HPA is back at its minimum replicas, ctx is done, or
// limit has passed, checking every second. It reports whether every HPA scaled in.
func (s *Server) WaitScaledIn(ctx context.Context, limit time.Duration) bool {
	return WaitScaledIn(ctx, s.Snapshot, limit)
}

// WaitScaledIn waits until every HPA of the cluster snapshot describes is back at its
// minimum replicas, ctx is done, or limit has passed, checking every second. It reports
// whether every HPA scaled in. Both runtimes (Server and the process runtime) use it.
func WaitScaledIn(ctx context.Context, snapshot func() Snapshot, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		done := true
		for _, dep := range snapshot().Deployments {
			if dep.HPA != nil && dep.HPA.CurrentReplicas > dep.HPA.MinReplicas {
				done = false
			}
		}
		if done || !time.Now().Before(deadline) {
			return done
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
}
