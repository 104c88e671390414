package webcrypto_test

import (
	"context"
	"encoding/hex"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// logs keeps the messages a run logs (console lines among them).
type logs struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logs) Enabled(context.Context, slog.Level) bool { return true }
func (l *logs) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logs) WithGroup(string) slog.Handler            { return l }
func (l *logs) Handle(_ context.Context, r slog.Record) error {
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "error" || a.Key == "err" {
			msg += " " + a.Value.String()
		}
		return true
	})
	l.mu.Lock()
	l.msgs = append(l.msgs, msg)
	l.mu.Unlock()
	return nil
}

// all returns the messages so far.
func (l *logs) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.msgs...)
}

// value returns what follows prefix in the first message starting with it.
func (l *logs) value(t *testing.T, prefix string) string {
	t.Helper()
	for _, m := range l.all() {
		if rest, ok := strings.CutPrefix(m, prefix); ok {
			return rest
		}
	}
	require.Failf(t, "no such log line", "no message starts with %q in %q", prefix, l.all())
	return ""
}

// bytesAfter decodes the hex after prefix in the log.
func (l *logs) bytesAfter(t *testing.T, prefix string) []byte {
	t.Helper()
	b, err := hex.DecodeString(l.value(t, prefix))
	require.NoError(t, err)
	return b
}

// helpers are JavaScript helpers every test script gets.
const helpers = `
import { check } from "k6";
const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");
const unhex = (s) => new Uint8Array(s.match(/../g).map((h) => parseInt(h, 16)));
const utf8 = (s) => new Uint8Array([...s].map((c) => c.charCodeAt(0)));
const rejects = async (p) => { try { await p; return "resolved"; } catch (e) { return e.name; } };
`

// run runs script (with helpers) for one iteration, requires every check to pass and
// returns the logs.
func run(t *testing.T, script string) *logs {
	t.Helper()
	l := &logs{}
	h := modulestest.Start(t, map[string]string{"script.js": helpers + script},
		modulestest.WithLogger(slog.New(l)))
	h.Iterate(t)
	checks := h.Checks()
	require.NotEmpty(t, checks, "the script made no checks; logs: %q", l.all())
	for name, ok := range checks {
		require.True(t, ok, "check %q failed; logs: %q", name, l.all())
	}
	return l
}
