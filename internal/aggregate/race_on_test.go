//go:build race

package aggregate

// raceEnabled reports whether the race detector is on; it slows pushes tenfold and
// changes heap accounting.
const raceEnabled = true
