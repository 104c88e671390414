//go:build race

package correlator

// raceEnabled reports whether the race detector is on: timings are then not meaningful.
const raceEnabled = true
