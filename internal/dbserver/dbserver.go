// Package dbserver starts throwaway database servers for the demo and the tests: a
// PostgreSQL or a MariaDB from Debian's packages, listening on a free loopback port with
// its data directory in a new temporary directory, and beside it the engine's Prometheus
// exporter from Debian (postgres_exporter, mysqld_exporter) on another free port. Close
// stops every process and removes every file; if this process dies first, the kernel
// ends the children (a parent-death signal).
//
// Credentials are generated per server and never logged: DSN returns them for the
// caller to pass on by environment or file, never on a command line.
package dbserver

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// Engine is a database server product.
type Engine string

// The engines.
const (
	Postgres Engine = "postgres"
	MariaDB  Engine = "mariadb"
)

// Driver is the Go database/sql driver name of the engine's wire protocol, as
// `tidemark target --db.driver` takes it: "postgres" or "mysql".
func (e Engine) Driver() string {
	if e == MariaDB {
		return "mysql"
	}
	return string(e)
}

// Debian packages of the programs this package runs.
const (
	pkgPostgres         = "postgresql"
	pkgMariaDB          = "mariadb-server"
	pkgPostgresExporter = "prometheus-postgres-exporter"
	pkgMySQLExporter    = "prometheus-mysqld-exporter"
)

// Config is what to start.
type Config struct {
	Engine Engine
	// MaxConnections is the server's max_connections; 0 keeps the engine's default
	// (PostgreSQL 100, MariaDB 151).
	MaxConnections int
	// TempDir is where the server's directory is created; empty: os.TempDir().
	TempDir string
	// StartTimeout bounds initialisation and start-up; 0: one minute.
	StartTimeout time.Duration
}

// Server is a running database server and its exporter.
type Server struct {
	engine   Engine
	dir      string
	addr     string
	dsn      string
	db       *proc
	exporter *Exporter
	logger   *slog.Logger
	once     sync.Once
	closeErr error
}

// Start initialises a new data directory and starts the server and its exporter. It
// returns when both answer. The caller must Close the server.
func Start(ctx context.Context, cfg Config, logger *slog.Logger) (*Server, error) {
	if cfg.MaxConnections < 0 {
		return nil, fmt.Errorf("start database: max_connections %d is negative", cfg.MaxConnections)
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()
	var (
		s   *Server
		err error
	)
	switch cfg.Engine {
	case Postgres:
		s, err = startPostgres(ctx, cfg, logger)
	case MariaDB:
		s, err = startMariaDB(ctx, cfg, logger)
	default:
		return nil, fmt.Errorf("start database: unknown engine %q; expected %s or %s", cfg.Engine, Postgres, MariaDB)
	}
	if err != nil {
		return nil, err
	}
	exp, err := StartExporter(ctx, cfg.Engine, s.dsn, logger)
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	s.exporter = exp
	logger.Info("Database started", "engine", string(cfg.Engine), "address", s.addr, "exporter", exp.Addr(), "dir", s.dir)
	return s, nil
}

// Engine is the server's engine.
func (s *Server) Engine() Engine { return s.engine }

// Addr is the server's loopback host:port.
func (s *Server) Addr() string { return s.addr }

// DSN is the data source name of the server's application user, with its password,
// in the form of the engine's Go driver: a postgres:// URL for pgx, user:pass@tcp(...)/db
// for go-sql-driver/mysql. It is a secret: pass it by environment, never in argv.
func (s *Server) DSN() string { return s.dsn }

// ExporterAddr is the host:port of the exporter's /metrics.
func (s *Server) ExporterAddr() string { return s.exporter.Addr() }

// Exporter is the server's exporter.
func (s *Server) Exporter() *Exporter { return s.exporter }

// Dir is the server's temporary directory (data, sockets, logs); Close removes it.
func (s *Server) Dir() string { return s.dir }

// PID is the process id of the server (PostgreSQL's postmaster, mariadbd).
func (s *Server) PID() int { return s.db.pid() }

// Close stops the exporter and the server and removes the directory. It is safe to
// call more than once.
func (s *Server) Close() error {
	s.once.Do(func() {
		var errs []error
		if s.exporter != nil {
			errs = append(errs, s.exporter.Close())
		}
		if s.db != nil {
			// PostgreSQL: SIGINT is its fast shutdown (clients are disconnected);
			// mariadbd shuts down cleanly on SIGTERM.
			sig := syscall.SIGTERM
			if s.engine == Postgres {
				sig = syscall.SIGINT
			}
			errs = append(errs, s.db.stop(sig, 20*time.Second))
		}
		if err := os.RemoveAll(s.dir); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", s.dir, err))
		}
		s.closeErr = errors.Join(errs...)
		s.logger.Info("Database stopped", "engine", string(s.engine), "address", s.addr)
	})
	return s.closeErr
}

