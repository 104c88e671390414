package k6log

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
)

// DefaultLogFile is the file of --log-output=file without a path.
const DefaultLogFile = "k6.log"

// Output is where --log-output sends the log: a writer, with the least level it
// takes (a file's level=…) and whether it is a terminal (for colours).
type Output struct {
	Writer io.Writer
	// Level is the least level written; nil leaves it to the -v/--verbose default.
	Level slog.Leveler
	// File is the file opened for file=…; the caller closes it.
	File *os.File
}

// Close closes the output's file, if it opened one.
func (o Output) Close() error {
	if o.File == nil {
		return nil
	}
	return o.File.Close()
}

// ParseOutput reads a --log-output value (K6_LOG_OUTPUT): stderr (the default),
// stdout, none, or file[=PATH][,level=LEVEL] (appending to PATH, default k6.log).
// loki=… is k6's push to Loki, which Tidemark does not have: an error says so.
func ParseOutput(spec string, stdout, stderr io.Writer) (Output, error) {
	kind, rest, _ := strings.Cut(spec, "=")
	switch kind {
	case "", "stderr":
		return Output{Writer: stderr}, nil
	case "stdout":
		return Output{Writer: stdout}, nil
	case "none":
		return Output{Writer: io.Discard}, nil
	case "file":
		return openFile(rest)
	case "loki":
		return Output{}, errors.New("--log-output loki=…: pushing logs to Loki is not supported by Tidemark; use stderr, stdout, none or file=PATH")
	}
	return Output{}, fmt.Errorf("--log-output %q: expected stderr, stdout, none or file[=PATH][,level=LEVEL]", spec)
}

// openFile opens file=PATH[,level=LEVEL]'s file for appending.
func openFile(arg string) (Output, error) {
	path, level := DefaultLogFile, slog.Leveler(nil)
	for i, part := range strings.Split(arg, ",") {
		k, v, ok := strings.Cut(part, "=")
		switch {
		case i == 0 && !ok:
			if part != "" {
				path = part
			}
		case k == "level":
			l, err := ParseLevel(v)
			if err != nil {
				return Output{}, fmt.Errorf("--log-output file: %w", err)
			}
			level = l
		default:
			return Output{}, fmt.Errorf("--log-output file: unknown parameter %q; expected file=PATH[,level=LEVEL]", part)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return Output{}, fmt.Errorf("--log-output file: %w", err)
	}
	return Output{Writer: f, Level: level, File: f}, nil
}

// ParseLevel reads a logrus level name: trace and debug, info, warning (warn), error,
// fatal and panic.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "trace", "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warning", "warn":
		return slog.LevelWarn, nil
	case "error", "fatal", "panic":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("unknown level %q; expected debug, info, warning or error", s)
}
