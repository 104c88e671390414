package metrics

// Browser metric names: k6/browser's network metrics and its Web Vitals, as k6 names
// them (the summary's BROWSER and WEB VITALS blocks).
const (
	BrowserHTTPReqDuration = "browser_http_req_duration"
	BrowserHTTPReqFailed   = "browser_http_req_failed"
	BrowserDataSent        = "browser_data_sent"
	BrowserDataReceived    = "browser_data_received"
	BrowserWebVitalLCP     = "browser_web_vital_lcp"
	BrowserWebVitalFCP     = "browser_web_vital_fcp"
	BrowserWebVitalCLS     = "browser_web_vital_cls"
	BrowserWebVitalINP     = "browser_web_vital_inp"
	BrowserWebVitalTTFB    = "browser_web_vital_ttfb"
	BrowserWebVitalFID     = "browser_web_vital_fid"
)

// BrowserDef is the definition of one of k6/browser's built-in metrics.
type BrowserDef struct {
	Name     string
	Type     Type
	Contains ValueType
}

// BrowserDefs returns the definitions of k6/browser's built-in metrics: network
// metrics, then Web Vitals. CLS is a score, every other trend a time.
func BrowserDefs() []BrowserDef {
	return []BrowserDef{
		{BrowserHTTPReqDuration, Trend, Time},
		{BrowserHTTPReqFailed, Rate, Default},
		{BrowserDataSent, Counter, Data},
		{BrowserDataReceived, Counter, Data},
		{BrowserWebVitalLCP, Trend, Time},
		{BrowserWebVitalFCP, Trend, Time},
		{BrowserWebVitalCLS, Trend, Default},
		{BrowserWebVitalINP, Trend, Time},
		{BrowserWebVitalTTFB, Trend, Time},
		{BrowserWebVitalFID, Trend, Time},
	}
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
