package dbserver

import (
	"context"
	"log/slog"
)

// Database is what a runtime's pods and its scraper need of a database: a DSN for the
// pods and an exporter to scrape, whether the server was started here or given.
type Database struct {
	// DSN is the server's data source name (a secret: pass it by environment).
	DSN string
	// Exporter reads the server; scrape Exporter.URL().
	Exporter *Exporter
	// Server is the server started here; nil when the DSN was given.
	Server *Server
}

// Provide starts a throwaway server of cfg.Engine and its exporter when dsn is empty
// (a profile without database.dsn), or only an exporter of the server at dsn. The
// caller must Close the result.
func Provide(ctx context.Context, cfg Config, dsn string, logger *slog.Logger) (*Database, error) {
	if dsn == "" {
		s, err := Start(ctx, cfg, logger)
		if err != nil {
			return nil, err
		}
		return &Database{DSN: s.DSN(), Exporter: s.Exporter(), Server: s}, nil
	}
	e, err := StartExporter(ctx, cfg.Engine, dsn, logger)
	if err != nil {
		return nil, err
	}
	return &Database{DSN: dsn, Exporter: e}, nil
}

// Close stops what Provide started. It is safe to call more than once.
func (d *Database) Close() error {
	if d.Server != nil {
		return d.Server.Close() // closes its exporter too
	}
	return d.Exporter.Close()
}
