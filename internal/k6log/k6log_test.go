package k6log

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestHandlerFormats: one console record in each of k6's formats.
func TestHandlerFormats(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	at := start.Add(1500 * time.Millisecond)
	for _, tc := range []struct {
		name   string
		cfg    Config
		level  slog.Level
		msg    string
		attrs  []any
		want   string
		wantRe string
	}{
		{name: "plain", level: slog.LevelInfo, msg: "x", attrs: []any{"source", "console"},
			want: "time=\"2026-05-01T10:00:01.5Z\" level=info msg=x source=console\n"},
		{name: "plain quotes", level: slog.LevelWarn, msg: "hello world", attrs: []any{"b", "has space", "a", "plain"},
			want: "time=\"2026-05-01T10:00:01.5Z\" level=warning msg=\"hello world\" a=plain b=\"has space\"\n"},
		{name: "color", cfg: Config{Color: true}, level: slog.LevelInfo, msg: "x", attrs: []any{"source", "console"},
			wantRe: `^\x1b\[36mINFO\x1b\[0m\[0001\] x {43} \x1b\[36msource\x1b\[0m=console\n$`},
		{name: "color error", cfg: Config{Color: true}, level: slog.LevelError, msg: "boom",
			wantRe: `^\x1b\[31mERRO\x1b\[0m\[0001\] boom +\n$`},
		{name: "json", cfg: Config{Format: FormatJSON}, level: slog.LevelDebug, msg: "x", attrs: []any{"source", "console"},
			want: `{"level":"debug","msg":"x","source":"console","time":"2026-05-01T10:00:01.5Z"}` + "\n"},
		{name: "raw", cfg: Config{Format: FormatRaw}, level: slog.LevelInfo, msg: "just this", attrs: []any{"source", "console"},
			want: "just this\n"},
		{name: "redacted", cfg: Config{Redact: Redactor([]string{"s3cr3t"})}, level: slog.LevelInfo, msg: "token s3cr3t",
			want: "time=\"2026-05-01T10:00:01.5Z\" level=info msg=\"token ***SECRET_REDACTED***\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			cfg := tc.cfg
			cfg.Writer, cfg.Start, cfg.Level = &buf, start, slog.LevelDebug
			r := slog.NewRecord(at, tc.level, tc.msg, 0)
			r.Add(tc.attrs...)
			require.NoError(t, New(cfg).Handle(t.Context(), r))
			if tc.wantRe != "" {
				require.Regexp(t, tc.wantRe, buf.String())
				return
			}
			require.Equal(t, tc.want, buf.String())
		})
	}
}

// TestHandlerLevelAndAttrs: records under the level are dropped; WithAttrs and
// WithGroup fields come out as dotted keys.
func TestHandlerLevelAndAttrs(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := slog.New(New(Config{Writer: &buf, Format: FormatJSON})).With("component", "tsdb").WithGroup("g")
	l.Debug("hidden")
	l.Info("shown", "k", 1)
	var obj map[string]string
	require.NoError(t, json.Unmarshal(buf.Bytes(), &obj))
	require.Equal(t, "shown", obj["msg"])
	require.Equal(t, "tsdb", obj["component"])
	require.Equal(t, "1", obj["g.k"])
}

// TestParseOutput: k6's --log-output destinations.
func TestParseOutput(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	for spec, want := range map[string]io.Writer{"": &stderr, "stderr": &stderr, "stdout": &stdout, "none": io.Discard} {
		o, err := ParseOutput(spec, &stdout, &stderr)
		require.NoError(t, err)
		require.Equal(t, want, o.Writer, spec)
	}
	path := filepath.Join(t.TempDir(), "out.log")
	o, err := ParseOutput("file="+path+",level=warning", &stdout, &stderr)
	require.NoError(t, err)
	require.Equal(t, slog.LevelWarn, o.Level.Level())
	_, err = io.WriteString(o.Writer, "line\n")
	require.NoError(t, err)
	require.NoError(t, o.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "line\n", string(b))
	for spec, wantErr := range map[string]string{
		"loki=http://x":      "--log-output loki=…: pushing logs to Loki is not supported by Tidemark; use stderr, stdout, none or file=PATH",
		"syslog":             `--log-output "syslog": expected stderr, stdout, none or file[=PATH][,level=LEVEL]`,
		"file=x.log,level=z": `--log-output file: unknown level "z"; expected debug, info, warning or error`,
	} {
		_, err := ParseOutput(spec, &stdout, &stderr)
		require.EqualError(t, err, wantErr)
	}
}

// TestSettings: the K6_* variables under the flags, and colours only on a terminal
// without --no-color.
func TestSettings(t *testing.T) {
	t.Parallel()
	env := map[string]string{"K6_LOG_FORMAT": "json", "K6_NO_COLOR": "true", "K6_CONSOLE_OUTPUT": "c.log", "K6_LOG_OUTPUT": "stdout"}
	s := Settings{Format: "raw"}.Resolve(func(k string) string { return env[k] })
	require.Equal(t, Settings{Format: "raw", Output: "stdout", ConsoleOutput: "c.log", NoColor: true}, s)
	require.True(t, Settings{}.Resolve(func(k string) string { return map[string]string{"NO_COLOR": "1"}[k] }).NoColor)

	terminal := func(io.Writer) bool { return true }
	for noColor, want := range map[bool]string{false: "\x1b[36mINFO", true: "level=info"} {
		var stderr bytes.Buffer
		l, err := Settings{NoColor: noColor}.Build(io.Discard, &stderr, terminal)
		require.NoError(t, err)
		l.Logger.Info("x")
		require.Contains(t, stderr.String(), want)
		require.NoError(t, l.Close())
	}
	_, err := Settings{Format: "xml"}.Build(io.Discard, io.Discard, terminal)
	require.EqualError(t, err, `--log-format "xml": expected text, json or raw`)
}
