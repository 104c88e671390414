package analysis

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/scenario"
	"github.com/tidemark/tidemark/internal/timeline"
)

// Stage units: what a stage's targets count.
const (
	// StageUnitVUs counts virtual users (ramping-vus, constant-vus).
	StageUnitVUs = "vus"
	// StageUnitIterations counts iteration starts per second (arrival-rate executors).
	StageUnitIterations = "iterations_per_second"
	// StageUnitRequests counts HTTP requests per second: the unit of stages inferred
	// from the request rate of a run without k6_iterations_total.
	StageUnitRequests = "requests_per_second"
)

// Where a run's stages came from (Load.StagesSource).
const (
	// StagesScenarioTarget: cut from the configured targets Tidemark's runs write
	// (tidemark_scenario_target).
	StagesScenarioTarget = "scenario_target"
	// StagesInferred: inferred from the achieved rate or VUs (a run made by k6 alone).
	StagesInferred = "inferred"
	// StagesGiven: given by the user (Config.GivenStages, `tidemark correlate --stages`).
	StagesGiven = "given"
)

// GivenStage is one stage as k6 describes it: the target is reached linearly over
// Duration, from the previous stage's target (0 before the first, as in k6).
type GivenStage struct {
	Duration time.Duration
	Target   float64
}

// ErrStageSyntax is wrapped by every error of ParseStages.
var ErrStageSyntax = errors.New("invalid stages")

// ParseStages parses k6's stage syntax, as `k6 run --stage` and K6_STAGES take it:
// duration:target pairs separated by commas, "2m:10,30s:50,5m:50". A duration is a k6
// duration (scenario.ParseDuration: Go's "30s", "1m30s", "1.5m", "500ms", plus days,
// "1d12h"); a target is a whole number ≥ 0, as k6 parses it. Spaces around a pair or its
// parts are ignored. Unlike k6, a bare-number duration (which k6 reads as
// milliseconds) and a missing target (which k6 reads as 0) are rejected, to be sure the
// stages are what the user meant. A 0s stage jumps to its target. Errors wrap
// ErrStageSyntax and name the stage's position (from 1) and what was expected.
func ParseStages(s string) ([]GivenStage, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: no stages; expected duration:target pairs such as 2m:10,30s:50", ErrStageSyntax)
	}
	parts := strings.Split(s, ",")
	out := make([]GivenStage, 0, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		at := func(format string, args ...any) error {
			return fmt.Errorf("%w: stage %d %q: %s", ErrStageSyntax, i+1, p, fmt.Sprintf(format, args...))
		}
		if p == "" {
			return nil, fmt.Errorf("%w: stage %d is empty; expected duration:target such as 30s:10", ErrStageSyntax, i+1)
		}
		ds, ts, ok := strings.Cut(p, ":")
		ds, ts = strings.TrimSpace(ds), strings.TrimSpace(ts)
		if !ok || ts == "" {
			return nil, at("no target; expected duration:target such as 30s:10")
		}
		if ds == "" {
			return nil, at("no duration; expected duration:target such as 30s:10")
		}
		d, err := scenario.ParseDuration(ds)
		if err != nil {
			return nil, at("duration %q: %v; expected a duration such as 30s, 2m or 1m30s", ds, err)
		}
		n, err := strconv.ParseInt(ts, 10, 64)
		if err != nil || n < 0 {
			return nil, at("target %q: expected a whole number ≥ 0", ts)
		}
		if n > 1<<53 {
			return nil, at("target %q: out of range", ts)
		}
		out = append(out, GivenStage{Duration: d, Target: float64(n)})
	}
	return out, nil
}

// cutGivenStages lays given stages over the run from its start, at target 0 before the
// first as in k6. A 0s stage is a jump: it is no stage, its target starts the next one.
// A stage past the run's end is cut there (its end target interpolated). The notes say
// when the stages do not span the run.
func cutGivenStages(gs []GivenStage, unit, sc string, run timeline.Window, res time.Duration) ([]timeline.Stage, []Note) {
	var (
		out   []timeline.Stage
		notes []Note
	)
	t, prev := run.From, 0.0
	var total time.Duration
	for _, g := range gs {
		total += g.Duration
	}
	for _, g := range gs {
		from, to := t, t.Add(g.Duration)
		t = to
		start := prev
		prev = g.Target
		if g.Duration <= 0 || !from.Before(run.To) {
			continue
		}
		end := g.Target
		if to.After(run.To) {
			end = start + (g.Target-start)*run.To.Sub(from).Seconds()/g.Duration.Seconds()
			to = run.To
		}
		kind := timeline.Hold
		switch {
		case end > start:
			kind = timeline.RampUp
		case end < start:
			kind = timeline.RampDown
		}
		out = append(out, timeline.Stage{Index: len(out), Scenario: sc, Unit: unit, Kind: kind,
			Window: timeline.Window{From: from, To: to}, StartTarget: start, EndTarget: end})
	}
	switch run := run.Duration(); {
	case total > run+res:
		notes = append(notes, note(NoteInfo, "load", "", "the given stages last %s, longer than the run (%s): they are cut at the run's end", total, run.Round(time.Second)))
	case total < run-res:
		notes = append(notes, note(NoteInfo, "load", "", "the given stages last %s, %s less than the run: what came after them is in no stage", total, (run-total).Round(time.Second)))
	}
	return out, notes
}
