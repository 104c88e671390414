// Package webvital names k6's Web Vital metrics (browser_web_vital_*) and rates their
// values against Google's thresholds: the one table the browser's measurement, the
// correlator and the report share.
package webvital

// Ratings, the values of a sample's rating tag.
const (
	Good             = "good"
	NeedsImprovement = "needs_improvement"
	Poor             = "poor"
)

// Vital is one Web Vital.
type Vital struct {
	// Short is the vital's short name: lcp, fcp, cls, inp, ttfb or fid.
	Short string
	// Metric is k6's metric name, browser_web_vital_<short>.
	Metric string
	// Title is the vital's name as web.dev writes it.
	Title string
	// Timed vitals are k6 time trends: milliseconds as pages measure them and as Good and
	// Poor are, seconds in Tidemark's samples (as every time metric) and in Prometheus;
	// CLS is a unitless score.
	Timed bool
	// Good and Poor are the rating boundaries (web.dev), in milliseconds for timed
	// vitals: up to Good is good, above Poor is poor, needs improvement between.
	Good, Poor float64
}

// Vitals returns the Web Vitals in k6's order of its summary: the Core Web Vitals (LCP,
// INP, CLS), then FCP, TTFB and FID. Thresholds: web.dev/articles/vitals and each
// vital's own article.
func Vitals() []Vital {
	return []Vital{
		{Short: "lcp", Metric: "browser_web_vital_lcp", Title: "Largest Contentful Paint", Timed: true, Good: 2500, Poor: 4000},
		{Short: "inp", Metric: "browser_web_vital_inp", Title: "Interaction to Next Paint", Timed: true, Good: 200, Poor: 500},
		{Short: "cls", Metric: "browser_web_vital_cls", Title: "Cumulative Layout Shift", Good: 0.1, Poor: 0.25},
		{Short: "fcp", Metric: "browser_web_vital_fcp", Title: "First Contentful Paint", Timed: true, Good: 1800, Poor: 3000},
		{Short: "ttfb", Metric: "browser_web_vital_ttfb", Title: "Time to First Byte", Timed: true, Good: 800, Poor: 1800},
		{Short: "fid", Metric: "browser_web_vital_fid", Title: "First Input Delay", Timed: true, Good: 100, Poor: 300},
	}
}

// ByShort returns the vital of a short name (lcp), and whether there is one.
func ByShort(short string) (Vital, bool) {
	for _, v := range Vitals() {
		if v.Short == short {
			return v, true
		}
	}
	return Vital{}, false
}

// ByMetric returns the vital of a k6 metric name (browser_web_vital_lcp), and whether
// there is one.
func ByMetric(metric string) (Vital, bool) {
	for _, v := range Vitals() {
		if v.Metric == metric {
			return v, true
		}
	}
	return Vital{}, false
}

// Rate rates a value in the sample's unit (milliseconds for timed vitals).
func (v Vital) Rate(value float64) string {
	switch {
	case value <= v.Good:
		return Good
	case value <= v.Poor:
		return NeedsImprovement
	}
	return Poor
}

// RateBase rates a value in Prometheus' base unit (seconds for timed vitals), as the
// series carry it.
func (v Vital) RateBase(value float64) string {
	if v.Timed {
		value *= 1000
	}
	return v.Rate(value)
}
