package cadvisor

import (
	"context"
	"log/slog"

	"k8s.io/klog/v2"
)

// RouteKlog sends klog's output, which cAdvisor's library writes to stderr in klog's own
// format, to logger one level down: klog's Info and Warning (both arrive as Info) become
// Debug and its Error becomes Warn. cAdvisor warns when a cgroup vanishes while it reads
// it, which happens whenever a pod ends mid-scrape; that is not the user's business at
// Info. klog's logger is process-wide, so main calls this once, before any Collector
// gathers (klog's SetLogger must not race with logging); New does not touch it.
func RouteKlog(logger *slog.Logger) {
	klog.SetSlogLogger(slog.New(quietHandler{logger.Handler()}).With("component", "cadvisor"))
}

// quietHandler demotes records by one level (see RouteKlog).
type quietHandler struct{ next slog.Handler }

func demote(l slog.Level) slog.Level {
	switch {
	case l >= slog.LevelError:
		return slog.LevelWarn
	case l >= slog.LevelInfo:
		return slog.LevelDebug
	default:
		return l
	}
}

// Enabled implements slog.Handler.
func (h quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, demote(l))
}

// Handle implements slog.Handler.
func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level)
	return h.next.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h quietHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return quietHandler{h.next.WithAttrs(as)}
}

// WithGroup implements slog.Handler.
func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{h.next.WithGroup(name)}
}
