package remotewrite

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/series"
)

// The send path, as in Prometheus' queue manager: sendWithBackoff encodes a batch once
// and retries recoverable failures with exponential backoff; attempt sends it once and
// classifies the outcome. Every request of the client (pushes, the final flush, stale
// markers, Write) goes through sendWithBackoff.

// Kinds of batch, for the log, the hints and the histogram count.
const (
	kindSamples    = "samples"
	kindHistograms = "histograms"
	kindWriteBack  = "write-back"
)

// batch is the content of one request: series of one kind, each with one sample at ts
// (its value, its native histogram or, when stale, a stale marker).
type batch struct {
	series []series.Series
	ts     int64
	stale  bool
	kind   string
	// depth counts the splits that made this batch out of a rejected one.
	depth int
}

// retryState is the backoff of the client, shared by consecutive batches: a newer
// snapshot waits out the backoff (and Retry-After) of the request that failed before it.
type retryState struct {
	backoff   time.Duration
	notBefore time.Time
	// failing is set from a recoverable failure until the next accepted request.
	failing bool
}

var (
	errSuperseded = errors.New("superseded by a newer snapshot")
	// errDowngrade: the receiver only speaks remote write 1.0.
	errDowngrade = errors.New("receiver does not support remote write 2.0")
)

// sendWithBackoff sends b until it is accepted, rejected, superseded (the backoff ends
// after due; a zero due never passes) or ctx ends. It returns nil when accepted, a
// *rejectedError (already logged and counted as dropped) when rejected, errSuperseded,
// or ctx's error. The caller counts what it leaves unsent.
func (c *Client) sendWithBackoff(ctx context.Context, b batch, due time.Time) error {
	body, err := c.enc.encode(b.series, b.ts, b.stale)
	if err != nil {
		return fmt.Errorf("encode remote write request: %w", err)
	}
	n := float64(len(b.series))
	for try := 0; ; try++ {
		if err := c.waitBackoff(ctx, due); err != nil {
			return err
		}
		// A request after a recoverable failure is a retry, even when it carries a
		// newer snapshot than the one that failed.
		if try > 0 || c.retry.failing {
			c.m.retries.Inc()
			c.m.retried.Add(n)
		}
		err := c.attempt(ctx, body)
		if errors.Is(err, errDowngrade) {
			// Fall back to 1.0 for the rest of the run and send this batch again; the
			// ignored request is neither a failure nor a retry.
			c.enc = newEncoder(Protocol1)
			if body, err = c.enc.encode(b.series, b.ts, b.stale); err != nil {
				return fmt.Errorf("encode remote write request: %w", err)
			}
			try--
			continue
		}
		if err == nil {
			c.accepted(b)
			return nil
		}
		c.m.failed.Add(n)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if rerr, ok := errors.AsType[*recoverableError](err); ok {
			c.backOff(rerr, try, b.kind)
			continue
		}
		if tooLarge(err) && len(b.series) > 1 {
			c.halveBatches(len(b.series))
			return c.split(ctx, b, due)
		}
		if splittable(err) && len(b.series) > 1 && !c.noSplit[b.kind] {
			return c.split(ctx, b, due)
		}
		return c.rejected(ctx, b, err)
	}
}

// maxSplitRequests bounds the requests one push spends splitting rejected batches: one
// bad series among 2,000 is found in about 22 (two per halving), and once found it is
// never sent again, so later pushes find the next ones.
const maxSplitRequests = 64

// tooLarge tells whether the receiver refused a request for its size: a 413, or a 400
// that says so (VictoriaMetrics' -maxInsertRequestSize).
func tooLarge(err error) bool {
	perr, ok := errors.AsType[*permanentError](err)
	if !ok {
		return false
	}
	lower := strings.ToLower(perr.msg)
	return perr.status == http.StatusRequestEntityTooLarge || strings.Contains(lower, "too big") || strings.Contains(lower, "too large")
}

// halveBatches sets max_samples_per_send, for the rest of the run, to half the size of a
// request of n samples the receiver found too large.
func (c *Client) halveBatches(n int) {
	if half := max(1, min(c.maxSamples, n)/2); half < c.maxSamples {
		c.maxSamples = half
		c.logger.Warn("Halving remote write batch size after a request too large", "max_samples_per_send", c.maxSamples)
	}
}

// splittable tells whether a rejection may concern some of the series only: a 400 or a
// 422 (a label value too long, a sample out of order), not a 401, 403, 404 or 413.
func splittable(err error) bool {
	s := statusOf(err)
	return s == http.StatusBadRequest || s == http.StatusUnprocessableEntity
}

