package store

import "fmt"

// Sink is the embedded store of a run as one of its outputs: it closes the store after
// the run and says where the data went, never "written" when the run's remote write into
// it did not deliver everything (Lost).
type Sink struct {
	Local *Local
	// Dir is the store's data directory.
	Dir string
	// Lost reports whether the remote write into the store lost series; nil: it did not.
	Lost func() bool
}

// Start does nothing: the store is open.
func (s *Sink) Start() {}

// Stop closes the store.
func (s *Sink) Stop() error { return s.Local.Close() }

// SummaryLines says where the run's data is.
func (s *Sink) SummaryLines() []string {
	if s.Lost != nil && s.Lost() {
		return []string{"data: NOT all written to the embedded store (" + s.Local.Where + "): see the remote write line and the log"}
	}
	if !s.Local.InProcess() {
		return []string{"data: written to " + s.Local.Where}
	}
	return []string{fmt.Sprintf("data: written to the embedded store in %s; query it with `tidemark serve --storage.tsdb.path %s`", s.Dir, s.Dir)}
}
