package dbserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Exporter is a running postgres_exporter or mysqld_exporter (Debian's
// prometheus-postgres-exporter, prometheus-mysqld-exporter) on a loopback port.
type Exporter struct {
	engine   Engine
	addr     string
	dir      string // the mysqld_exporter's my.cnf; "" for postgres_exporter
	p        *proc
	once     sync.Once
	closeErr error
}

// StartExporter starts the engine's exporter for the server at dsn (in the form of
// DSN) on a free loopback port and returns once its /metrics answers. The DSN reaches
// the exporter by environment (postgres_exporter's DATA_SOURCE_NAME) or by a my.cnf
// file only the owner can read (mysqld_exporter's --config.my-cnf), never by argv.
// The caller must Close it.
func StartExporter(ctx context.Context, engine Engine, dsn string, logger *slog.Logger) (*Exporter, error) {
	var (
		bin, name string
		env       []string
		args      []string
		dir       string
		err       error
	)
	switch engine {
	case Postgres:
		name = "postgres_exporter"
		if bin, err = lookPath("prometheus-postgres-exporter", pkgPostgresExporter); err != nil {
			return nil, fmt.Errorf("start %s: %w", name, err)
		}
		env = append(os.Environ(), "DATA_SOURCE_NAME="+dsn)
	case MariaDB:
		name = "mysqld_exporter"
		if bin, err = lookPath("prometheus-mysqld-exporter", pkgMySQLExporter); err != nil {
			return nil, fmt.Errorf("start %s: %w", name, err)
		}
		if dir, err = os.MkdirTemp("", "tidemark-mysqld-exporter-"); err != nil {
			return nil, fmt.Errorf("start %s: %w", name, err)
		}
		cnf := filepath.Join(dir, "my.cnf")
		if err := writeMyCnf(cnf, dsn); err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("start %s: %w", name, err)
		}
		args = append(args, "--config.my-cnf="+cnf)
		env = os.Environ()
	default:
		return nil, fmt.Errorf("start exporter: unknown engine %q; expected %s or %s", engine, Postgres, MariaDB)
	}
	e := &Exporter{engine: engine, dir: dir}
	var lastErr error
	for range startAttempts {
		port, err := freePort()
		if err != nil {
			lastErr = err
			break
		}
		e.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		cmd := exec.Command(bin, append(args, "--web.listen-address="+e.addr)...)
		cmd.Env = env
		cmd.SysProcAttr = (*account)(nil).sysProcAttr(syscall.SIGKILL)
		p, err := startProc(name, cmd)
		if err != nil {
			lastErr = err
			break
		}
		e.p = p
		if lastErr = waitReady(ctx, p, e.ping); lastErr == nil {
			logger.Debug("Exporter started", "exporter", name, "address", e.addr)
			return e, nil
		}
		_ = p.stop(syscall.SIGTERM, 5*time.Second)
		e.p = nil
		if ctx.Err() != nil {
			break
		}
	}
	_ = e.Close()
	return nil, fmt.Errorf("start %s: %w", name, lastErr)
}

// ping gets /metrics once.
func (e *Exporter) ping(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", e.URL(), resp.Status)
	}
	return nil
}

// Addr is the exporter's host:port.
func (e *Exporter) Addr() string { return e.addr }

// URL is the exporter's metrics URL.
func (e *Exporter) URL() string { return "http://" + e.addr + "/metrics" }

// PID is the exporter's process id.
func (e *Exporter) PID() int { return e.p.pid() }

// Close stops the exporter and removes its files. It is safe to call more than once.
func (e *Exporter) Close() error {
	e.once.Do(func() {
		var errs []error
		if e.p != nil {
			errs = append(errs, e.p.stop(syscall.SIGTERM, 5*time.Second))
		}
		if e.dir != "" {
			if err := os.RemoveAll(e.dir); err != nil {
				errs = append(errs, err)
			}
		}
		e.closeErr = errors.Join(errs...)
	})
	return e.closeErr
}

// writeMyCnf writes mysqld_exporter's client section for a go-sql-driver/mysql DSN,
// readable by its owner only.
func writeMyCnf(path, dsn string) error {
	c, err := mysql.ParseDSN(dsn)
	if err != nil {
		// go-sql-driver's parse errors do not quote the DSN.
		return fmt.Errorf("parse the mysql dsn: %w", err)
	}
	var b strings.Builder
	b.WriteString("[client]\n")
	fmt.Fprintf(&b, "user=%s\npassword=%s\n", c.User, c.Passwd)
	switch c.Net {
	case "unix":
		fmt.Fprintf(&b, "socket=%s\n", c.Addr)
	default:
		host, port, err := net.SplitHostPort(c.Addr)
		if err != nil {
			host, port = c.Addr, "3306"
		}
		fmt.Fprintf(&b, "host=%s\nport=%s\n", host, port)
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}