// split sends the halves of a rejected batch, each split again when rejected, so that
// a receiver refusing one series (a label value over its limit) does not take the whole
// request's samples with it. A series rejected alone is refused: dropped now and never
// sent again. When the push's split budget runs out, the rest is dropped as rejected;
// when a split finds nothing the receiver accepts (it refuses the whole kind, e.g. native
// histograms), that kind is not split again until a batch of it is accepted.
func (c *Client) split(ctx context.Context, b batch, due time.Time) error {
	before := c.acceptedBatches
	half := len(b.series) / 2
	var first error
	for _, part := range [][]series.Series{b.series[:half], b.series[half:]} {
		sub := batch{series: part, ts: b.ts, stale: b.stale, kind: b.kind, depth: b.depth + 1}
		if c.splits >= maxSplitRequests {
			first = cmp.Or(first, c.rejected(ctx, sub, &permanentError{status: http.StatusBadRequest, msg: "not split further: the push's split budget is spent"}))
			continue
		}
		c.splits++
		err := c.sendWithBackoff(ctx, sub, due)
		switch {
		case err == nil:
		case isRejection(err):
			first = cmp.Or(first, err)
		default:
			return err
		}
	}
	if b.depth == 0 {
		if c.acceptedBatches == before {
			// The receiver took none of it: the rejection is not about some series.
			c.noSplit[b.kind] = true
		} else {
			for _, r := range c.refusing {
				c.refuse(r.s, r.msg)
			}
		}
		c.refusing = c.refusing[:0]
	}
	return first
}

// refuse marks a series the receiver rejected alone while it accepted others of the
// same request: it is not sent again.
func (c *Client) refuse(s series.Series, msg string) {
	if _, ok := c.refused[s.Ref]; ok {
		return
	}
	c.refused[s.Ref] = msg
	c.m.refusedSeries.Inc()
	c.logger.Warn("Remote write receiver refused a series; it will not be sent again", "series", s.Name, "message", msg)
}

// attempt POSTs body once and classifies the outcome: nil when accepted, errDowngrade
// when a 1.x receiver refused or ignored a 2.0 request, a *recoverableError (network
// error, 5xx, 429, with Retry-After) or a *permanentError.
func (c *Client) attempt(ctx context.Context, body []byte) error {
	begin := c.clock.Now()
	hdr, err := c.store(ctx, body)
	c.m.duration.Observe(c.clock.Now().Sub(begin).Seconds())
	if c.enc.version() != versionV2 {
		return err
	}
	perr, rejected := errors.AsType[*permanentError](err)
	// A 1.x receiver either refuses 2.0 (415) or, worse, answers 2xx having decoded
	// nothing: 2.0 receivers always report what they wrote.
	missing := err == nil && hdr.Get(headerSamplesWritten) == ""
	if missing || rejected && perr.status == http.StatusUnsupportedMediaType {
		c.logger.Warn("Receiver does not support remote write 2.0, falling back to 1.0",
			"status", statusOf(err), "missing_header", missing)
		return errDowngrade
	}
	return err
}

// accepted counts an accepted batch and ends a failure streak.
func (c *Client) accepted(b batch) {
	delete(c.noSplit, b.kind)
	c.acceptedBatches++
	n := float64(len(b.series))
	c.m.samples.Add(n)
	if b.kind == kindHistograms && !b.stale {
		c.m.histograms.Add(n)
	}
	c.m.requests.Inc()
	c.m.lastSuccess.Set(float64(c.clock.Now().UnixNano()) / 1e9)
	c.retry.backoff = 0
	if c.retry.failing {
		c.retry.failing = false
		c.logger.Info("Remote write recovered")
	}
}

// backOff doubles the backoff within [min_backoff, max_backoff] and sets when the next
// request may go: after a jittered backoff, and not before Retry-After.
func (c *Client) backOff(err *recoverableError, try int, kind string) {
	q := c.cfg.Queue
	c.retry.backoff = min(max(2*c.retry.backoff, time.Duration(q.MinBackoff)), time.Duration(q.MaxBackoff))
	// Full jitter in [backoff/2, backoff] spreads the retries of many instances.
	wait := c.retry.backoff/2 + rand.N(c.retry.backoff/2+1)
	wait = max(wait, err.retryAfter)
	c.retry.notBefore = c.clock.Now().Add(wait)
	if !c.retry.failing {
		c.retry.failing = true
		c.logger.Warn("Remote write failed, retrying", "err", err, "kind", kind, "backoff_seconds", wait.Seconds())
		return
	}
	c.logger.Debug("Remote write failed again, retrying", "err", err, "attempt", try+1, "backoff_seconds", wait.Seconds())
}

// waitBackoff waits until the backoff is over. When it ends after due (unless due is
// zero) it waits until due and returns errSuperseded instead; it returns ctx's error if
// ctx ends first.
func (c *Client) waitBackoff(ctx context.Context, due time.Time) error {
	now := c.clock.Now()
	wait := c.retry.notBefore.Sub(now)
	if wait <= 0 {
		return nil
	}
	superseded := !due.IsZero() && now.Add(wait).After(due)
	if superseded {
		wait = due.Sub(now)
		if wait <= 0 {
			return errSuperseded
		}
	}
	t := c.clock.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C():
	}
	if superseded {
		return errSuperseded
	}
	return nil
}

