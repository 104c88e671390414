package watcher

import (
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"slices"
)

// Handler serves /runs (HTML; ?format=json for JSON) and the reports under /reports/.
// Mount it at the root next to /metrics.
func (w *Watcher) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /runs", w.serveRuns)
	reports := http.FileServer(http.Dir(filepath.Join(w.cfg.StorageDir, ReportsDir)))
	mux.Handle("GET /reports/", http.StripPrefix("/reports/", noListing(reports)))
	mux.HandleFunc("GET /{$}", func(rw http.ResponseWriter, _ *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = rw.Write([]byte(landing))
	})
	return mux
}

const landing = `<!doctype html><html><head><meta charset="utf-8"><title>tidemark exporter</title></head><body>
<h1>tidemark exporter</h1><p>Correlates every finished run once and exports its key facts and regressions.</p>
<ul><li><a href="metrics">/metrics</a></li><li><a href="runs">/runs</a> (<a href="runs?format=json">JSON</a>)</li></ul></body></html>
`

// noListing refuses directory listings: the reports are reached from /runs.
func noListing(h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" || r.URL.Path[len(r.URL.Path)-1] == '/' {
			http.NotFound(rw, r)
			return
		}
		h.ServeHTTP(rw, r)
	})
}

// runsJSON is /runs?format=json.
type runsJSON struct {
	Runs []Run `json:"runs"`
}

func (w *Watcher) serveRuns(rw http.ResponseWriter, r *http.Request) {
	runs := w.history.Runs()
	slices.Reverse(runs) // newest first
	switch f := r.URL.Query().Get("format"); f {
	case "json":
		rw.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(rw)
		enc.SetIndent("", "  ")
		_ = enc.Encode(runsJSON{Runs: runs})
	case "", "html":
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := runsPage.Execute(rw, runs); err != nil {
			w.logger.Debug("Failed to write runs page", "err", err)
		}
	default:
		http.Error(rw, "format "+f+": expected html or json", http.StatusBadRequest)
	}
}

var runsPage = template.Must(template.New("runs").Funcs(template.FuncMap{
	"report": func(dir, file string) string { return path.Join("reports", url.PathEscape(dir), file) },
}).Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Runs · tidemark exporter</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}.reg{color:#b00}</style>
</head><body>
<h1>Runs</h1>
<p>{{len .}} runs, newest first. <a href="runs?format=json">JSON</a> · <a href="metrics">metrics</a></p>
<table><thead><tr><th>testid</th><th>group</th><th>run (UTC)</th><th>facts</th><th>changes</th><th>notes</th><th>report</th></tr></thead><tbody>
{{range .}}<tr>
<td>{{.TestID}}</td><td>{{.Group}}</td>
<td>{{if .Error}}<span class="reg">not correlated: {{.Error}}</span>{{else}}{{.From.UTC.Format "2006-01-02 15:04:05"}} → {{.To.UTC.Format "15:04:05"}}{{end}}</td>
<td>{{len .Facts}}</td>
<td>{{with .Changes}}{{range .}}<div{{if .Regression}} class="reg"{{end}}>{{.Text}}</div>{{end}}{{else}}none{{end}}</td>
<td>{{range .Notes}}<div>{{.}}</div>{{end}}</td>
<td>{{with .Report}}<a href="{{report . "report.html"}}">HTML</a> · <a href="{{report . "report.md"}}">Markdown</a> · <a href="{{report . "report.json"}}">JSON</a>{{end}}</td>
</tr>{{end}}
</tbody></table>
</body></html>
`))
