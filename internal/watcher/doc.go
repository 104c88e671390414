// Package watcher is the long-running side of correlation behind `tidemark exporter`:
// every interval it finds the runs that finished in Prometheus, correlates each once
// with the same correlator and catalog as `tidemark correlate`, writes its report,
// compares its key facts with the history of comparable runs (regress.Detect), keeps
// the result in an atomic state file, and exposes the facts and changes as metrics.
//
// Memory holds only compact facts (names and labels interned, shared by every run);
// reports stay on disk.
package watcher
