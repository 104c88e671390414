package correlator

import (
	"context"
	"fmt"
	"io"
)

// WriteDiscovery writes where each source of the run of cfg was found, as YAML comments,
// then the catalog with the adopted selectors: passed back as a catalog file it
// correlates as discovery does. where names the API queried, for the messages.
func (c *Correlator) WriteDiscovery(ctx context.Context, w io.Writer, cfg Config, where string) error {
	d, err := c.Discover(ctx, cfg)
	if err != nil {
		return fmt.Errorf("%w (queried %s)", err, where)
	}
	b, err := d.CatalogYAML(c.Catalog())
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "# Sources of run %s (queried %s):\n", cfg.TestID, where)
	for _, s := range d.Sources {
		fmt.Fprintf(w, "#   %s: %s\n", s.Source, s.Note)
	}
	fmt.Fprintf(w, "# The catalog with these selectors, for --catalog.file:\n")
	_, err = w.Write(b)
	return err
}
