package process

import (
	"github.com/tidemark/tidemark/internal/podmetrics"
)

// PodTargets returns the metrics endpoints of the pods whose process runs, labelled as
// a PodMonitor labels them (namespace, pod, container: the service's name), for
// podmetrics (the pods' connection pools, internal/sim/realdb).
func (r *Runtime) PodTargets() []podmetrics.Target {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []podmetrics.Target
	for _, s := range r.services {
		for _, pd := range s.pods {
			if pd.gone || !pd.running || pd.addr == "" {
				continue
			}
			out = append(out, podmetrics.Target{Namespace: r.profile.Namespace, Pod: pd.name, Container: s.spec.Name,
				URL: "http://" + pd.addr + "/metrics"})
		}
	}
	return out
}
