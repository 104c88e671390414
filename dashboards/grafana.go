package dashboards

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// ErrUnauthorized is returned when Grafana rejects the token (HTTP 401 or 403).
var ErrUnauthorized = errors.New("grafana rejected the token")

// APIError is a non-success answer of Grafana's HTTP API.
type APIError struct {
	// Method and Path identify the request (never its headers: they hold the token).
	Method, Path string
	// StatusCode is the HTTP status.
	StatusCode int
	// Message is Grafana's "message" field, or the start of the body.
	Message string
}

// Error implements error.
func (e *APIError) Error() string {
	return fmt.Sprintf("grafana %s %s: status %d: %s", e.Method, e.Path, e.StatusCode, e.Message)
}

// Unwrap makes errors.Is(err, ErrUnauthorized) true for 401 and 403.
func (e *APIError) Unwrap() error {
	if e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden {
		return ErrUnauthorized
	}
	return nil
}

// Client uploads dashboards through Grafana's HTTP API with a service-account token.
// The token is sent only in the Authorization header and never appears in errors.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
}

type clientOptions struct {
	httpClient *http.Client
}

// ClientOption configures a [Client].
type ClientOption func(*clientOptions)

// WithHTTPClient sets the HTTP client (default: one with a 30 s timeout).
func WithHTTPClient(c *http.Client) ClientOption {
	return func(o *clientOptions) { o.httpClient = c }
}

// NewClient returns a client for the Grafana at grafanaURL (for example
// http://grafana:3000, or https://example.com/grafana behind a sub-path).
func NewClient(grafanaURL, token string, opts ...ClientOption) (*Client, error) {
	u, err := url.Parse(grafanaURL)
	if err != nil {
		return nil, fmt.Errorf("parse grafana url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("parse grafana url: scheme %q is not http or https", u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("parse grafana url %q: no host; expected a URL such as http://grafana:3000", grafanaURL)
	}
	if strings.TrimSpace(token) == "" {
		return nil, errors.New("grafana token is empty")
	}
	// Grafana's HTTP client default: 30 s is generous for one dashboard.
	o := clientOptions{httpClient: &http.Client{Timeout: 30 * time.Second}}
	for _, opt := range opts {
		opt(&o)
	}
	return &Client{base: u, token: strings.TrimSpace(token), http: o.httpClient}, nil
}

// Folder is a Grafana folder.
type Folder struct {
	UID   string `json:"uid"`
	Title string `json:"title"`
}

// EnsureFolder returns the UID of the top-level folder titled title, creating it (with a
// UID derived from the title) when it does not exist.
func (c *Client) EnsureFolder(ctx context.Context, title string) (string, error) {
	var folders []Folder
	if err := c.do(ctx, http.MethodGet, "api/folders", url.Values{"limit": {"1000"}}, nil, &folders); err != nil {
		return "", fmt.Errorf("list folders: %w", err)
	}
	for _, f := range folders {
		if f.Title == title {
			return f.UID, nil
		}
	}
	uid := folderUID(title)
	var created Folder
	err := c.do(ctx, http.MethodPost, "api/folders", nil, Folder{UID: uid, Title: title}, &created)
	var apiErr *APIError
	if errors.As(err, &apiErr) && (apiErr.StatusCode == http.StatusConflict || apiErr.StatusCode == http.StatusPreconditionFailed) {
		// A folder with this UID exists but is not a top-level folder titled title (a
		// nested folder, say): use it rather than fail.
		var existing Folder
		if gerr := c.do(ctx, http.MethodGet, "api/folders/"+url.PathEscape(uid), nil, nil, &existing); gerr == nil && existing.UID != "" {
			return existing.UID, nil
		}
	}
	if err != nil {
		return "", fmt.Errorf("create folder %q: %w", title, err)
	}
	return created.UID, nil
}

// PushResult is Grafana's answer to one dashboard upload.
type PushResult struct {
	UID     string `json:"uid"`
	URL     string `json:"url"`
	Status  string `json:"status"`
	Version int    `json:"version"`
}

// pushRequest is the body of POST /api/dashboards/db.
type pushRequest struct {
	Dashboard dashboard.Dashboard `json:"dashboard"`
	FolderUID string              `json:"folderUid,omitempty"`
	Overwrite bool                `json:"overwrite"`
	Message   string              `json:"message,omitempty"`
}

// Push uploads one dashboard into the folder folderUID, overwriting the version with the
// same UID.
func (c *Client) Push(ctx context.Context, d dashboard.Dashboard, folderUID, message string) (PushResult, error) {
	// Grafana matches on UID; a stale numeric id would make it look for another dashboard.
	d.Id = nil
	var res PushResult
	body := pushRequest{Dashboard: d, FolderUID: folderUID, Overwrite: true, Message: message}
	if err := c.do(ctx, http.MethodPost, "api/dashboards/db", nil, body, &res); err != nil {
		uid := ""
		if d.Uid != nil {
			uid = *d.Uid
		}
		return PushResult{}, fmt.Errorf("push dashboard %q: %w", uid, err)
	}
	return res, nil
}

// PushAll ensures the folder titled folder exists and uploads every dashboard into it.
func PushAll(ctx context.Context, c *Client, folder string, built []Built, message string) ([]PushResult, error) {
	uid, err := c.EnsureFolder(ctx, folder)
	if err != nil {
		return nil, err
	}
	out := make([]PushResult, 0, len(built))
	for _, b := range built {
		res, err := c.Push(ctx, b.Dashboard, uid, message)
		if err != nil {
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}

// maxErrorBody bounds how much of an error response is read into an error message.
const maxErrorBody = 4 << 10

// do sends one JSON request to Grafana's API and decodes a JSON answer into out.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	u := c.base.JoinPath(path)
	u.RawQuery = query.Encode()
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return fmt.Errorf("create request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("send request: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		msg := strings.TrimSpace(string(raw))
		var m struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(raw, &m) == nil && m.Message != "" {
			msg = m.Message
		}
		return &APIError{Method: method, Path: "/" + path, StatusCode: resp.StatusCode, Message: msg}
	}
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decode %s %s response: %w", method, path, err)
	}
	return nil
}

// folderUID derives a folder UID from its title: lower case, [a-z0-9-], at most 40
// characters (Grafana's UID limit).
func folderUID(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" {
		s = "tidemark"
	}
	return s
}
