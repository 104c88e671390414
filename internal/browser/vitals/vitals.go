// Package vitals measures a page's Web Vitals (LCP, FCP, CLS, INP, TTFB, FID) in a real
// Chromium tab driven through the DevTools protocol, and hands each one to the caller as
// a k6 browser metric sample (browser_web_vital_*), tagged with the page's url and its
// rating against Google's thresholds.
package vitals

import (
	"context"
	"crypto/rand"
	_ "embed" // the page script
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/tidemark/tidemark/internal/webvital"
)

//go:embed vitals.js
var pageScript string

// Tags of every sample: the page's URL and the value's rating (webvital.Good,
// webvital.NeedsImprovement or webvital.Poor).
const (
	TagURL    = "url"
	TagRating = "rating"
)

// EmitFunc receives one sample: k6's metric name, the value (seconds for the timed
// vitals, as every time sample of Tidemark's metrics is, and as browser.Emit takes
// them; CLS unitless),
// its tags (url, rating; the caller owns the map) and when it was measured.
type EmitFunc func(metric string, value float64, tags map[string]string, at time.Time)

// report is one binding call of the page script.
type report struct {
	Doc   string  `json:"doc"`
	Seq   int     `json:"seq"`
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	URL   string  `json:"url"`
	Final bool    `json:"final"`
}

// flushAnswer is what the page's flush function returns.
type flushAnswer struct {
	Doc  string `json:"doc"`
	Sent int    `json:"sent"`
}

// watcher receives the binding calls of one tab. Its state belongs to the goroutine that
// handles the queue, except seen and changed (under mu), which flush waits on.
type watcher struct {
	binding, flush string
	emit           EmitFunc

	docs     map[string]*document
	contexts map[string]runtime.ExecutionContextID // unique id → id

	mu      sync.Mutex
	changed chan struct{} // closed and replaced whenever seen changes
	seen    map[string]int
}

// document is what one page load reported.
type document struct {
	context runtime.ExecutionContextID
	url     string
	latest  map[string]float64 // provisional values
	emitted map[string]bool
}

// item is one queued event of the tab: a binding call, or the end of execution contexts
// (ended set; all ends every one).
type item struct {
	payload string
	context runtime.ExecutionContextID
	unique  string // the context's unique id, of created and ended contexts
	created bool
	ended   bool
	all     bool
}

// Watch installs the Web Vitals script in the tab of ctx, a chromedp target context
// whose tab exists (made with chromedp.NewContext and run once), for every document it
// loads from now on: call it before navigating. Each document reports each vital once,
// with its final value, through emit: TTFB, FCP and FID when known, LCP, CLS and INP
// when the page is hidden or unloaded (a navigation away), or when flush is called.
// emit is called from one goroutine, in the order of the reports, and must not run
// commands on the tab. Call flush before closing the page: it makes the current
// document report what is pending and returns once emit has had every report of the
// document, or with an error when its own context ends first. Values still pending when
// the tab's context ends without a flush are not emitted. Watch's listener and its
// goroutine end with the tab's context.
func Watch(ctx context.Context, emit func(metric string, value float64, tags map[string]string, at time.Time)) (flush func(context.Context) error, err error) {
	if emit == nil {
		return nil, errors.New("watch web vitals: emit is nil")
	}
	suffix, err := randomSuffix()
	if err != nil {
		return nil, fmt.Errorf("watch web vitals: %w", err)
	}
	w := &watcher{
		binding:  "__tidemark_vitals_" + suffix,
		flush:    "__tidemark_vitals_flush_" + suffix,
		emit:     emit,
		docs:     map[string]*document{},
		contexts: map[string]runtime.ExecutionContextID{},
		changed:  make(chan struct{}),
		seen:     map[string]int{},
	}
	// The listener only queues the events: it runs in the tab's read loop and must
	// return at once. One goroutine handles them in order.
	var (
		qmu   sync.Mutex
		queue []item
		wake  = make(chan struct{}, 1)
	)
	push := func(it item) {
		qmu.Lock()
		queue = append(queue, it)
		qmu.Unlock()
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventBindingCalled:
			if e.Name == w.binding {
				push(item{payload: e.Payload, context: e.ExecutionContextID})
			}
		case *runtime.EventExecutionContextCreated:
			if e.Context != nil {
				push(item{context: e.Context.ID, unique: e.Context.UniqueID, created: true})
			}
		case *runtime.EventExecutionContextDestroyed:
			push(item{unique: e.ExecutionContextUniqueID, ended: true})
		case *runtime.EventExecutionContextsCleared:
			push(item{ended: true, all: true})
		}
	}); err != nil {
		return nil, fmt.Errorf("watch web vitals: listen: %w", err)
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-wake:
			}
			qmu.Lock()
			batch := queue
			queue = nil
			qmu.Unlock()
			for _, it := range batch {
				w.handle(it, time.Now())
			}
		}
	}()

	if _, err := chromedp.Call(ctx, runtime.AddBinding, runtime.AddBindingParams{Name: w.binding}); err != nil {
		return nil, fmt.Errorf("watch web vitals: add binding: %w", err)
	}
	src, err := w.script()
	if err != nil {
		return nil, fmt.Errorf("watch web vitals: %w", err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src}); err != nil {
		return nil, fmt.Errorf("watch web vitals: add script: %w", err)
	}
	return func(fctx context.Context) error { return w.flushPage(ctx, fctx) }, nil
}

