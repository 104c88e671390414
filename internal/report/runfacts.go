package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/slo"
)

// WriteRunKeyFacts writes the run's window and where it was queried, then the key facts
// and notes of its correlation (WriteKeyFacts), then its server-side rules (--slo).
func WriteRunKeyFacts(w io.Writer, res *correlator.Result, where string) error {
	fmt.Fprintf(w, "Run %s, %s → %s UTC (queried %s)\n\n", res.TestID,
		res.Window.Run.From.UTC().Format(time.DateTime), res.Window.Run.To.UTC().Format(time.TimeOnly), where)
	if err := WriteKeyFacts(w, FromCorrelation(res)); err != nil {
		return err
	}
	if res.SLO != nil {
		fmt.Fprintf(w, "\nServer-side rules (%s):\n", strings.Join(res.SLO.Sources, ", "))
		for _, o := range slo.Sorted(res.SLO.Run.Outcomes) {
			fmt.Fprintf(w, "  %s %s [%s] %s\n", ruleMark(o), o.Alert, o.Severity, o.Text(res.SLO.Run.From))
		}
	}
	return nil
}
