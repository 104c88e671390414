// Package benchtest holds what the Go benchmarks measure with besides testing.B: the
// process's CPU time, for CPU per request, and the median of rounds alternated on a
// shared machine.
package benchtest

import "github.com/tidemark/tidemark/internal/analysis"

// Median returns the median of v (the mean of the middle two for an even count), or 0
// for none; v is not reordered. It is analysis.Median.
func Median(v []float64) float64 { return analysis.Median(v) }
