package output

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidemark/tidemark/internal/metrics"
)

// DefaultQueueSize is the number of batches a writer's queue holds. The engine pushes
// one batch per request (about ten samples), so at 20,000 requests/s the queue holds
// about 0.8 s of samples, some 10 MB: enough to ride out a slow fsync or a gzip block,
// small enough that a disk that cannot keep up costs drops, not the machine's memory.
const DefaultQueueSize = 16384

// SampleWriter writes samples to one output. A Fanout calls it from one goroutine only.
type SampleWriter interface {
	// WriteSamples writes a batch. It must not retain the slice.
	WriteSamples(samples []metrics.Sample) error
	// Flush makes what was written so far visible in the file.
	Flush() error
	// Close flushes and closes the file.
	Close() error
}

// Fanout is a metrics.Pusher that forwards every batch to the next Pusher (the run's
// aggregate store) and queues a copy for each of its writers, each drained by its own
// goroutine. Push never blocks on a writer: a batch that does not fit a writer's queue
// is dropped for that writer and counted.
type Fanout struct {
	next metrics.Pusher
	outs []*queue

	// mu guards stopped: Push holds it shared while it queues, Stop exclusively while
	// it closes the queues, so that no Push sends on a closed channel.
	mu      sync.RWMutex
	stopped bool

	// batches recycles the copies handed to the writers, so that a run at tens of
	// thousands of requests/s does not feed the garbage collector ten pointers a sample.
	batches sync.Pool

	startOnce, stopOnce sync.Once
	wg                  sync.WaitGroup
	err                 error
}

// batch is a copy of one Push, shared by the writers; the last one to finish with it
// puts it back in the pool.
type batch struct {
	samples []metrics.Sample
	refs    atomic.Int32
}

// queue is one writer with its queue and counts.
type queue struct {
	name     string
	w        SampleWriter
	ch       chan *batch
	release  func(*batch)
	interval time.Duration

	written atomic.Uint64 // Samples written.
	dropped atomic.Uint64 // Samples dropped because the queue was full.
	failed  atomic.Uint64 // Samples not written because the writer had failed.
	err     error         // The writer's first error; read after the goroutine ends.
}

// Output is one writer of a Fanout.
type Output struct {
	// Name names the output in messages, e.g. `json=results.json`.
	Name string
	// Writer writes the samples; the Fanout closes it on Stop.
	Writer SampleWriter
	// QueueSize is the queue's length in batches; 0 is DefaultQueueSize.
	QueueSize int
	// FlushInterval is how often the writer is flushed while samples come in; 0 is
	// 1 s (k6's saveInterval).
	FlushInterval time.Duration
}

// NewFanout returns a Fanout that forwards to next and to the outputs. Its writers run
// once Start is called; batches pushed before that wait in their queues.
func NewFanout(next metrics.Pusher, outputs ...Output) *Fanout {
	f := &Fanout{next: next}
	for _, o := range outputs {
		size := o.QueueSize
		if size <= 0 {
			size = DefaultQueueSize
		}
		iv := o.FlushInterval
		if iv <= 0 {
			iv = defaultCSVPeriod
		}
		f.outs = append(f.outs, &queue{name: o.Name, w: o.Writer, ch: make(chan *batch, size), interval: iv, release: f.release})
	}
	f.batches.New = func() any { return new(batch) }
	return f
}

var _ metrics.Pusher = (*Fanout)(nil)

// Push forwards samples to the next Pusher and queues one copy of them for every
// writer. It does not block on the writers and does not retain the slice. Samples
// pushed after Stop reach the next Pusher only.
func (f *Fanout) Push(samples []metrics.Sample) {
	if f.next != nil {
		f.next.Push(samples)
	}
	if len(f.outs) == 0 || len(samples) == 0 {
		return
	}
	// One copy serves every writer: they only read it.
	b := f.batches.Get().(*batch)
	b.samples = append(b.samples[:0], samples...)
	b.refs.Store(int32(len(f.outs)))
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.stopped {
		f.batches.Put(b)
		return
	}
	for _, q := range f.outs {
		select {
		case q.ch <- b:
		default:
			q.dropped.Add(uint64(len(samples)))
			f.release(b)
		}
	}
}

