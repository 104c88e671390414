package watcher

import (
	"slices"
	"strings"

	"github.com/tidemark/tidemark/internal/facts"
)

// key is one fact's identity: its name, labels and unit. Every run that has the fact
// shares one key, so a run in memory costs its values, not its label maps.
type key struct {
	name string
	// labels are name, value, name, value … sorted by name.
	labels []string
	unit   string
}

// fact is a key fact held compactly.
type fact struct {
	key        *key
	value      float64
	resSeconds float64
	res        float64
}

// change is a change of one fact against a baseline run (regress.Change) held compactly.
type change struct {
	fact        fact
	baseline    string
	baseValue   float64
	delta       float64
	regression  bool
	resolution  float64
	median      float64
	spread      float64
	historyRuns int
	text        string
}

// interner hands out one key per distinct name, labels and unit.
type interner struct {
	keys map[string]*key
}

func newInterner() *interner { return &interner{keys: map[string]*key{}} }

// intern returns the shared key of kf.
func (in *interner) intern(kf facts.KeyFact) *key {
	names := make([]string, 0, len(kf.Labels))
	for n := range kf.Labels {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString(kf.Name)
	b.WriteByte(0)
	b.WriteString(kf.Unit)
	for _, n := range names {
		b.WriteByte(0)
		b.WriteString(n)
		b.WriteByte(0)
		b.WriteString(kf.Labels[n])
	}
	id := b.String()
	if k, ok := in.keys[id]; ok {
		return k
	}
	k := &key{name: kf.Name, unit: kf.Unit, labels: make([]string, 0, 2*len(names))}
	for _, n := range names {
		k.labels = append(k.labels, n, kf.Labels[n])
	}
	in.keys[id] = k
	return k
}

func (in *interner) fact(kf facts.KeyFact) fact {
	return fact{key: in.intern(kf), value: kf.Value, resSeconds: kf.ResolutionSeconds, res: kf.Resolution}
}

// keyFact expands f back into a facts.KeyFact.
func (f fact) keyFact() facts.KeyFact {
	kf := facts.KeyFact{Name: f.key.name, Value: f.value, Unit: f.key.unit, ResolutionSeconds: f.resSeconds, Resolution: f.res}
	if len(f.key.labels) > 0 {
		kf.Labels = make(map[string]string, len(f.key.labels)/2)
		for i := 0; i+1 < len(f.key.labels); i += 2 {
			kf.Labels[f.key.labels[i]] = f.key.labels[i+1]
		}
	}
	return kf
}
