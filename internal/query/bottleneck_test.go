package query

import (
	"strconv"
	"strings"
	"testing"
)

func TestBottleneckRulesEmbedded(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	def := DefaultBottleneckRules()
	got, want := c.Bottleneck.levels(), def.levels()
	for i := range got {
		if got[i].l.V != want[i].l.V {
			t.Errorf("bottleneck.%s: embedded catalog has %v, DefaultBottleneckRules %v", got[i].name, got[i].l.V, want[i].l.V)
		}
		if got[i].l.Line == 0 {
			t.Errorf("bottleneck.%s: not written in the embedded catalog", got[i].name)
		}
	}
}

func TestBottleneckRulesErrors(t *testing.T) {
	base := string(DefaultYAML())
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"unknown field", "    usage_of_limit: 0.9\n", "    usage_of_limit: 0.9\n    usage_of_limt: 0.8\n", "field usage_of_limt not found"},
		{"ratio out of range", "    usage_of_limit: 0.9\n", "    usage_of_limit: 1.5\n", "bottleneck.cpu.usage_of_limit is 1.5: expected a ratio in (0, 1]"},
		{"not a number", "    latency_rise: 2\n", "    latency_rise: fast\n", "expected a number"},
		{"rise below one", "    latency_rise: 2\n", "    latency_rise: 0.5\n", "bottleneck.load_generator.latency_rise is 0.5: expected a factor ≥ 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(base, tc.old) {
				t.Fatalf("embedded catalog has no %q", tc.old)
			}
			text := strings.Replace(base, tc.old, tc.new, 1)
			line := 1 + strings.Count(text[:strings.Index(text, tc.new)], "\n")
			_, err := Parse([]byte(text))
			if err == nil {
				t.Fatal("parsed")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			// The error names the line of the bad value (the first line of the new text,
			// or the line after it for an added key).
			if !strings.Contains(err.Error(), "line "+itoa(line)) && !strings.Contains(err.Error(), "line "+itoa(line+1)) {
				t.Errorf("error %q does not name line %d", err, line)
			}
		})
	}
}

func TestBottleneckRulesDefaultsFillMissing(t *testing.T) {
	base := string(DefaultYAML())
	text := strings.Replace(base, "    throttled_ratio: 0.25\n", "    throttled_ratio: 0.5\n", 1)
	i := strings.Index(text, "  startup:\n")
	j := strings.Index(text, "  database:\n")
	text = text[:i] + text[j:] // no startup section: its threshold is the default
	c, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if c.Bottleneck.CPU.ThrottledRatio.V != 0.5 {
		t.Errorf("throttled_ratio %v, want the catalog's 0.5", c.Bottleneck.CPU.ThrottledRatio.V)
	}
	if c.Bottleneck.Startup.FailuresInGapShare.V != DefaultBottleneckRules().Startup.FailuresInGapShare.V {
		t.Errorf("failures_in_gap_share %v, want the default", c.Bottleneck.Startup.FailuresInGapShare.V)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
