package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFiles writes <base>.md, <base>.json and <base>.html into dir, creating it: doc as
// Markdown and HTML, v (the versioned result the document was made from) as indented
// JSON. Each file is written to a temporary file and renamed into place, so a reader
// never sees half a report. It returns the paths written, in that order.
func WriteFiles(dir, base string, doc *Document, v any) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create report directory: %w", err)
	}
	writers := []struct {
		ext   string
		write func(io.Writer) error
	}{
		{".md", func(w io.Writer) error { return WriteMarkdown(w, doc) }},
		{".json", func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(v)
		}},
		{".html", func(w io.Writer) error { return WriteHTML(w, doc) }},
	}
	var paths []string
	for _, wr := range writers {
		p := filepath.Join(dir, base+wr.ext)
		if err := writeFileAtomic(p, wr.write); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// writeFileAtomic writes through a temporary file in the same directory and renames it
// into place.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	werr := write(f)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteKeyFacts writes the document's key facts as aligned text lines, then its notes:
// what a terminal shows after a correlation.
func WriteKeyFacts(w io.Writer, d *Document) error {
	width := 0
	for _, f := range d.KeyFacts {
		width = max(width, len(f.Label))
	}
	var errs []error
	if d.Lead != nil && len(d.Lead.Text) > 0 {
		_, err := fmt.Fprintf(w, "%s: %s\n", d.Lead.Title, d.Lead.Text[0])
		errs = append(errs, err)
		for _, t := range d.Lead.Text[1:] {
			_, err := fmt.Fprintf(w, "  - %s\n", t)
			errs = append(errs, err)
		}
		_, err = fmt.Fprintln(w)
		errs = append(errs, err)
	}
	for _, f := range d.KeyFacts {
		line := fmt.Sprintf("  %-*s  %s", width, f.Label, f.Value)
		if f.Detail != "" {
			line += "   (" + f.Detail + ")"
		}
		_, err := fmt.Fprintln(w, line)
		errs = append(errs, err)
	}
	if len(d.Notes) > 0 {
		_, err := fmt.Fprintf(w, "\nNotes:\n")
		errs = append(errs, err)
		for _, n := range d.Notes {
			_, err := fmt.Fprintf(w, "  - %s\n", n)
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
