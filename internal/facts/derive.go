package facts

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/analysis"
	"github.com/tidemark/tidemark/internal/timeline"
)

// Table is a list of facts, in report order within each section. Default is the one
// production uses; tests add facts to a copy.
type Table []Fact

// read is one value of a fact of the table, labels complete.
type read struct {
	fact   *Fact
	value  Value
	labels map[string]string
}

// read reads the values of the facts keep accepts, ordered by section, then Value.Order,
// then table order. Values without a fact are left out.
func (t Table) read(a Analysis, keep func(*Fact) bool) []read {
	var out []read
	for i := range t {
		f := &t[i]
		if !keep(f) || f.Read == nil {
			continue
		}
		for _, v := range f.Read(a) {
			if v.Fact == nil {
				continue
			}
			labels := v.Labels
			if len(f.Fixed) > 0 {
				labels = make(map[string]string, len(v.Labels)+len(f.Fixed))
				maps.Copy(labels, v.Labels)
				maps.Copy(labels, f.Fixed)
			}
			out = append(out, read{fact: f, value: v, labels: labels})
		}
	}
	slices.SortStableFunc(out, func(a, b read) int {
		return cmp.Or(cmp.Compare(a.fact.Section.rank(), b.fact.Section.rank()),
			cmp.Compare(a.value.Order[0], b.value.Order[0]), cmp.Compare(a.value.Order[1], b.value.Order[1]))
	})
	return out
}

// KeyFacts returns the key facts of a run, in a fixed order (load, stages, autoscaling,
// CPU, database, errors; within them by object): the facts written back as
// tidemark_fact_* and compared between runs. Facts the run does not have are left out.
func (t Table) KeyFacts(a Analysis) []KeyFact {
	var out []KeyFact
	for _, r := range t.read(a, func(f *Fact) bool { return f.Key }) {
		f := r.value.Fact
		res := r.value.Resolution
		if r.fact.Span {
			res = f.ResolutionSeconds
		}
		out = append(out, KeyFact{Name: r.fact.Name, Labels: r.labels, Value: f.Value, Unit: f.Unit,
			ResolutionSeconds: f.ResolutionSeconds, Resolution: res})
	}
	return out
}

// Series returns the key facts of a run as series to write back: tidemark_fact_*, one
// sample at the run's end (at), every series labelled testid.
func (t Table) Series(testID string, at time.Time, a Analysis) []timeline.Series {
	var out []timeline.Series
	for _, k := range t.KeyFacts(a) {
		out = append(out, timeline.Series{Labels: k.Series(testID), Points: []timeline.Point{{T: at, V: k.Value}}})
	}
	return out
}

// Row is one fact of a run in a comparison.
type Row struct {
	Section Section
	// Object is the value's object label (an HPA, a workload, a database), if any.
	Object string
	// Name is the row's name (Fact.Compare).
	Name string
	Fact *analysis.Fact
}

// Rows returns a run's facts that have a comparison row, in report order.
func (t Table) Rows(a Analysis) []Row {
	var out []Row
	for _, r := range t.read(a, func(f *Fact) bool { return f.Compare != "" || f.CompareBy != nil }) {
		if name, ok := r.fact.row(r.labels); ok {
			out = append(out, Row{Section: r.fact.Section, Object: r.labels["object"], Name: name, Fact: r.value.Fact})
		}
	}
	return out
}

// Get returns the first fact called name: of facts sharing a name, the first declared.
func (t Table) Get(name string) (Fact, bool) {
	for _, f := range t {
		if f.Name == name {
			return f, true
		}
	}
	return Fact{}, false
}

// Lookup returns the fact a key fact is a value of: the one with its name and Fixed
// labels, or the first of its name.
func (t Table) Lookup(k KeyFact) (Fact, bool) {
	for _, f := range t {
		if f.Name == k.Name && f.matches(k.Labels) {
			return f, true
		}
	}
	return t.Get(k.Name)
}

// Direction returns which way a key fact gets worse; Neutral for a fact not in the
// table.
func (t Table) Direction(k KeyFact) Direction {
	f, _ := t.Lookup(k)
	return f.Direction
}

// CompareRow returns the comparison row (Table.Rows) showing a key fact, if there is
// one: stage facts and per-step start-up gaps have none.
func (t Table) CompareRow(k KeyFact) (Row, bool) {
	f, ok := t.Lookup(k)
	if !ok {
		return Row{}, false
	}
	name, ok := f.row(k.Labels)
	if !ok {
		return Row{}, false
	}
	return Row{Section: f.Section, Object: k.Labels["object"], Name: name}, true
}

// Title names a key fact with its labels for a person: "HPA reaction shoong/order",
// "Start-up gap shoong/order (step 1, to 4 replicas)", "Stage 2 (spike) p95 latency".
func (t Table) Title(k KeyFact) string {
	f, ok := t.Lookup(k)
	title := f.Title
	if !ok || title == "" {
		title = strings.ReplaceAll(k.Name, "_", " ")
	}
	l := k.Labels
	if st, ok := l["stage"]; ok {
		n := st
		if i, err := strconv.Atoi(st); err == nil {
			n = strconv.Itoa(i + 1) // stages are numbered from 1 in reports
		}
		scen := ""
		if s := l["scenario"]; s != "" {
			scen = " (" + s + ")"
		}
		title = "Stage " + n + scen + " " + title
	}
	if o := l["object"]; o != "" {
		title += " " + o
	}
	var extra []string
	if s, ok := l["step"]; ok {
		if i, err := strconv.Atoi(s); err == nil {
			s = strconv.Itoa(i + 1)
		}
		extra = append(extra, "step "+s)
	}
	if to, ok := l["to"]; ok {
		extra = append(extra, "to "+to+" replicas")
	}
	if th, ok := l["threshold"]; ok {
		if v, err := strconv.ParseFloat(th, 64); err == nil {
			th = fmt.Sprintf("%g%%", v*100)
		}
		extra = append(extra, "throttled > "+th)
	}
	// Any other label, sorted, so two facts never read the same; the fact's Fixed labels
	// are in its title.
	known := map[string]bool{"stage": true, "scenario": true, "from": true, "object": true, "step": true, "to": true, "threshold": true}
	for _, name := range sortedKeys(l) {
		if _, fixed := f.Fixed[name]; !known[name] && !fixed {
			extra = append(extra, name+"="+l[name])
		}
	}
	if len(extra) > 0 {
		title += " (" + strings.Join(extra, ", ") + ")"
	}
	return title
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
