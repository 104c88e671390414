package series

import "time"

// Points is a series with several timestamped values rather than a live snapshot's one,
// such as the events and facts a correlation writes back. Labels hold the metric name
// as __name__.
type Points struct {
	Labels map[string]string
	Points []Point
}

// Point is one value of a Points series, at T.
type Point struct {
	T time.Time
	V float64
}
