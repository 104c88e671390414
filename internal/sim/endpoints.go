package sim

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
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

// WriteIntro writes what someone running the simulation needs to know: the cluster, its
// endpoints (WriteEndpoints), with WithFast the stabilisation window used instead of
// realWindow (the profile's), and how to stop it.
func (s *Server) WriteIntro(w io.Writer, realWindow time.Duration) error {
	p := s.Profile()
	fmt.Fprintf(w, "Simulated cluster %q (namespace %s) is running in real time.\n\n", p.Name, p.Namespace)
	if err := s.WriteEndpoints(w); err != nil {
		return err
	}
	if s.opts.fast {
		fmt.Fprintf(w, "\nFAST MODE: the HPA downscale stabilisation window is %s instead of %s; scale-in happens sooner than on a real cluster. "+
			"tidemark_sim_info{fast=\"true\"} records it.\n", p.Controller.DownscaleStabilization.D(), realWindow)
	}
	_, err := fmt.Fprintln(w, "\nPress Ctrl-C to stop.")
	return err
}
