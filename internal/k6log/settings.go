package k6log

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"time"
)

// Settings are k6's logging flags: --log-format, --log-output, --console-output,
// --no-color and -v/--verbose.
type Settings struct {
	Format, Output, ConsoleOutput string
	NoColor, Verbose              bool
	// Secrets are values to write as ***SECRET_REDACTED*** (the --secret-source
	// values, as k6 redacts them).
	Secrets []string
	// Redact, when set, replaces secrets in every line too (the values the script
	// fetched from its secret sources); it is called from any goroutine.
	Redact func(string) string
}

// Resolve layers the environment under the flags: K6_LOG_FORMAT, K6_LOG_OUTPUT,
// K6_CONSOLE_OUTPUT, K6_NO_COLOR (and the NO_COLOR convention) and K6_VERBOSE.
func (s Settings) Resolve(getenv func(string) string) Settings {
	s.Format = cmp.Or(s.Format, getenv("K6_LOG_FORMAT"))
	s.Output = cmp.Or(s.Output, getenv("K6_LOG_OUTPUT"))
	s.ConsoleOutput = cmp.Or(s.ConsoleOutput, getenv("K6_CONSOLE_OUTPUT"))
	s.NoColor = s.NoColor || truthy(getenv("K6_NO_COLOR")) || getenv("NO_COLOR") != ""
	s.Verbose = s.Verbose || truthy(getenv("K6_VERBOSE"))
	return s
}

// chain applies first (when set), then then.
func chain(first, then func(string) string) func(string) string {
	if first == nil {
		return then
	}
	return func(line string) string { return then(first(line)) }
}

func truthy(v string) bool {
	b, err := strconv.ParseBool(v)
	return err == nil && b
}

// Loggers are a run's logger and the logger of the script's console.
type Loggers struct {
	Logger, Console *slog.Logger
	files           []*os.File
}

// Close closes the files the loggers write to.
func (l *Loggers) Close() error {
	var errs []error
	for _, f := range l.files {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

// Build makes the loggers s describes on stdout and stderr; isTerminal says whether
// a writer is a terminal (colours only there, and never with NoColor).
func (s Settings) Build(stdout, stderr io.Writer, isTerminal func(io.Writer) bool) (*Loggers, error) {
	format, err := ParseFormat(s.Format)
	if err != nil {
		return nil, err
	}
	out, err := ParseOutput(s.Output, stdout, stderr)
	if err != nil {
		return nil, err
	}
	level := slog.Leveler(slog.LevelInfo)
	if s.Verbose {
		level = slog.LevelDebug
	}
	if out.Level != nil {
		level = out.Level
	}
	start := time.Now()
	redact := Redactor(s.Secrets)
	if s.Redact != nil {
		redact = chain(redact, s.Redact)
	}
	l := &Loggers{}
	if out.File != nil {
		l.files = append(l.files, out.File)
	}
	l.Logger = slog.New(New(Config{Writer: out.Writer, Format: format, Color: !s.NoColor && isTerminal(out.Writer),
		Level: level, Start: start, Redact: redact}))
	l.Console = l.Logger
	if s.ConsoleOutput != "" {
		f, err := os.OpenFile(s.ConsoleOutput, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("--console-output: %w", err), l.Close())
		}
		l.files = append(l.files, f)
		l.Console = slog.New(New(Config{Writer: f, Format: format, Level: level, Start: start, Redact: redact}))
	}
	return l, nil
}
