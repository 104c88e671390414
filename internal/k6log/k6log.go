// Package k6log writes log records in k6's console formats: logrus' text format
// (`INFO[0001] msg  source=console` on a colour terminal, `time="…" level=info msg=…`
// otherwise), its JSON format and k6's raw format (the message alone). It also reads
// k6's --log-output destinations.
package k6log

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Formats of --log-format (K6_LOG_FORMAT): "" and "text" are logrus' text format.
const (
	FormatText = "text"
	FormatJSON = "json"
	FormatRaw  = "raw"
)

// ParseFormat checks a --log-format value: text (or empty), json or raw.
func ParseFormat(s string) (string, error) {
	switch s {
	case "", FormatText:
		return FormatText, nil
	case FormatJSON, FormatRaw:
		return s, nil
	}
	return "", fmt.Errorf("--log-format %q: expected text, json or raw", s)
}

// Config configures a Handler.
type Config struct {
	// Writer receives one line per record.
	Writer io.Writer
	// Format is FormatText, FormatJSON or FormatRaw.
	Format string
	// Color writes the text format as logrus does on a terminal: a coloured
	// four-letter level and the seconds since Start in brackets.
	Color bool
	// Level is the least level written; default Info.
	Level slog.Leveler
	// Start is the time [0000] counts from; default the Handler's creation.
	Start time.Time
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Redact replaces secrets in the line before it is written; nil writes it as is.
	Redact func(string) string
}

// Handler is a slog.Handler that writes k6's log lines. It is safe for concurrent
// use; handlers derived with WithAttrs and WithGroup share its writer's lock.
type Handler struct {
	cfg    *Config
	mu     *sync.Mutex
	attrs  []slog.Attr
	prefix string // the open groups, "a.b."
}

// New returns a Handler for cfg.
func New(cfg Config) *Handler {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Start.IsZero() {
		cfg.Start = cfg.Now()
	}
	if cfg.Level == nil {
		cfg.Level = slog.LevelInfo
	}
	cfg.Format, _ = ParseFormat(cfg.Format)
	return &Handler{cfg: &cfg, mu: &sync.Mutex{}}
}

// Enabled reports whether level reaches the configured level.
func (h *Handler) Enabled(_ context.Context, level slog.Level) bool {
	return level >= h.cfg.Level.Level()
}

// WithAttrs returns a handler whose records carry attrs too.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := *h
	out.attrs = slices.Clone(h.attrs)
	for _, a := range attrs {
		out.attrs = append(out.attrs, slog.Attr{Key: h.prefix + a.Key, Value: a.Value})
	}
	return &out
}

// WithGroup returns a handler that prefixes later keys with name and a dot.
func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	out := *h
	out.prefix = h.prefix + name + "."
	return &out
}

// Handle writes r as one line.
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	fields := map[string]string{}
	for _, a := range h.attrs {
		addAttr(fields, "", a)
	}
	r.Attrs(func(a slog.Attr) bool {
		addAttr(fields, h.prefix, a)
		return true
	})
	t := r.Time
	if t.IsZero() {
		t = h.cfg.Now()
	}
	var line string
	switch {
	case h.cfg.Format == FormatRaw:
		line = r.Message + "\n"
	case h.cfg.Format == FormatJSON:
		line = h.jsonLine(t, r.Level, r.Message, fields)
	case h.cfg.Color:
		line = h.colorLine(t, r.Level, r.Message, fields)
	default:
		line = plainLine(t, r.Level, r.Message, fields)
	}
	if h.cfg.Redact != nil {
		line = h.cfg.Redact(line)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.cfg.Writer, line)
	return err
}

// addAttr adds a to fields, groups flattened as dotted keys.
func addAttr(fields map[string]string, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range v.Group() {
			addAttr(fields, p, g)
		}
		return
	}
	if a.Key == "" {
		return
	}
	fields[prefix+a.Key] = v.String()
}

// LevelName is logrus' name of a level: debug, info, warning or error.
func LevelName(l slog.Level) string {
	switch {
	case l < slog.LevelInfo:
		return "debug"
	case l < slog.LevelWarn:
		return "info"
	case l < slog.LevelError:
		return "warning"
	}
	return "error"
}

// timeFormat is the time of the plain and JSON lines (k6 v2.3 logs nanoseconds).
const timeFormat = time.RFC3339Nano

// plainLine is logrus' text format without colours:
// time="…" level=info msg="…" key=value, the keys sorted.
func plainLine(t time.Time, level slog.Level, msg string, fields map[string]string) string {
	var b strings.Builder
	b.WriteString("time=")
	b.WriteString(quote(t.Format(timeFormat)))
	b.WriteString(" level=")
	b.WriteString(LevelName(level))
	b.WriteString(" msg=")
	b.WriteString(quote(msg))
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		b.WriteString(" " + k + "=" + quote(fields[k]))
	}
	b.WriteByte('\n')
	return b.String()
}

// colorLine is logrus' text format on a terminal: LEVL[secs] msg (padded) key=value.
func (h *Handler) colorLine(t time.Time, level slog.Level, msg string, fields map[string]string) string {
	color := levelColor(level)
	name := strings.ToUpper(LevelName(level))[:4]
	secs := int(t.Sub(h.cfg.Start) / time.Second)
	var b strings.Builder
	fmt.Fprintf(&b, "\x1b[%dm%s\x1b[0m[%04d] %-44s", color, name, secs, strings.TrimRight(msg, "\n"))
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		fmt.Fprintf(&b, " \x1b[%dm%s\x1b[0m=%s", color, k, quote(fields[k]))
	}
	b.WriteByte('\n')
	return b.String()
}

// jsonLine is logrus' JSON format: one object, keys sorted, with level, msg and time.
func (h *Handler) jsonLine(t time.Time, level slog.Level, msg string, fields map[string]string) string {
	obj := maps.Clone(fields)
	obj["level"], obj["msg"], obj["time"] = LevelName(level), msg, t.Format(timeFormat)
	b, err := json.Marshal(obj)
	if err != nil {
		return strconv.Quote(msg) + "\n"
	}
	return string(b) + "\n"
}

// levelColor is the ANSI colour of a level: grey debug, blue info, yellow warning,
// red error.
func levelColor(l slog.Level) int {
	switch LevelName(l) {
	case "debug":
		return 37
	case "warning":
		return 33
	case "error":
		return 31
	}
	return 36
}

// quote quotes s as logrus does when it holds anything but letters, digits and
// -._/@^+.
func quote(s string) string {
	for _, c := range s {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && !strings.ContainsRune("-._/@^+", c) {
			return strconv.Quote(s)
		}
	}
	return s
}

var _ slog.Handler = (*Handler)(nil)
