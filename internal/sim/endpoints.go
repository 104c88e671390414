package sim

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteEndpoints writes the started server's endpoints as an aligned table: one line
// per service, then the metrics endpoints by exporter.
func (s *Server) WriteEndpoints(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	urls := s.ServiceURLs()
	for _, n := range slices.Sorted(maps.Keys(urls)) {
		fmt.Fprintf(tw, "  service %s\t%s\n", n, urls[n])
	}
	base := strings.TrimSuffix(s.MetricsURL(), MetricsPath)
	fmt.Fprintf(tw, "  metrics (all)\t%s\n", s.MetricsURL())
	fmt.Fprintf(tw, "  kube-state-metrics\t%s\n", base+KubeStateMetricsPath)
	fmt.Fprintf(tw, "  cAdvisor\t%s\n", base+CadvisorPath)
	fmt.Fprintf(tw, "  RDS (YACE names)\t%s\n", base+RDSPath)
	return tw.Flush()
}
