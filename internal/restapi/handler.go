package restapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidemark/tidemark/internal/aggregate"
)

// SetupRunner is the optional capability behind /v1/setup. Without it setup data is
// always empty, as for a script without setup().
type SetupRunner interface {
	// Setup runs the script's setup() and keeps its result as the run's setup data.
	// A nil result means no data.
	Setup(ctx context.Context) (json.RawMessage, error)
	// SetupData returns the setup data now (nil for none).
	SetupData() json.RawMessage
	// SetSetupData replaces the setup data; VUs that already started keep their copy,
	// as in k6. The caller must not modify data afterwards.
	SetSetupData(data json.RawMessage) error
}

// TeardownRunner is the optional capability behind POST /v1/teardown. Without it the
// call succeeds and does nothing, as for a script without teardown().
type TeardownRunner interface {
	// Teardown runs the script's teardown() with the current setup data.
	Teardown(ctx context.Context) error
}

// Content types as k6 v1.8.1 sends them: status and setup set theirs; metrics, groups
// and some errors set none, so Go's sniffing makes them text/plain.
const (
	contentStatus = "application/json; charset=utf-8"
	contentSetup  = "application/json"
	contentSniff  = "text/plain; charset=utf-8"
)

// Handler serves k6's REST API over a Controller.
type Handler struct {
	c      Controller
	logger *slog.Logger
}

var _ http.Handler = (*Handler)(nil)

// NewHandler returns a handler serving k6's REST API for c. The optional capabilities
// (MetricsSource, GroupsSource, SetupRunner, TeardownRunner) are found on c by type
// assertion.
func NewHandler(c Controller, logger *slog.Logger) *Handler {
	return &Handler{c: c, logger: logger.With("component", "restapi")}
}

// ServeHTTP routes the request. As in k6, a known path with another method gets an
// empty 405 and an unknown path Go's plain 404.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/":
		h.only(w, r, http.MethodGet, func() {
			w.Header().Set("Content-Type", contentSniff)
			_, _ = io.WriteString(w, "ok")
		})
	case p == "/v1/status":
		switch r.Method {
		case http.MethodGet:
			h.writeJSON(w, http.StatusOK, contentStatus, statusDoc(h.c.Status()))
		case http.MethodPatch:
			h.patchStatus(w, r)
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	case p == "/v1/metrics":
		h.only(w, r, http.MethodGet, func() { h.metrics(w, "") })
	case strings.HasPrefix(p, "/v1/metrics/"):
		h.only(w, r, http.MethodGet, func() { h.metrics(w, strings.TrimPrefix(p, "/v1/metrics/")) })
	case p == "/v1/groups":
		h.only(w, r, http.MethodGet, func() { h.groups(w, "") })
	case strings.HasPrefix(p, "/v1/groups/"):
		h.only(w, r, http.MethodGet, func() { h.groups(w, strings.TrimPrefix(p, "/v1/groups/")) })
	case p == "/v1/setup":
		switch r.Method {
		case http.MethodGet, http.MethodPost, http.MethodPut:
			h.setup(w, r)
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	case p == "/v1/teardown":
		h.only(w, r, http.MethodPost, func() { h.teardown(w, r) })
	default:
		http.NotFound(w, r)
	}
}