// secret returns a random password.
func secret() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// newDir makes the server's directory, owned by acct.
func newDir(cfg Config, acct *account) (string, error) {
	dir, err := os.MkdirTemp(cfg.TempDir, "tidemark-"+string(cfg.Engine)+"-")
	if err != nil {
		return "", fmt.Errorf("start database: %w", err)
	}
	if err := acct.chown(dir); err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("start database: %w", err)
	}
	return dir, nil
}

// run runs a short-lived program to its end (initdb, mariadb-install-db).
func run(ctx context.Context, name string, acct *account, path string, args ...string) error {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.SysProcAttr = acct.sysProcAttr(syscall.SIGKILL)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", name, err, out)
	}
	return nil
}

// postgresBin finds a program of Debian's newest PostgreSQL (/usr/lib/postgresql/N/bin).
func postgresBin(name string) (string, error) {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	slices.SortFunc(matches, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(a))))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(b))))
		return va - vb
	})
	if len(matches) > 0 {
		return matches[len(matches)-1], nil
	}
	return lookPath(name, pkgPostgres)
}

// startAttempts bounds retries when another process takes the free port first.
const startAttempts = 3

func startPostgres(ctx context.Context, cfg Config, logger *slog.Logger) (*Server, error) {
	initdb, err := postgresBin("initdb")
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	postgres, err := postgresBin("postgres")
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	acct, err := systemAccount("postgres", pkgPostgres)
	if err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	dir, err := newDir(cfg, acct)
	if err != nil {
		return nil, err
	}
	s := &Server{engine: Postgres, dir: dir, logger: logger}
	fail := func(err error) (*Server, error) {
		_ = s.Close()
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	password := secret()
	pwFile := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pwFile, []byte(password+"\n"), 0o600); err != nil {
		return fail(err)
	}
	if err := acct.chown(pwFile); err != nil {
		return fail(err)
	}
	data := filepath.Join(dir, "data")
	// Local (socket) connections are trusted: only the account can reach the socket
	// directory; TCP needs the password.
	if err := run(ctx, "initdb", acct, initdb, "-D", data, "-U", "postgres", "--pwfile="+pwFile,
		"--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync", "--locale=C", "-E", "UTF8", "--no-instructions"); err != nil {
		return fail(err)
	}
	_ = os.Remove(pwFile)
	var lastErr error
	for range startAttempts {
		port, err := freePort()
		if err != nil {
			return fail(err)
		}
		args := []string{"-D", data, "-c", "listen_addresses=127.0.0.1", "-c", "port=" + strconv.Itoa(port),
			"-c", "unix_socket_directories=" + data,
			// A throwaway server: durability is not wanted, speed is.
			"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"}
		if cfg.MaxConnections > 0 {
			args = append(args, "-c", "max_connections="+strconv.Itoa(cfg.MaxConnections))
		}
		cmd := exec.Command(postgres, args...)
		// SIGQUIT is PostgreSQL's immediate shutdown: the postmaster ends its backends too.
		cmd.SysProcAttr = acct.sysProcAttr(syscall.SIGQUIT)
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		p, err := startProc("postgres", cmd)
		if err != nil {
			return fail(err)
		}
		s.db = p
		s.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		s.dsn = fmt.Sprintf("postgres://postgres:%s@%s/postgres?sslmode=disable", password, s.addr)
		if lastErr = waitReady(ctx, p, func(ctx context.Context) error { return pingPostgres(ctx, s.dsn) }); lastErr == nil {
			return s, nil
		}
		_ = p.stop(syscall.SIGINT, 10*time.Second)
		s.db = nil
		if ctx.Err() != nil {
			break
		}
	}
	return fail(lastErr)
}

// waitReady polls ping until it succeeds, the process exits or ctx ends.
func waitReady(ctx context.Context, p *proc, ping func(context.Context) error) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		last = ping(pctx)
		cancel()
		if last == nil {
			return nil
		}
		select {
		case <-p.done:
			return p.exitError()
		case <-ctx.Done():
			return fmt.Errorf("%s did not answer: %w (last: %w): %s", p.name, ctx.Err(), last, p.out.String())
		case <-tick.C:
		}
	}
}