// rejected logs a rejection (at Error the first time for its status and kind, then at
// Debug), counts the batch as dropped, halves the batch size after a 413 and returns
// the rejection.
func (c *Client) rejected(ctx context.Context, b batch, err error) error {
	perr, ok := errors.AsType[*permanentError](err)
	if !ok {
		perr = &permanentError{msg: err.Error()}
	}
	c.m.dropped.Add(float64(len(b.series)))
	if len(b.series) == 1 && b.depth > 0 && splittable(perr) && !b.stale {
		c.refusing = append(c.refusing, refusal{b.series[0], fmt.Sprintf("%d %s", perr.status, perr.msg)})
	}
	key := strconv.Itoa(perr.status) + "/" + b.kind
	level := slog.LevelDebug
	if !c.logged[key] {
		c.logged[key] = true
		level = slog.LevelError
	}
	c.logger.Log(ctx, level, "Remote write rejected by the receiver; not retrying, samples dropped",
		"status", perr.status, "message", perr.msg, "kind", b.kind, "samples", len(b.series), "hint", hint(perr.status, b.kind, perr.msg))
	return &rejectedError{perr}
}

func hint(status int, kind, msg string) string {
	lower := strings.ToLower(msg)
	switch {
	case status == http.StatusRequestEntityTooLarge || strings.Contains(lower, "too big") || strings.Contains(lower, "too large"):
		return "request too large: lower queue_config.max_samples_per_send"
	case status == http.StatusNotFound:
		return "check the URL path (Prometheus: /api/v1/write, started with --web.enable-remote-write-receiver)"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "check the credentials (basic_auth, authorization, sigv4) and tenant headers"
	case kind == kindHistograms:
		return "the receiver may not accept native histograms (Prometheus: --enable-feature=native-histograms)"
	case status == http.StatusBadRequest:
		return "the receiver refused the samples; see its message (out of order, duplicate or invalid labels are common causes)"
	}
	return ""
}

// recoverableError is a failure worth retrying: a network error, a 5xx or a 429.
type recoverableError struct {
	err        error
	retryAfter time.Duration
}

func (e *recoverableError) Error() string { return e.err.Error() }
func (e *recoverableError) Unwrap() error { return e.err }

// permanentError is a rejection (4xx other than 429) with the receiver's message.
type permanentError struct {
	status int
	msg    string
}

func (e *permanentError) Error() string {
	return fmt.Sprintf("remote write receiver returned %d: %s", e.status, e.msg)
}

// rejectedError is a batch given up on after a rejection: logged, and counted as
// dropped. The other batches are still sent.
type rejectedError struct{ *permanentError }

func (e *rejectedError) Unwrap() error { return e.permanentError }

func isRejection(err error) bool {
	_, ok := errors.AsType[*rejectedError](err)
	return ok
}

// headerSamplesWritten is set by every remote-write 2.0 receiver on success.
const headerSamplesWritten = "X-Prometheus-Remote-Write-Samples-Written"

// statusOf returns the HTTP status of a permanent error, 2xx for success, else 0.
func statusOf(err error) int {
	if err == nil {
		return http.StatusNoContent
	}
	if perr, ok := errors.AsType[*permanentError](err); ok {
		return perr.status
	}
	return 0
}

// store POSTs one request body and returns the response headers on success.
func (c *Client) store(ctx context.Context, body []byte) (http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, &permanentError{msg: err.Error()}
	}
	for k, v := range c.cfg.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("Content-Type", c.enc.contentType())
	req.Header.Set("X-Prometheus-Remote-Write-Version", c.enc.version())
	req.Header.Set("User-Agent", c.ua)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, &recoverableError{err: fmt.Errorf("send remote write request: %w", err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return resp.Header, nil
	}
	msg := receiverMessage(resp.Body)
	if resp.StatusCode/100 == 5 || resp.StatusCode == http.StatusTooManyRequests {
		return nil, &recoverableError{
			err:        fmt.Errorf("remote write receiver returned %d: %s", resp.StatusCode, msg),
			retryAfter: retryAfter(resp.Header.Get("Retry-After"), c.clock.Now()),
		}
	}
	return nil, &permanentError{status: resp.StatusCode, msg: msg}
}

// receiverMessage returns the first line of a response body, at most 256 bytes.
func receiverMessage(r io.Reader) string {
	line, _ := bufio.NewReader(io.LimitReader(r, 256)).ReadString('\n')
	line = strings.TrimSpace(line)
	if line == "" {
		return "(empty response body)"
	}
	return line
}

// retryAfter parses a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}
