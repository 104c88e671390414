package request

import (
	"net/http"
	"net/url"
	"time"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
)

// spec is what every hop of one request shares, whether the request is a
// compiled step's (Step embeds it) or was described at run time (Request). The
// transports (once, onceH1) and the samples (record) read only this.
type spec struct {
	timeout   time.Duration
	redirects int
	// needBody keeps the response body in the client's buffer.
	needBody bool
	// expected are the statuses judged expected (k6's expectedStatuses; none
	// holds 200–399). With unjudged no status is judged: no expected_response
	// tag and no http_req_failed sample (k6's setResponseCallback(null)).
	expected []scenario.StatusRange
	unjudged bool
	// name is the name and url tag; "" tags the URL.
	name string
	// base holds the tags of every sample before the request's own (run tags,
	// scenario, group); reqTags are the request's own and win over the others.
	base, reqTags []metrics.Tag
	// url, staticURL, h1 and h1Head are a compiled step's static request.
	url       string
	staticURL bool
	h1        *h1Target // the static URL's plain-HTTP target
	h1Head    []byte    // the request head of a step without variables, over plain HTTP
	// id identifies a dynamic request's tags in the client's tag cache, where
	// every dynamic request shares the client's spec; a step's spec is its own.
	id *metrics.TagSet
}

func (s *spec) expects(status int) bool {
	if len(s.expected) == 0 {
		return status >= 200 && status <= 399
	}
	for _, r := range s.expected {
		if status >= r.Min && status <= r.Max {
			return true
		}
	}
	return false
}

// hop is one request of a redirect chain.
type hop struct {
	method, target string
	// header is the hop's header without the jar's cookies; sent is the header
	// as sent.
	header, sent http.Header
	body         []byte
}

// hops runs the request h describes and the redirects it may follow, each its
// own request with its own samples, and returns the last response and its
// outcome; h ends as the last hop. static says the first hop is the compiled
// step's own request. ck, when not nil, adds cookies to every hop and stores
// those the responses set. It is the one path of steps and dynamic requests.
func (c *Client) hops(sp *spec, h *hop, static bool, ck *cookies) (*http.Response, Outcome) {
	var out Outcome
	var resp *http.Response
	var first *url.URL
	for n := 0; ; n++ {
		h.sent = h.header
		if ck != nil {
			h.sent = ck.header(h.target, h.header, n == 0)
		}
		resp, out = c.once(sp, h.method, h.target, h.sent, h.body, static && n == 0)
		if ck != nil && resp != nil {
			ck.store(resp)
		}
		if out.Err != nil || n >= sp.redirects || !isRedirect(resp.StatusCode) {
			break
		}
		if n == 0 {
			first = resp.Request.URL
		}
		loc := resp.Header.Get("Location")
		if loc == "" {
			break
		}
		u, err := resp.Request.URL.Parse(loc)
		if err != nil {
			break
		}
		h.target = u.String()
		dropBody := false
		switch resp.StatusCode {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther:
			// net/http's rules: the body is not sent again, and a method other than
			// GET or HEAD becomes GET.
			dropBody, h.body = true, nil
			if h.method != http.MethodGet && h.method != http.MethodHead {
				h.method = http.MethodGet
			}
		}
		h.header = redirectHeader(h.header, first, u, loc, dropBody)
	}
	return resp, out
}