// script is the page script with the binding's and the flush function's names.
func (w *watcher) script() (string, error) {
	b, err := json.Marshal(w.binding)
	if err != nil {
		return "", err
	}
	f, err := json.Marshal(w.flush)
	if err != nil {
		return "", err
	}
	return strings.NewReplacer("BINDING", string(b), "FLUSH", string(f)).Replace(pageScript), nil
}

// handle takes one queued event: a report updates its document (and emits a final
// value); a new document, or the end of a document's context, makes the documents that
// ended emit their latest values.
func (w *watcher) handle(it item, at time.Time) {
	switch {
	case it.created:
		w.contexts[it.unique] = it.context
		return
	case it.ended:
		ctx, known := w.contexts[it.unique]
		delete(w.contexts, it.unique)
		for id, d := range w.docs {
			if it.all || (known && d.context == ctx) {
				w.end(id, at)
			}
		}
		if it.all {
			clear(w.contexts)
		}
		return
	}
	var r report
	if err := json.Unmarshal([]byte(it.payload), &r); err != nil || r.Doc == "" {
		return // not from our script: a page may call any binding it sees
	}
	defer w.count(r.Doc)
	d, ok := w.docs[r.Doc]
	if !ok {
		// One top-level document lives at a time: a new one ends the others, whose
		// last reports may never come (the browser drops a leaving page's calls).
		for id := range w.docs {
			w.end(id, at)
		}
		d = &document{context: it.context, url: r.URL, latest: map[string]float64{}, emitted: map[string]bool{}}
		w.docs[r.Doc] = d
	}
	v, ok := webvital.ByShort(r.Name)
	metric := v.Metric
	if !ok || d.emitted[metric] {
		return
	}
	if !r.Final {
		d.latest[metric] = r.Value
		return
	}
	delete(d.latest, metric)
	w.send(d, metric, r.Value, at)
}

// end emits a document's latest provisional values as final, and forgets it.
func (w *watcher) end(id string, at time.Time) {
	d := w.docs[id]
	delete(w.docs, id)
	for _, metric := range slices.Sorted(maps.Keys(d.latest)) {
		w.send(d, metric, d.latest[metric], at)
	}
}

func (w *watcher) send(d *document, metric string, value float64, at time.Time) {
	d.emitted[metric] = true
	v, _ := webvital.ByMetric(metric)
	rating := v.Rate(value) // the page measures milliseconds, as web.dev's thresholds are
	if v.Timed {
		value /= 1000
	}
	w.emit(metric, value, map[string]string{TagURL: d.url, TagRating: rating}, at)
}

// count records that one more report of doc was handled.
func (w *watcher) count(doc string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen[doc]++
	close(w.changed)
	w.changed = make(chan struct{})
}

// flushPage asks the tab's current document for its pending vitals and waits until every
// report it sent was emitted. tab is the watched tab's context; ctx bounds the wait.
func (w *watcher) flushPage(tab, ctx context.Context) error {
	expr := "typeof window[" + quote(w.flush) + "] === 'function' ? window[" + quote(w.flush) + "]() : ''"
	// The call runs on the tab's context, which carries chromedp's target, and ends
	// also when ctx does.
	cctx, cancel := context.WithCancel(tab)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	res, err := chromedp.Call(cctx, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: new(true)})
	if err != nil {
		return fmt.Errorf("flush web vitals: %w", err)
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("flush web vitals: %s", res.ExceptionDetails.Text)
	}
	var raw string
	if res.Result != nil && len(res.Result.Value) > 0 {
		if err := json.Unmarshal(res.Result.Value, &raw); err != nil {
			return fmt.Errorf("flush web vitals: decode answer: %w", err)
		}
	}
	if raw == "" {
		return nil // a document the script never ran in (about:blank)
	}
	var a flushAnswer
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		return fmt.Errorf("flush web vitals: decode answer: %w", err)
	}
	for {
		w.mu.Lock()
		n, changed := w.seen[a.Doc], w.changed
		w.mu.Unlock()
		if n >= a.Sent {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("flush web vitals: %d of %d reports: %w", n, a.Sent, ctx.Err())
		case <-tab.Done():
			return fmt.Errorf("flush web vitals: %d of %d reports: %w", n, a.Sent, tab.Err())
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

func randomSuffix() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}
