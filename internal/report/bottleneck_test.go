package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/correlator"
)

func TestBottleneckLeadsEveryOutput(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	r := &correlator.Result{TestID: "t1", Bottleneck: analysis.Bottleneck{
		Resource: analysis.ResourceCPU, Object: "shop/api", Stage: 3,
		At:         &analysis.Fact{At: t0.Add(390 * time.Second), Unit: analysis.UnitTime, ResolutionSeconds: 15},
		Load:       analysis.BottleneckLoad{VUs: &analysis.Fact{Value: 75, Unit: analysis.UnitVUs}, RequestRate: &analysis.Fact{Value: 150, Unit: analysis.UnitPerSec}},
		Evidence:   []string{"api throttled in 60% of its CFS periods at 10:06:30 (rule: ≥ 25%)"},
		RuledOut:   []analysis.RuledOut{{Resource: analysis.ResourceDatabase, Text: "not the database: db1: CPU at most 12%", Numbers: map[string]float64{"db1_cpu_peak_percent": 12}}},
		NotChecked: []analysis.NotChecked{{Resource: analysis.ResourceMemory, Missing: "container_memory_working_set_bytes"}},
	}}
	d := FromCorrelation(r)
	var md bytes.Buffer
	if err := WriteMarkdown(&md, d); err != nil {
		t.Fatal(err)
	}
	head := "cpu (shop/api) in stage 3 from 10:06:30 at 75 VUs, 150.0/s requests"
	text := md.String()
	first := strings.Index(text, "\n## ")
	if first < 0 || !strings.HasPrefix(text[first+1:], "## "+BottleneckTitle+"\n") {
		t.Fatalf("the first section is not the verdict:\n%s", text)
	}
	for _, want := range []string{head, "Ruled out: not the database: db1: CPU at most 12%", "Not checked: memory (missing container_memory_working_set_bytes)"} {
		if !strings.Contains(text, want) {
			t.Errorf("report.md lacks %q:\n%s", want, text)
		}
	}
	var kf bytes.Buffer
	if err := WriteKeyFacts(&kf, d); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(kf.String(), BottleneckTitle+": "+head+"\n") {
		t.Errorf("key facts do not start with the verdict:\n%s", kf.String())
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `<section id="bottleneck"><h2>`+BottleneckTitle) {
		t.Error("report.html has no verdict section")
	}
}

func TestCapacityNotBlamedOnTheServiceWhenTheGeneratorLimited(t *testing.T) {
	held, broke := 0, 1
	r := &correlator.Result{TestID: "t1", Load: analysis.Load{Capacity: analysis.Capacity{LastHeld: &held, FirstBroke: &broke, Text: "held to stage 1, broke at 2 (92 dropped)"}},
		Bottleneck: analysis.Bottleneck{Resource: analysis.ResourceLoadGenerator, Stage: 2, Evidence: []string{"stage 2: 92 dropped iterations"}}}
	for _, f := range FromCorrelation(r).KeyFacts {
		if f.Label == "Capacity" {
			if strings.Contains(f.Value, "broke") || !strings.Contains(f.Value, "load generator") {
				t.Errorf("capacity %q blames the service", f.Value)
			}
			return
		}
	}
	t.Error("no capacity key fact")
}

func TestDBGrowthZeroSaysNoChange(t *testing.T) {
	r := &correlator.Result{TestID: "t1", Database: []analysis.Database{{Instance: "db1", ConnectionsGrowth: &analysis.Fact{Value: 0, Unit: analysis.UnitCount, ResolutionSeconds: 60}}}}
	for _, f := range FromCorrelation(r).KeyFacts {
		if strings.Contains(f.Label, "db1") {
			if f.Value != "no change" {
				t.Errorf("growth 0 reads %q", f.Value)
			}
			return
		}
	}
	t.Error("no growth key fact")
}

func TestCompareSaysWhatLimitedEachRun(t *testing.T) {
	a := &correlator.Result{TestID: "a", Bottleneck: analysis.Bottleneck{Resource: analysis.ResourceCPU, Text: "cpu saturated first in stage 3"}}
	b := &correlator.Result{TestID: "b", Bottleneck: analysis.Bottleneck{Resource: analysis.ResourceNone, Text: "none: the service held every stage"}}
	c := correlator.Compare(a, b)
	if c.Capacity[0].Bottleneck != analysis.ResourceCPU || c.Capacity[1].Bottleneck != analysis.ResourceNone {
		t.Fatalf("comparison %+v", c.Capacity)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, FromComparison(c, []*correlator.Result{a, b})); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Limited by", "cpu saturated first in stage 3", "none: the service held every stage"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, md.String())
		}
	}
}
