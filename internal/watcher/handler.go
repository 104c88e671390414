package watcher

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"strconv"
)

// Handler serves /runs (HTML; ?format=json for JSON; ?offset= and ?limit= page through
// the whole history on disk, newest first) and the reports under /reports/.
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
	// Total is the number of runs in the history; Offset and Limit the page's.
	Total  int `json:"total"`
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
}

// Page sizes of /runs: a page holds its runs in memory while it is served.
const (
	defaultRunsLimit = 100
	maxRunsLimit     = 1000
)

// runsPageData is what the runs page template shows.
type runsPageData struct {
	runsJSON
	// Prev and Next are the offsets of the neighbouring pages (-1: none).
	Prev, Next int
}

func (w *Watcher) serveRuns(rw http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	offset, err := intParam(q, "offset", 0, math.MaxInt)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	limit, err := intParam(q, "limit", defaultRunsLimit, maxRunsLimit)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	f := q.Get("format")
	if f != "" && f != "html" && f != "json" {
		http.Error(rw, "format "+f+": expected html or json", http.StatusBadRequest)
		return
	}
	runs, total, err := w.history.Page(offset, limit)
	if err != nil {
		w.logger.Warn("Failed to read the history", "err", err)
		http.Error(rw, "read history: "+err.Error(), http.StatusInternalServerError)
		return
	}
	page := runsJSON{Runs: runs, Total: total, Offset: offset, Limit: limit}
	if page.Runs == nil {
		page.Runs = []Run{}
	}
	if f == "json" {
		rw.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(rw)
		enc.SetIndent("", "  ")
		_ = enc.Encode(page)
		return
	}
	data := runsPageData{runsJSON: page, Prev: -1, Next: -1}
	if offset > 0 {
		data.Prev = max(0, offset-limit)
	}
	if offset+limit < total {
		data.Next = offset + limit
	}
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := runsPage.Execute(rw, data); err != nil {
		w.logger.Debug("Failed to write runs page", "err", err)
	}
}

// intParam reads a non-negative integer query parameter of at most maxV.
func intParam(q url.Values, name string, def, maxV int) (int, error) {
	s := q.Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > maxV {
		return 0, fmt.Errorf("%s %q: expected an integer from 0 to %d", name, s, maxV)
	}
	return n, nil
}

var runsPage = template.Must(template.New("runs").Funcs(template.FuncMap{
	"report": func(dir, file string) string { return path.Join("reports", url.PathEscape(dir), file) },
	"add":    func(a, b int) int { return a + b },
}).Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Runs · tidemark exporter</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}.reg{color:#b00}</style>
</head><body>
<h1>Runs</h1>
<p>{{if .Runs}}Runs {{add .Offset 1}}–{{add .Offset (len .Runs)}} of {{.Total}}{{else}}No runs here ({{.Total}} in the history){{end}}, newest first.
{{if ge .Prev 0}}<a href="runs?offset={{.Prev}}&amp;limit={{.Limit}}">newer</a> · {{end}}{{if ge .Next 0}}<a href="runs?offset={{.Next}}&amp;limit={{.Limit}}">older</a> · {{end}}<a href="runs?format=json&amp;offset={{.Offset}}&amp;limit={{.Limit}}">JSON</a> · <a href="metrics">metrics</a></p>
<table><thead><tr><th>testid</th><th>group</th><th>run (UTC)</th><th>facts</th><th>changes</th><th>notes</th><th>report</th></tr></thead><tbody>
{{range .Runs}}<tr>
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
