// Package regress groups runs into series of comparable runs and finds the key facts
// that moved between them: a change larger than the fact's own resolution and outside
// the spread of the group's history is a regression (worse) or an improvement (better).
//
// The rule is explained with worked examples in docs/regressions.md; `tidemark compare`
// and `tidemark exporter` both use [Detect].
package regress
