package metrics

import "github.com/tidemark/tidemark/internal/webvital"

// Browser metric names: k6/browser's network metrics, as k6 names them (the summary's
// BROWSER block). Its Web Vitals (the WEB VITALS block) are webvital.Vitals.
const (
	BrowserHTTPReqDuration = "browser_http_req_duration"
	BrowserHTTPReqFailed   = "browser_http_req_failed"
	BrowserDataSent        = "browser_data_sent"
	BrowserDataReceived    = "browser_data_received"
)

// BrowserDef is the definition of one of k6/browser's built-in metrics.
type BrowserDef struct {
	Name     string
	Type     Type
	Contains ValueType
}

// BrowserDefs returns the definitions of k6/browser's built-in metrics: network
// metrics, then the Web Vitals (webvital.Vitals): CLS is a score, every other trend a
// time.
func BrowserDefs() []BrowserDef {
	defs := []BrowserDef{
		{BrowserHTTPReqDuration, Trend, Time},
		{BrowserHTTPReqFailed, Rate, Default},
		{BrowserDataSent, Counter, Data},
		{BrowserDataReceived, Counter, Data},
	}
	for _, v := range webvital.Vitals() {
		contains := Default
		if v.Timed {
			contains = Time
		}
		defs = append(defs, BrowserDef{v.Metric, Trend, contains})
	}
	return defs
}

// RegisterBrowser registers k6/browser's built-in metrics in r (the browser module does,
// in the init context, so that thresholds may name them) and returns them by name.
func RegisterBrowser(r *Registry) (map[string]*Metric, error) {
	out := make(map[string]*Metric, len(BrowserDefs()))
	for _, d := range BrowserDefs() {
		m, err := r.New(d.Name, d.Type, d.Contains)
		if err != nil {
			return nil, err
		}
		out[d.Name] = m
	}
	return out, nil
}
