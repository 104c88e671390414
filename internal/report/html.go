package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"time"
)

//go:embed report.html.tmpl
var htmlTemplate string

//go:embed report.css
var stylesheet string

// Stylesheet returns the CSS of the HTML report (layout, headline facts, figures,
// tables), for other self-contained pages that look the same.
func Stylesheet() template.CSS {
	return template.CSS(stylesheet)
}

// WriteHTML writes d as one self-contained HTML page: inline CSS and an inline SVG
// figure, no scripts and nothing loaded from the network.
func WriteHTML(w io.Writer, d *Document) error {
	tmpl, err := template.New("report").Funcs(template.FuncMap{
		"time":   fmtTime,
		"offset": func(t time.Time) string { return fmtOffset(t.Sub(d.Window.From)) },
		"dur":    func(a, b time.Time) string { return b.Sub(a).Round(time.Second).String() },
		"pad": func(cols []string, row []string) []string {
			out := make([]string, len(cols))
			copy(out, row)
			return out
		},
	}).Parse(htmlTemplate)
	if err != nil {
		return fmt.Errorf("parse report template: %w", err)
	}
	svg, err := SVG(d)
	if err != nil {
		return fmt.Errorf("render charts: %w", err)
	}
	var chartNames []string
	for _, c := range d.Charts {
		chartNames = append(chartNames, c.Title)
	}
	data := struct {
		*Document
		// The SVG comes from our own renderer, not from user input; label text inside it
		// is escaped by the SVG writer.
		Figure     template.HTML
		CSS        template.CSS
		ChartNames []string
		EventRows  [][]string
	}{Document: d, Figure: template.HTML(svg), CSS: Stylesheet(), ChartNames: chartNames, EventRows: eventRows(d)}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}