func (h *Handler) only(w http.ResponseWriter, r *http.Request, method string, serve func()) {
	if r.Method != method {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	serve()
}

// Request body limits: a status document is a few hundred bytes; setup data is the
// script's own and may be large, but not unbounded (k6 sets none).
const (
	maxStatusBody = 64 << 10
	maxSetupBody  = 64 << 20
)

// patchStatus applies a PATCH of /v1/status. k6 v1.8.1 answers stopped:true with the
// status even where the paused in the same body would fail (k6-operator's stopper
// sends paused:false with it), so a stop is applied alone.
func (h *Handler) patchStatus(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxStatusBody))
	if err != nil {
		h.writeError(w, contentStatus, &Error{Code: http.StatusBadRequest, Title: "Invalid data", Err: err})
		return
	}
	var doc struct {
		Data struct {
			Attributes struct {
				Paused  nullBool `json:"paused"`
				VUs     nullInt  `json:"vus"`
				VUsMax  nullInt  `json:"vus-max"`
				Stopped nullBool `json:"stopped"`
			} `json:"attributes"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		h.writeError(w, contentStatus, &Error{Code: http.StatusBadRequest, Title: "Invalid data", Err: err})
		return
	}
	a := doc.Data.Attributes
	u := StatusUpdate{Paused: a.Paused.v, VUs: a.VUs.v, VUsMax: a.VUsMax.v}
	if a.Stopped.v != nil && *a.Stopped.v {
		u = StatusUpdate{Stopped: a.Stopped.v}
	}
	if u != (StatusUpdate{}) {
		if err := h.c.SetStatus(r.Context(), u); err != nil {
			h.logger.Debug("Status update refused", "err", err)
			var apiErr *Error
			if !errors.As(err, &apiErr) {
				title := "Status update error"
				if u.Paused != nil {
					title = "Pause error"
				}
				apiErr = &Error{Code: http.StatusInternalServerError, Title: title, Err: err}
			}
			h.writeError(w, contentStatus, apiErr)
			return
		}
	}
	h.writeJSON(w, http.StatusOK, contentStatus, statusDoc(h.c.Status()))
}

func (h *Handler) metrics(w http.ResponseWriter, id string) {
	var list []Metric
	if src, ok := h.c.(MetricsSource); ok {
		list = src.Metrics()
	}
	if id == "" {
		docs := make([]metricDoc, 0, len(list))
		for _, m := range list {
			docs = append(docs, newMetricDoc(m))
		}
		h.writeJSON(w, http.StatusOK, contentSniff, map[string]any{"data": docs})
		return
	}
	for _, m := range list {
		if m.Name == id {
			h.writeJSON(w, http.StatusOK, contentSniff, map[string]any{"data": newMetricDoc(m)})
			return
		}
	}
	h.writeError(w, contentSniff, &Error{Code: http.StatusNotFound, Title: "Not Found", Err: errors.New("No metric with that ID was found")}) //nolint:staticcheck // k6's text, capitalised.
}

func (h *Handler) groups(w http.ResponseWriter, id string) {
	root := &Group{}
	if src, ok := h.c.(GroupsSource); ok {
		if g := src.Groups(); g != nil {
			root = g
		}
	}
	var docs []groupDoc
	var walk func(g, parent *Group)
	walk = func(g, parent *Group) {
		docs = append(docs, newGroupDoc(g, parent))
		for _, sub := range g.Groups {
			walk(sub, g)
		}
	}
	walk(root, nil)
	if id == "" {
		h.writeJSON(w, http.StatusOK, contentSniff, map[string]any{"data": docs})
		return
	}
	for _, d := range docs {
		if d.ID == id {
			h.writeJSON(w, http.StatusOK, contentSniff, map[string]any{"data": d})
			return
		}
	}
	h.writeError(w, contentSniff, &Error{Code: http.StatusNotFound, Title: "Not Found", Err: errors.New("No group with that ID was found")}) //nolint:staticcheck // k6's text, capitalised.
}

func (h *Handler) setup(w http.ResponseWriter, r *http.Request) {
	s, _ := h.c.(SetupRunner)
	var data json.RawMessage
	switch r.Method {
	case http.MethodPost:
		if s != nil {
			var err error
			if data, err = s.Setup(r.Context()); err != nil {
				h.logger.Debug("Setup over the REST API failed", "err", err)
				h.writeError(w, contentSniff, &Error{Code: http.StatusInternalServerError, Title: "Error executing setup", Err: err})
				return
			}
		}
	case http.MethodPut:
		// k6 takes the raw setup data (not an envelope) and an empty body as none.
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSetupBody))
		if err == nil && len(bytes.TrimSpace(body)) > 0 {
			var v any
			err = json.Unmarshal(body, &v)
			data = body
		}
		if err != nil {
			h.writeError(w, contentSniff, &Error{Code: http.StatusBadRequest, Title: "Error parsing request body", Err: err})
			return
		}
		if s != nil {
			if err := s.SetSetupData(data); err != nil {
				h.writeError(w, contentSniff, &Error{Code: http.StatusInternalServerError, Title: "Error setting setup data", Err: err})
				return
			}
		}
	default:
		if s != nil {
			data = s.SetupData()
		}
	}
	h.writeJSON(w, http.StatusOK, contentSetup, setupDoc(data))
}

func (h *Handler) teardown(w http.ResponseWriter, r *http.Request) {
	if t, ok := h.c.(TeardownRunner); ok {
		if err := t.Teardown(r.Context()); err != nil {
			h.logger.Debug("Teardown over the REST API failed", "err", err)
			h.writeError(w, contentSniff, &Error{Code: http.StatusInternalServerError, Title: "Error executing teardown", Err: err})
			return
		}
	}
	// k6 answers 200 with an empty body and no content type.
	w.WriteHeader(http.StatusOK)
}

func (h *Handler) writeJSON(w http.ResponseWriter, code int, contentType string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		h.logger.Error("Failed to encode a REST API response", "err", err)
		code, contentType = http.StatusInternalServerError, contentSniff
		b, _ = json.Marshal(errorDoc(&Error{Code: code, Title: "Encoding error", Err: err}))
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

func (h *Handler) writeError(w http.ResponseWriter, contentType string, e *Error) {
	h.writeJSON(w, e.Code, contentType, errorDoc(e))
}

// The JSON:API documents, with k6's field order.

type statusAttrs struct {
	Status  ExecutionStatus `json:"status"`
	Paused  bool            `json:"paused"`
	VUs     int64           `json:"vus"`
	VUsMax  int64           `json:"vus-max"`
	Stopped bool            `json:"stopped"`
	Running bool            `json:"running"`
	Tainted bool            `json:"tainted"`
}

type resource[A any] struct {
	Type       string `json:"type"`
	ID         string `json:"id"`
	Attributes A      `json:"attributes"`
}

func statusDoc(s Status) map[string]any {
	return map[string]any{"data": resource[statusAttrs]{Type: "status", ID: "default", Attributes: statusAttrs{
		Status: s.Stage, Paused: s.Paused, VUs: s.VUs, VUsMax: s.VUsMax,
		Stopped: s.Stopped, Running: s.Running, Tainted: s.Tainted,
	}}}
}

type metricAttrs struct {
	Type     string             `json:"type"`
	Contains string             `json:"contains"`
	Tainted  *bool              `json:"tainted"`
	Sample   map[string]float64 `json:"sample"`
}

type metricDoc = resource[metricAttrs]

func newMetricDoc(m Metric) metricDoc {
	sample := m.Sample
	if sample == nil {
		sample = map[string]float64{}
	}
	return metricDoc{Type: "metrics", ID: m.Name, Attributes: metricAttrs{Type: m.Type, Contains: m.Contains, Tainted: m.Tainted, Sample: sample}}
}

type checkDoc struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	Name   string `json:"name"`
	Passes uint64 `json:"passes"`
	Fails  uint64 `json:"fails"`
}

type groupAttrs struct {
	Path   string     `json:"path"`
	Name   string     `json:"name"`
	Checks []checkDoc `json:"checks"` // null when the group has none, as in k6.
}

type ref struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

type groupDoc struct {
	resource[groupAttrs]
	Relationships struct {
		Groups struct {
			Data []ref `json:"data"`
		} `json:"groups"`
		Parent struct {
			Data *ref `json:"data"`
		} `json:"parent"`
	} `json:"relationships"`
}

func newGroupDoc(g, parent *Group) groupDoc {
	d := groupDoc{resource: resource[groupAttrs]{Type: "groups", ID: aggregate.GroupID(g.Path), Attributes: groupAttrs{Path: g.Path, Name: g.Name}}}
	for _, c := range g.Checks {
		d.Attributes.Checks = append(d.Attributes.Checks, checkDoc{ID: aggregate.GroupID(c.Path), Path: c.Path, Name: c.Name, Passes: c.Passes, Fails: c.Fails})
	}
	d.Relationships.Groups.Data = []ref{}
	for _, sub := range g.Groups {
		d.Relationships.Groups.Data = append(d.Relationships.Groups.Data, ref{Type: "groups", ID: aggregate.GroupID(sub.Path)})
	}
	if parent != nil {
		d.Relationships.Parent.Data = &ref{Type: "groups", ID: aggregate.GroupID(parent.Path)}
	}
	return d
}

type setupAttrs struct {
	Data json.RawMessage `json:"data,omitempty"`
}

func setupDoc(data json.RawMessage) map[string]any {
	return map[string]any{"data": resource[setupAttrs]{Type: "setupData", ID: "default", Attributes: setupAttrs{Data: data}}}
}

type errorItem struct {
	Status string `json:"status"`
	Title  string `json:"title"`
	Detail string `json:"detail"`
}

func errorDoc(e *Error) map[string]any {
	return map[string]any{"errors": []errorItem{{Status: strconv.Itoa(e.Code), Title: e.Title, Detail: e.Error()}}}
}

// nullBool and nullInt decode an optional attribute: absent or null leaves v nil.
// Their type errors read as k6's (which decodes into gopkg.in/guregu/null.v3).
type nullBool struct{ v *bool }

// UnmarshalJSON decodes a bool or null.
func (n *nullBool) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		n.v = nil
		return nil
	}
	var x bool
	if err := json.Unmarshal(b, &x); err != nil {
		return typeError(b, "null.Bool")
	}
	n.v = &x
	return nil
}

type nullInt struct{ v *int64 }

// UnmarshalJSON decodes an integer or null.
func (n *nullInt) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		n.v = nil
		return nil
	}
	var x int64
	if err := json.Unmarshal(b, &x); err != nil {
		return typeError(b, "null.Int")
	}
	n.v = &x
	return nil
}

func typeError(b []byte, typ string) error {
	kind := "number"
	switch b[0] {
	case '"':
		kind = "string"
	case '{':
		kind = "object"
	case '[':
		kind = "array"
	case 't', 'f':
		kind = "bool"
	}
	return fmt.Errorf("json: cannot unmarshal %s into Go value of type %s", kind, typ)
}
