package analysis

import (
	"math"
	"slices"
	"time"

	"github.com/tidemark/tidemark/internal/timeline"
)

// BrowserScenarios are the run's browser scenarios (k6's options.browser.type): those
// whose k6/browser series (QBrowserScenarios: its page and network metrics and its Web
// Vitals, gauges or native histograms) or Web Vital gauges carry their scenario label.
// Their VUs drive Chromium and measure pages; they are not load.
func BrowserScenarios(tl *timeline.Timeline) map[string]bool {
	out := map[string]bool{}
	for _, name := range []string{QBrowserScenarios, QWebVitalsGauge, QWebVitalCLSGauge} {
		for _, s := range tl.Set(name) {
			if sc := s.Label("scenario"); sc != "" {
				out[sc] = true
			}
		}
	}
	return out
}

// loadTargets returns the scenario targets of the load and the browser scenarios left
// out of them. A browser scenario's target is left out when another scenario has one (a
// hybrid run: the protocol VUs are the load, the browser VUs measure pages under it);
// a run of browser scenarios alone keeps them, as they are all the load it has.
func loadTargets(tl *timeline.Timeline) (load timeline.Set, browser []string) {
	targets := tl.Set(QScenarioTarget)
	isBrowser := BrowserScenarios(tl)
	if len(isBrowser) == 0 || !slices.ContainsFunc(targets, func(s timeline.Series) bool { return !isBrowser[s.Label("scenario")] }) {
		return targets, nil
	}
	for _, s := range targets {
		sc := s.Label("scenario")
		if !isBrowser[sc] {
			load = append(load, s)
		} else if !slices.Contains(browser, sc) {
			browser = append(browser, sc)
		}
	}
	return load, browser
}

// loadVUs is k6_vus (every scenario's active VUs: k6 writes it without a scenario label)
// less the VUs of the browser scenarios loadTargets leaves out, read from their targets
// in VUs, never below 0. It is k6_vus itself when no browser scenario is left out.
func loadVUs(tl *timeline.Timeline, res time.Duration) timeline.Series {
	vus := tl.Set(QVUs).First()
	_, browser := loadTargets(tl)
	var sub timeline.Set
	for _, sc := range browser {
		sub = append(sub, tl.Set(QScenarioTarget).Match(map[string]string{"scenario": sc, "unit": StageUnitVUs})...)
	}
	if len(sub) == 0 || vus.Empty() {
		return vus
	}
	less := sub.Sum(2 * res)
	out := timeline.Series{Labels: vus.Labels, Points: make([]timeline.Point, 0, len(vus.Points))}
	for _, p := range vus.Points {
		b, _ := less.At(p.T, 2*res)
		out.Points = append(out.Points, timeline.Point{T: p.T, V: math.Max(0, p.V-b)})
	}
	return out
}

// loadSeries returns set without the series of browser scenarios when other series remain
// (a hybrid run k6 made, whose stages are inferred from what it achieved): a browser
// VU's iterations are page loads, not load. A set of browser series alone is kept whole.
func loadSeries(set timeline.Set, browser map[string]bool) timeline.Set {
	if len(browser) == 0 {
		return set
	}
	out := slices.DeleteFunc(slices.Clone(set), func(s timeline.Series) bool { return browser[s.Label("scenario")] })
	if len(out) == 0 {
		return set
	}
	return out
}
