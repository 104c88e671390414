package metrics

// Builtin holds k6's built-in metrics (reference/k6.md §3.1) as registered in one
// Registry.
type Builtin struct {
	VUs               *Metric
	VUsMax            *Metric
	Iterations        *Metric
	IterationDuration *Metric
	DroppedIterations *Metric
	Checks            *Metric
	GroupDuration     *Metric

	HTTPReqs              *Metric
	HTTPReqFailed         *Metric
	HTTPReqDuration       *Metric
	HTTPReqBlocked        *Metric
	HTTPReqConnecting     *Metric
	HTTPReqTLSHandshaking *Metric
	HTTPReqSending        *Metric
	HTTPReqWaiting        *Metric
	HTTPReqReceiving      *Metric

	DataSent     *Metric
	DataReceived *Metric
}

// RegisterBuiltin registers k6's built-in metrics in r and returns them.
func RegisterBuiltin(r *Registry) *Builtin {
	must := func(name string, t Type, v ValueType) *Metric {
		m, err := r.New(name, t, v)
		if err != nil {
			// The names and types below are constants; a clash means another caller
			// registered a built-in name with a different type first.
			m = &Metric{Name: name, Type: t, Contains: v}
		}
		return m
	}
	return &Builtin{
		VUs:               must("vus", Gauge, Default),
		VUsMax:            must("vus_max", Gauge, Default),
		Iterations:        must("iterations", Counter, Default),
		IterationDuration: must("iteration_duration", Trend, Time),
		DroppedIterations: must("dropped_iterations", Counter, Default),
		Checks:            must("checks", Rate, Default),
		GroupDuration:     must("group_duration", Trend, Time),

		HTTPReqs:              must("http_reqs", Counter, Default),
		HTTPReqFailed:         must("http_req_failed", Rate, Default),
		HTTPReqDuration:       must("http_req_duration", Trend, Time),
		HTTPReqBlocked:        must("http_req_blocked", Trend, Time),
		HTTPReqConnecting:     must("http_req_connecting", Trend, Time),
		HTTPReqTLSHandshaking: must("http_req_tls_handshaking", Trend, Time),
		HTTPReqSending:        must("http_req_sending", Trend, Time),
		HTTPReqWaiting:        must("http_req_waiting", Trend, Time),
		HTTPReqReceiving:      must("http_req_receiving", Trend, Time),

		DataSent:     must("data_sent", Counter, Data),
		DataReceived: must("data_received", Counter, Data),
	}
}
