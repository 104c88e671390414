package report

import (
	"fmt"
	"io"
	"time"

	"github.com/tidemark/tidemark/internal/correlator"
)

// WriteRunKeyFacts writes the run's window and where it was queried, then the key facts
// and notes of its correlation (WriteKeyFacts).
func WriteRunKeyFacts(w io.Writer, res *correlator.Result, where string) error {
	fmt.Fprintf(w, "Run %s, %s → %s UTC (queried %s)\n\n", res.TestID,
		res.Window.Run.From.UTC().Format(time.DateTime), res.Window.Run.To.UTC().Format(time.TimeOnly), where)
	return WriteKeyFacts(w, FromCorrelation(res))
}