func pingPostgres(ctx context.Context, dsn string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("parse dsn: %w", err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

func startMariaDB(ctx context.Context, cfg Config, logger *slog.Logger) (*Server, error) {
	install, err := lookPath("mariadb-install-db", pkgMariaDB)
	if err != nil {
		return nil, fmt.Errorf("start mariadb: %w", err)
	}
	mariadbd, err := lookPath("mariadbd", pkgMariaDB, "/usr/sbin/mariadbd")
	if err != nil {
		return nil, fmt.Errorf("start mariadb: %w", err)
	}
	acct, err := systemAccount("mysql", pkgMariaDB)
	if err != nil {
		return nil, fmt.Errorf("start mariadb: %w", err)
	}
	dir, err := newDir(cfg, acct)
	if err != nil {
		return nil, err
	}
	s := &Server{engine: MariaDB, dir: dir, logger: logger}
	fail := func(err error) (*Server, error) {
		_ = s.Close()
		return nil, fmt.Errorf("start mariadb: %w", err)
	}
	data := filepath.Join(dir, "data")
	// root@localhost authenticates by unix_socket: the OS user of the client process,
	// which is how the application user is created below.
	if err := run(ctx, "mariadb-install-db", acct, install, "--no-defaults", "--datadir="+data,
		"--auth-root-authentication-method=socket", "--skip-test-db"); err != nil {
		return fail(err)
	}
	sock := filepath.Join(dir, "mysqld.sock")
	var lastErr error
	for range startAttempts {
		port, err := freePort()
		if err != nil {
			return fail(err)
		}
		args := []string{"--no-defaults", "--datadir=" + data, "--bind-address=127.0.0.1", "--port=" + strconv.Itoa(port),
			"--socket=" + sock, "--pid-file=" + filepath.Join(dir, "mysqld.pid"), "--skip-name-resolve",
			// A throwaway server: no binary log, a small buffer pool, no durability.
			"--skip-log-bin", "--innodb-buffer-pool-size=16M", "--innodb-flush-log-at-trx-commit=0"}
		if cfg.MaxConnections > 0 {
			args = append(args, "--max-connections="+strconv.Itoa(cfg.MaxConnections))
		}
		// Started as its account (not --user, which would clear the death signal).
		cmd := exec.Command(mariadbd, args...)
		cmd.SysProcAttr = acct.sysProcAttr(syscall.SIGKILL)
		p, err := startProc("mariadbd", cmd)
		if err != nil {
			return fail(err)
		}
		s.db = p
		s.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		admin := mysql.NewConfig()
		admin.Net, admin.Addr, admin.User = "unix", sock, osUser()
		if lastErr = waitReady(ctx, p, func(ctx context.Context) error { return pingMySQL(ctx, admin.FormatDSN()) }); lastErr == nil {
			password := secret()
			if err := createMySQLUser(ctx, admin.FormatDSN(), password); err != nil {
				return fail(err)
			}
			app := mysql.NewConfig()
			app.Net, app.Addr, app.User, app.Passwd, app.DBName = "tcp", s.addr, "tidemark", password, "tidemark"
			s.dsn = app.FormatDSN()
			return s, nil
		}
		_ = p.stop(syscall.SIGTERM, 10*time.Second)
		s.db = nil
		if ctx.Err() != nil {
			break
		}
	}
	return fail(lastErr)
}

// osUser is the account mariadb-install-db gave a unix_socket login: root when we
// are root, else ourselves.
func osUser() string {
	if os.Geteuid() == 0 {
		return "root"
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return strconv.Itoa(os.Geteuid())
}

func pingMySQL(ctx context.Context, dsn string) error {
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	return db.PingContext(ctx)
}

// createMySQLUser creates the application user tidemark@127.0.0.1 with every privilege
// (the exporter reads global status and processlist) and its database tidemark.
func createMySQLUser(ctx context.Context, adminDSN, password string) error {
	db, err := sql.Open("mysql", adminDSN)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	for _, q := range []string{
		"CREATE USER 'tidemark'@'127.0.0.1' IDENTIFIED BY '" + password + "'",
		"GRANT ALL PRIVILEGES ON *.* TO 'tidemark'@'127.0.0.1'",
		"CREATE DATABASE tidemark",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			// The statement holds the password: name the step, not the text.
			return fmt.Errorf("create the application user: %w", err)
		}
	}
	return nil
}