// release drops one writer's reference to b and recycles it after the last.
func (f *Fanout) release(b *batch) {
	if b.refs.Add(-1) == 0 {
		// Clear the pointers so that a pooled batch keeps no tag set alive.
		clear(b.samples)
		f.batches.Put(b)
	}
}

// Start starts one goroutine per writer. It does not block; calling it again does
// nothing.
func (f *Fanout) Start() {
	f.startOnce.Do(func() {
		for _, q := range f.outs {
			f.wg.Go(q.run)
		}
	})
}

// run drains the queue into the writer until the queue is closed, flushing every
// interval; after a write error it only counts what it cannot write.
func (q *queue) run() {
	t := time.NewTicker(q.interval)
	defer t.Stop()
	dirty := false
	for {
		select {
		case b, ok := <-q.ch:
			if !ok {
				return
			}
			q.write(b.samples)
			q.release(b)
			dirty = true
		case <-t.C:
			if dirty && q.err == nil {
				if err := q.w.Flush(); err != nil {
					q.err = fmt.Errorf("flush: %w", err)
				}
				dirty = false
			}
		}
	}
}

// write writes one batch; after an error it only counts the samples.
func (q *queue) write(samples []metrics.Sample) {
	n := uint64(len(samples))
	if q.err != nil {
		q.failed.Add(n)
		return
	}
	if err := q.w.WriteSamples(samples); err != nil {
		q.err = fmt.Errorf("write: %w", err)
		q.failed.Add(n)
		return
	}
	q.written.Add(n)
}

// Stop stops queueing, writes everything already queued, closes the writers and waits
// for them. It returns the writers' errors (a full disk, a closed pipe), each naming its
// output; drops are not errors but SummaryLines reports them. It is safe to call more
// than once, also without Start.
func (f *Fanout) Stop() error {
	f.stopOnce.Do(func() {
		f.mu.Lock()
		f.stopped = true
		for _, q := range f.outs {
			close(q.ch)
		}
		f.mu.Unlock()
		f.Start() // Drain what was queued even if the run never started.
		f.wg.Wait()
		var errs []error
		for _, q := range f.outs {
			err := q.err
			if cerr := q.w.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("close: %w", cerr)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("output %s: %w", q.name, err))
			}
		}
		f.err = errors.Join(errs...)
	})
	return f.err
}

// Stats are the counts of one output.
type Stats struct {
	// Name names the output, as Output.Name.
	Name string
	// Written, Dropped and Failed count samples: written to the writer, dropped
	// because its queue was full, and not written because it had failed.
	Written, Dropped, Failed uint64
}

// Stats returns the counts of every output, in the order they were given.
func (f *Fanout) Stats() []Stats {
	out := make([]Stats, len(f.outs))
	for i, q := range f.outs {
		out[i] = Stats{Name: q.name, Written: q.written.Load(), Dropped: q.dropped.Load(), Failed: q.failed.Load()}
	}
	return out
}

// SummaryLines returns one line per output for the end of the summary, e.g.
// `output json=results.json: 1200 samples written` or, when its queue overflowed,
// `output json=results.json: 123 samples dropped: the disk could not keep up`. Call it
// after Stop.
func (f *Fanout) SummaryLines() []string {
	var lines []string
	for _, s := range f.Stats() {
		line := fmt.Sprintf("output %s: %d samples written", s.Name, s.Written)
		if s.Dropped > 0 {
			line = fmt.Sprintf("output %s: %d samples dropped: the disk could not keep up (%d written)", s.Name, s.Dropped, s.Written)
		}
		if s.Failed > 0 {
			line += fmt.Sprintf("; %d samples not written after an error", s.Failed)
		}
		lines = append(lines, line)
	}
	return lines
}
