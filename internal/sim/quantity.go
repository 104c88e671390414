package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration read from YAML as "15s", "1m30s", "1.5s" or "500ms".
type Duration time.Duration

// UnmarshalYAML parses a duration scalar.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: expected a duration like 15s or 500ms", n.Line)
	}
	v, err := parseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: invalid duration %q: expected a duration like 15s or 500ms", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration in Go notation.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func parseDuration(s string) (time.Duration, error) {
	if v, err := model.ParseDuration(s); err == nil {
		return time.Duration(v), nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, errors.New("negative duration")
	}
	return v, nil
}

// MilliCPU is a Kubernetes CPU quantity in millicores, read from YAML as "100m", "0.5" or 2.
type MilliCPU int64

// UnmarshalYAML parses a CPU quantity.
func (c *MilliCPU) UnmarshalYAML(n *yaml.Node) error {
	v, err := parseCPU(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return fmt.Errorf("line %d: invalid cpu quantity %q: expected millicores like 100m or cores like 0.5", n.Line, n.Value)
	}
	*c = MilliCPU(v)
	return nil
}

// MarshalYAML writes the quantity in millicores.
func (c MilliCPU) MarshalYAML() (any, error) { return fmt.Sprintf("%dm", int64(c)), nil }

func parseCPU(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if m, ok := strings.CutSuffix(s, "m"); ok {
		v, err := strconv.ParseInt(m, 10, 64)
		if err != nil || v < 0 || v > 1e9 {
			return 0, errors.New("bad millicores")
		}
		return v, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsNaN(f) || f > 1e6 {
		return 0, errors.New("bad cores")
	}
	return int64(math.Round(f * 1000)), nil
}

// Bytes is a memory quantity read from YAML as "64Mi", "1Gi", "512Ki", "100M" or a byte count.
type Bytes int64

// UnmarshalYAML parses a memory quantity.
func (b *Bytes) UnmarshalYAML(n *yaml.Node) error {
	v, err := parseBytes(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return fmt.Errorf("line %d: invalid memory quantity %q: expected bytes like 64Mi, 1Gi or 1000000", n.Line, n.Value)
	}
	*b = Bytes(v)
	return nil
}

// MarshalYAML writes the byte count.
func (b Bytes) MarshalYAML() (any, error) { return int64(b), nil }

func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}} {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = rest, u.m
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsNaN(f) || f*float64(mult) > 1<<60 {
		return 0, errors.New("bad bytes")
	}
	return int64(f * float64(mult)), nil
}

// Dist is a random duration: a fixed value ("5s"), a uniform range ({min: 1s, max: 20s})
// or a log-normal distribution given by its median and 95th percentile
// ({median: 3s, p95: 25s}). Log-normal draws are capped at 10 × p95.
type Dist struct {
	Fixed  time.Duration
	Min    time.Duration
	Max    time.Duration
	Median time.Duration
	P95    time.Duration
	kind   distKind
}

type distKind int

const (
	distFixed distKind = iota
	distUniform
	distLogNormal
)

// UnmarshalYAML parses a distribution.
func (d *Dist) UnmarshalYAML(n *yaml.Node) error {
	const want = "expected a duration (5s), {min, max} or {median, p95}"
	switch n.Kind {
	case yaml.ScalarNode:
		v, err := parseDuration(n.Value)
		if err != nil {
			return fmt.Errorf("line %d: invalid duration %q: %s", n.Line, n.Value, want)
		}
		*d = Dist{Fixed: v, kind: distFixed}
		return nil
	case yaml.MappingNode:
		out := Dist{}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			dv, err := parseDuration(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil {
				return fmt.Errorf("line %d: field %s: invalid duration %q: expected a duration like 5s", v.Line, k.Value, v.Value)
			}
			switch k.Value {
			case "min":
				out.Min = dv
			case "max":
				out.Max = dv
			case "median":
				out.Median = dv
			case "p95":
				out.P95 = dv
			default:
				return fmt.Errorf("line %d: field %s not found in distribution: %s", k.Line, k.Value, want)
			}
			seen[k.Value] = true
		}
		switch {
		case seen["min"] && seen["max"] && !seen["median"] && !seen["p95"]:
			if out.Max < out.Min {
				return fmt.Errorf("line %d: distribution max %s is below min %s", n.Line, out.Max, out.Min)
			}
			out.kind = distUniform
		case seen["median"] && seen["p95"] && !seen["min"] && !seen["max"]:
			if out.P95 < out.Median || out.Median <= 0 {
				return fmt.Errorf("line %d: distribution p95 %s must be at least median %s and median positive", n.Line, out.P95, out.Median)
			}
			out.kind = distLogNormal
		default:
			return fmt.Errorf("line %d: %s", n.Line, want)
		}
		*d = out
		return nil
	}
	return fmt.Errorf("line %d: %s", n.Line, want)
}

// MarshalYAML writes the distribution back in its input form.
func (d Dist) MarshalYAML() (any, error) {
	switch d.kind {
	case distUniform:
		return map[string]string{"min": d.Min.String(), "max": d.Max.String()}, nil
	case distLogNormal:
		return map[string]string{"median": d.Median.String(), "p95": d.P95.String()}, nil
	}
	return d.Fixed.String(), nil
}

// Draw draws one duration from the distribution (never negative).
func (d Dist) Draw(r *rand.Rand) time.Duration { return max(d.sample(r.Float64(), r.NormFloat64()), 0) }

// sample draws one value given a uniform u in [0,1) and a standard normal z.
func (d Dist) sample(u, z float64) time.Duration {
	switch d.kind {
	case distUniform:
		return d.Min + time.Duration(u*float64(d.Max-d.Min))
	case distLogNormal:
		// p95 = median × exp(1.645 σ)
		sigma := math.Log(float64(d.P95)/float64(d.Median)) / 1.6448536269514722
		v := float64(d.Median) * math.Exp(sigma*z)
		return time.Duration(min(v, 10*float64(d.P95)))
	}
	return d.Fixed
}
