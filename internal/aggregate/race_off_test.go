//go:build !race

package aggregate

// raceEnabled reports whether the race detector is on.
const raceEnabled = false
