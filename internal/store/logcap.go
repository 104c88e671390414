package store

import (
	"context"
	"fmt"
	"log/slog"
)

// maxLoggedValue bounds each value the store's Prometheus components log, and
// maxAnswerText the error text a rejected write answers with. Prometheus' remote-write
// 2.0 handler logs each rejected series with its labels and answers with all of them in
// one error: a rejected 786 KB request logged a 16.8 MB line and answered with it. A
// series' name and first labels fit in 512 bytes, and one log line per rejected series
// then stays well under the request's own size; 4 KiB of answer keeps the first few
// series whole, which is what an operator reads.
const (
	maxLoggedValue = 512
	maxAnswerText  = 4 << 10
)

// capText cuts s to at most max bytes, saying how much was left out.
func capText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	return fmt.Sprintf("%s… (%d more bytes)", s[:limit], len(s)-limit)
}

// cappedHandler is a slog.Handler that cuts every string, error and Stringer value (and
// the message) to max bytes before the next handler sees it.
type cappedHandler struct {
	next slog.Handler
	max  int
}

// newCappedLogger returns logger with every logged value cut to max bytes.
func newCappedLogger(logger *slog.Logger, limit int) *slog.Logger {
	return slog.New(&cappedHandler{next: logger.Handler(), max: limit})
}

// Enabled implements slog.Handler.
func (h *cappedHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

// Handle implements slog.Handler.
func (h *cappedHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, capText(r.Message, h.max), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.capAttr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

// WithAttrs implements slog.Handler.
func (h *cappedHandler) WithAttrs(as []slog.Attr) slog.Handler {
	capped := make([]slog.Attr, len(as))
	for i, a := range as {
		capped[i] = h.capAttr(a)
	}
	return &cappedHandler{next: h.next.WithAttrs(capped), max: h.max}
}

// WithGroup implements slog.Handler.
func (h *cappedHandler) WithGroup(name string) slog.Handler {
	return &cappedHandler{next: h.next.WithGroup(name), max: h.max}
}

func (h *cappedHandler) capAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if len(v.String()) > h.max {
			return slog.String(a.Key, capText(v.String(), h.max))
		}
	case slog.KindGroup:
		g := v.Group()
		capped := make([]any, len(g))
		for i, ga := range g {
			capped[i] = h.capAttr(ga)
		}
		return slog.Group(a.Key, capped...)
	case slog.KindAny:
		var s string
		switch x := v.Any().(type) {
		case error:
			s = x.Error()
		case fmt.Stringer:
			s = x.String()
		default:
			return a
		}
		if len(s) > h.max {
			return slog.String(a.Key, capText(s, h.max))
		}
	}
	return a
}
