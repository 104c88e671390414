package output

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/verdict"
)

// Kind is the type of a k6 output, the part of an `--out` value before the first "=".
type Kind string

// The outputs `--out` accepts. This package writes JSON and CSV; the caller handles
// the others.
const (
	JSON             Kind = "json"
	CSV              Kind = "csv"
	PrometheusRW     Kind = "experimental-prometheus-rw"
	WebDashboard     Kind = "web-dashboard"
	defaultCSVFile        = "file.csv" // k6's default csv fileName.
	defaultCSVPeriod      = time.Second
)

// Stdout is the File of a JSON output given without a file name (`--out json`): k6
// writes the lines to its standard output.
const Stdout = "-"

// supported lists the kinds for the error message, in k6's alphabetical order.
const supported = "csv, experimental-prometheus-rw, json, web-dashboard"

// TimeFormat is how the CSV writer writes the timestamp column (k6's timeFormat).
type TimeFormat string

// The CSV time formats of k6.
const (
	Unix        TimeFormat = "unix"
	UnixNano    TimeFormat = "unix_nano"
	UnixMicro   TimeFormat = "unix_micro"
	UnixMilli   TimeFormat = "unix_milli"
	RFC3339     TimeFormat = "rfc3339"
	RFC3339Nano TimeFormat = "rfc3339_nano"
)

func (f TimeFormat) valid() bool {
	switch f {
	case Unix, UnixNano, UnixMicro, UnixMilli, RFC3339, RFC3339Nano:
		return true
	}
	return false
}

// Spec is one parsed `--out` value.
type Spec struct {
	// Kind is the output type.
	Kind Kind
	// Arg is everything after the first "=", as given; empty when there is none.
	Arg string
	// File is the file a JSON or CSV output writes: Stdout for a JSON output without
	// one, file.csv for a CSV output without one. A name ending in .gz is gzipped.
	File string
	// TimeFormat is the CSV timestamp format; default Unix.
	TimeFormat TimeFormat
	// SaveInterval is how often a CSV or JSON output flushes its buffer to the file
	// (k6's saveInterval); default 1 s.
	SaveInterval time.Duration
}

// String returns the value as given on the command line, for messages.
func (s Spec) String() string {
	if s.Arg == "" {
		return string(s.Kind)
	}
	return string(s.Kind) + "=" + s.Arg
}

// ParseSpec parses one `--out` value as k6 does:
//   - `json=FILE` writes FILE; `json` alone writes to standard output. The argument is
//     the file name verbatim, "=" and "," included.
//   - `csv=FILE` writes FILE; `csv` alone writes file.csv. An argument holding "=" is
//     k6's comma-separated options instead: `csv=fileName=a.csv,timeFormat=unix_milli,saveInterval=2s`.
//   - `experimental-prometheus-rw[=…]` is returned for the caller to handle (k6
//     ignores its argument).
//   - `web-dashboard[=host=…&port=…]` is returned for the caller to handle
//     (internal/webdash parses its argument).
//
// Any other type is an error naming the supported ones.
func ParseSpec(value string) (Spec, error) { return parseSpec(value, nil) }

// parseSpec is ParseSpec with k6's K6_CSV_* environment variables under the argument.
func parseSpec(value string, getenv func(string) string) (Spec, error) {
	kind, arg, _ := strings.Cut(value, "=")
	s := Spec{Kind: Kind(kind), Arg: arg}
	switch s.Kind {
	case JSON:
		s.File = arg
		if s.File == "" {
			s.File = Stdout
		}
		s.SaveInterval = defaultCSVPeriod
	case CSV:
		s.File, s.TimeFormat, s.SaveInterval = defaultCSVFile, Unix, defaultCSVPeriod
		if err := s.csvEnv(getenv); err != nil {
			return Spec{}, fmt.Errorf("output %q: %w", value, err)
		}
		if err := s.csvOptions(arg); err != nil {
			return Spec{}, fmt.Errorf("output %q: %w", value, err)
		}
	case PrometheusRW, WebDashboard:
	default:
		return Spec{}, fmt.Errorf("invalid output type %q, available types are: %s", kind, supported)
	}
	return s, nil
}

// csvEnv applies k6's K6_CSV_FILENAME, K6_CSV_TIME_FORMAT and K6_CSV_SAVE_INTERVAL,
// which the --out argument overrides (as k6 v1.8.1 does).
func (s *Spec) csvEnv(getenv func(string) string) error {
	if getenv == nil {
		return nil
	}
	for _, e := range []struct{ env, key string }{
		{"K6_CSV_FILENAME", "fileName"}, {"K6_CSV_TIME_FORMAT", "timeFormat"}, {"K6_CSV_SAVE_INTERVAL", "saveInterval"},
	} {
		if v := getenv(e.env); v != "" {
			if err := s.csvOption(e.key, v); err != nil {
				return fmt.Errorf("%s: %w", e.env, err)
			}
		}
	}
	return nil
}

// csvOptions applies a csv argument: a file name, or k6's key=value options.
func (s *Spec) csvOptions(arg string) error {
	if arg == "" {
		return nil
	}
	if !strings.Contains(arg, "=") {
		s.File = arg
		return nil
	}
	for opt := range strings.SplitSeq(arg, ",") {
		k, v, ok := strings.Cut(opt, "=")
		if !ok {
			return fmt.Errorf("option %q is not key=value", opt)
		}
		if err := s.csvOption(k, v); err != nil {
			return err
		}
	}
	return nil
}

// csvOption applies one csv option.
func (s *Spec) csvOption(k, v string) error {
	switch k {
	case "fileName", "file_name":
		if v == "" {
			return errors.New("fileName is empty")
		}
		s.File = v
	case "timeFormat", "time_format":
		f := TimeFormat(v)
		if !f.valid() {
			return fmt.Errorf("timeFormat %q is not one of unix, unix_nano, unix_micro, unix_milli, rfc3339, rfc3339_nano", v)
		}
		s.TimeFormat = f
	case "saveInterval", "save_interval":
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("saveInterval: %w", err)
		}
		if d <= 0 {
			return fmt.Errorf("saveInterval %s is not positive", v)
		}
		s.SaveInterval = d
	default:
		return fmt.Errorf("unknown option %q: the csv options are fileName, timeFormat and saveInterval", k)
	}
	return nil
}

// ParseSpecs parses every `--out` value (the flag is repeatable). getenv, when not
// nil, reads k6's K6_CSV_FILENAME, K6_CSV_TIME_FORMAT and K6_CSV_SAVE_INTERVAL, which
// set a csv output's options unless its argument does (pass os.Getenv). Errors are
// joined in a *SpecError (a bad configuration: exit code 104). Two file outputs writing the same
// file are an error.
func ParseSpecs(values []string, getenv func(string) string) ([]Spec, error) {
	var (
		out   []Spec
		errs  []error
		files = map[string]bool{}
	)
	for _, v := range values {
		s, err := parseSpec(v, getenv)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if s.File != "" {
			if files[s.File] {
				errs = append(errs, fmt.Errorf("output %q: another output writes %s too", v, s.File))
				continue
			}
			files[s.File] = true
		}
		out = append(out, s)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, &SpecError{Err: err}
	}
	return out, nil
}

// SpecError is an `--out` value that cannot be used as given: the command reports it
// as a bad configuration (exit code 104).
type SpecError struct{ Err error }

// Error returns the wrapped error's message.
func (e *SpecError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *SpecError) Unwrap() error { return e.Err }

// VerdictKind says the outputs cannot be used as given.
func (e *SpecError) VerdictKind() error { return verdict.ErrInvalid }
