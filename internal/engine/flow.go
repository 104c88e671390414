package engine

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/executor"
	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/request"
	"github.com/tidemark/tidemark/internal/scenario"
)

// VUSource makes the VUs of a test. The YAML flow (Flow) is one source; a script
// runtime is another: it decodes its options into the same scenario.Test and gives each
// scenario VUs of its own.
type VUSource interface {
	// Prepare readies scenario sc before the run and returns the constructor of its
	// VUs, called with ids from 1. Its errors are configuration errors.
	Prepare(sc *scenario.Scenario, env *VUEnv) (func(id int64) executor.VU, error)
}

// VUEnv is what the engine gives the VUs of one scenario.
type VUEnv struct {
	// Pusher receives the VUs' samples; it does not block.
	Pusher metrics.Pusher
	// Metrics are k6's built-in metrics of this run.
	Metrics *metrics.Builtin
	// Pool interns tag sets.
	Pool *metrics.TagPool
	// Tags are the scenario's tags: run tags, scenario tags and scenario.
	Tags *metrics.TagSet
	// HTTP configures the transport of every VU.
	HTTP request.Options
	// UserAgent is sent by requests that set none.
	UserAgent string
	// Logger is the run's logger.
	Logger *slog.Logger
}

// Flow is the VUSource of YAML scenarios: each VU runs its scenario's steps.
type Flow struct{}

var _ VUSource = Flow{}

// flow is one scenario's compiled steps.
type flow struct {
	env       *VUEnv
	req       *request.Env
	steps     []compiledStep
	mayUseTLS bool // a step's URL is https or dynamic
}

type compiledStep struct {
	req   *request.Step // nil for a pause-only step
	sleep scenario.Think
	// group is the step's group path ("" for the root group) and groupTags the tags
	// of its group_duration samples.
	group     string
	groupTags *metrics.TagSet
}

// Prepare compiles every step of the scenario's flow.
func (Flow) Prepare(sc *scenario.Scenario, env *VUEnv) (func(id int64) executor.VU, error) {
	f := &flow{env: env, req: &request.Env{Pusher: env.Pusher, Metrics: env.Metrics, Pool: env.Pool, UserAgent: env.UserAgent}}
	baseTags := env.Tags.Tags()
	for i := range sc.Flow.Steps {
		st := &sc.Flow.Steps[i]
		cs := compiledStep{sleep: st.Sleep, group: request.GroupPath(st.Group)}
		if cs.group != "" {
			cs.groupTags = env.Pool.With(env.Tags, metrics.Tag{Key: "group", Value: cs.group})
		}
		if st.URL != nil {
			if !st.URL.Static() || !strings.HasPrefix(st.URL.String(), "http://") {
				f.mayUseTLS = true
			}
			rs, err := request.Compile(st, baseTags, env.Pool, env.UserAgent)
			if err != nil {
				return nil, fmt.Errorf("scenario %q step %d: %w", sc.Name, i+1, err)
			}
			cs.req = rs
		}
		f.steps = append(f.steps, cs)
	}
	return f.newVU, nil
}

// vu is one VU running a scenario's flow.
type vu struct {
	f      *flow
	client *request.Client
	vars   scenario.Vars
	iter   int64
	out    []metrics.Sample
}

func (f *flow) newVU(id int64) executor.VU {
	opts := f.env.HTTP
	if !f.mayUseTLS {
		// Plain-HTTP flows never negotiate HTTP/2; not configuring it saves memory
		// per VU and a lookup per request.
		opts.DisableHTTP2 = true
	}
	v := &vu{f: f, client: request.NewClient(f.req, opts)}
	v.vars.VU = id
	v.vars.Rand = rand.New(rand.NewPCG(uint64(id), rand.Uint64()))
	return v
}

// Close drops the VU's idle connections once its scenario has ended, so that a
// finished scenario does not hold connections for the rest of the run.
func (v *vu) Close() { v.client.Close() }

var _ executor.Closer = (*vu)(nil)

// Iterate runs the scenario's steps once and pushes the iteration's samples
// (iterations and iteration_duration only when complete; data_sent and
// data_received always, as bytes went on the wire either way).
func (v *vu) Iterate(ctx context.Context) bool {
	start := time.Now()
	v.vars.Iter = v.iter
	v.iter++
	complete := true
	s := v.out[:0]
	// Consecutive steps of one group are one group() call: its group_duration is
	// emitted when the next step leaves it, or at the end of a complete iteration.
	var group *compiledStep
	var groupStart time.Time
	closeGroup := func(now time.Time) {
		if group != nil {
			s = append(s, metrics.Sample{Metric: v.f.env.Metrics.GroupDuration, Tags: group.groupTags, Time: now, Value: now.Sub(groupStart).Seconds()})
			group = nil
		}
	}
	for i := range v.f.steps {
		st := &v.f.steps[i]
		if ctx.Err() != nil {
			complete = false
			break
		}
		if group == nil || st.group != group.group {
			now := time.Now()
			closeGroup(now)
			if st.group != "" {
				group, groupStart = st, now
			}
		}
		if st.req != nil {
			v.client.Do(ctx, st.req, &v.vars)
		}
		if d := think(st.sleep, v.vars.Rand); d > 0 && !sleep(ctx, d) {
			complete = false
			break
		}
	}
	if ctx.Err() != nil {
		complete = false
	}
	now := time.Now()
	sent, recv := v.client.TakeBytes()
	b := v.f.env.Metrics
	tags := v.f.env.Tags
	if complete {
		closeGroup(now)
		s = append(s,
			metrics.Sample{Metric: b.Iterations, Tags: tags, Time: now, Value: 1},
			metrics.Sample{Metric: b.IterationDuration, Tags: tags, Time: now, Value: now.Sub(start).Seconds()},
		)
	}
	if sent > 0 || recv > 0 {
		s = append(s,
			metrics.Sample{Metric: b.DataSent, Tags: tags, Time: now, Value: float64(sent)},
			metrics.Sample{Metric: b.DataReceived, Tags: tags, Time: now, Value: float64(recv)},
		)
	}
	if len(s) > 0 {
		v.f.env.Pusher.Push(s)
	}
	v.out = s[:0]
	return complete
}

func think(t scenario.Think, r interface{ Int64N(int64) int64 }) time.Duration {
	if t.Max > t.Min {
		return t.Min + time.Duration(r.Int64N(int64(t.Max-t.Min)+1))
	}
	return t.Min
}

// sleep waits d or until ctx is done; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
