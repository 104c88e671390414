package output

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tidemark/tidemark/internal/metrics"
)

// Config is what New needs besides the parsed outputs.
type Config struct {
	// Stdout receives a JSON output without a file (`--out json`); nil is os.Stdout.
	Stdout io.Writer
	// Options are the writers' options (thresholds, time zone).
	Options Options
	// QueueSize is every writer's queue length in batches; 0 is DefaultQueueSize.
	QueueSize int
}

// New opens a writer for every JSON and CSV spec and returns the Fanout that feeds
// them and next, the run's aggregate store. Specs of other kinds (remote write) are
// the caller's and are skipped. Files are created (truncated) now, so that a path that
// cannot be written is an error before the run starts; on an error the files already
// opened are closed.
func New(next metrics.Pusher, specs []Spec, cfg Config) (*Fanout, error) {
	var outs []Output
	for _, s := range specs {
		if s.Kind != JSON && s.Kind != CSV {
			continue
		}
		w, err := Open(s, cfg.Stdout, cfg.Options)
		if err != nil {
			errs := []error{err}
			for _, o := range outs {
				errs = append(errs, o.Writer.Close())
			}
			return nil, errors.Join(errs...)
		}
		outs = append(outs, Output{Name: s.String(), Writer: w, QueueSize: cfg.QueueSize, FlushInterval: s.SaveInterval})
	}
	return NewFanout(next, outs...), nil
}

// Open returns the writer of one JSON or CSV spec: its file, created or truncated,
// gzipped when the name ends in .gz, or stdout for a JSON output without a file (nil
// is os.Stdout; it is flushed, never closed).
func Open(s Spec, stdout io.Writer, opts Options) (SampleWriter, error) {
	if s.Kind != JSON && s.Kind != CSV {
		return nil, fmt.Errorf("open output %s: not a file output", s)
	}
	var w io.Writer
	if s.File == Stdout && s.Kind == JSON {
		if stdout == nil {
			stdout = os.Stdout
		}
		w = struct{ io.Writer }{stdout} // Hides Close: stdout stays open.
	} else {
		f, err := os.Create(s.File)
		if err != nil {
			return nil, fmt.Errorf("open output %s: %w", s, err)
		}
		w = f
		if strings.HasSuffix(s.File, ".gz") {
			w = &gzipFile{Writer: gzip.NewWriter(f), f: f}
		}
	}
	if s.Kind == JSON {
		return NewJSONWriter(w, opts), nil
	}
	return NewCSVWriter(w, s.TimeFormat, opts), nil
}

// gzipFile is a gzip stream on a file; Close ends the stream and closes the file.
type gzipFile struct {
	*gzip.Writer
	f *os.File
}

func (g *gzipFile) Close() error {
	return errors.Join(g.Writer.Close(), g.f.Close())
}
