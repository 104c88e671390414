package correlator

import "github.com/tidemark/tidemark/internal/series"

// WriteBackPoints returns WriteBack's series in the shape remote write sends
// (remotewrite.Client.WritePoints).
func WriteBackPoints(r *Result) []series.Points {
	ts := WriteBack(r)
	out := make([]series.Points, 0, len(ts))
	for _, s := range ts {
		ps := make([]series.Point, 0, len(s.Points))
		for _, p := range s.Points {
			ps = append(ps, series.Point{T: p.T, V: p.V})
		}
		out = append(out, series.Points{Labels: s.Labels, Points: ps})
	}
	return out
}
