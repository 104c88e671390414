package request

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tidemark/tidemark/internal/metrics"
	"github.com/tidemark/tidemark/internal/scenario"
)

// Step is a scenario step compiled once for all VUs: parsed static parts and the
// tags every sample of the step carries. It is read-only and shared.
type Step struct {
	spec          // what its hops share with a request described at run time
	src           *scenario.Step
	method        string
	body          []byte
	staticBody    bool
	headers       http.Header
	staticHeaders bool
	checkTags     []*metrics.TagSet
}

// Source returns the scenario step.
func (s *Step) Source() *scenario.Step { return s.src }

// Compile prepares step for the VUs of one scenario. base holds the tags of every
// sample of that scenario (run tags, scenario tags and `scenario`); pool interns
// the check tag sets.
func Compile(step *scenario.Step, base []metrics.Tag, pool *metrics.TagPool, userAgent string) (*Step, error) {
	if step.URL == nil {
		return nil, fmt.Errorf("compile step %q: no url", step.Name)
	}
	s := &Step{
		src:    step,
		method: strings.ToUpper(step.Method),
		spec: spec{
			timeout:   step.Timeout,
			redirects: step.Redirects,
			expected:  step.Expected,
			name:      step.Name,
		},
	}
	// The parser fills the defaults; a step built in code gets the same ones here.
	if s.method == "" {
		s.method = http.MethodGet
	}
	if s.timeout <= 0 {
		s.timeout = scenario.DefaultTimeout
	}
	// scenario.Load fills the default (maxRedirects, 10); 0 means follow none, as k6's
	// maxRedirects: 0 does.
	s.redirects = max(s.redirects, 0)
	if len(s.expected) == 0 {
		s.expected = scenario.DefaultExpected()
	}
	if step.URL.Static() {
		s.url, s.staticURL = step.URL.String(), true
		u, err := url.Parse(s.url)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("compile step %q: invalid url %q: expected http(s)://host/path", step.Name, s.url)
		}
		if u.Scheme == "http" {
			t := parseH1Target(u)
			s.h1 = &t
		}
	}
	if step.Body == nil || step.Body.Static() {
		s.staticBody = true
		if step.Body != nil {
			s.body = []byte(step.Body.String())
		}
	}
	s.staticHeaders = true
	for _, v := range step.Headers {
		if !v.Static() {
			s.staticHeaders = false
		}
	}
	if s.staticHeaders {
		s.headers = make(http.Header, len(step.Headers)+1)
		for k, v := range step.Headers {
			s.headers.Set(k, v.String())
		}
		if userAgent != "" && s.headers.Get("User-Agent") == "" {
			s.headers.Set("User-Agent", userAgent)
		}
	}
	if s.h1 != nil && s.staticHeaders && s.staticBody {
		head, err := appendH1Head(nil, s.method, *s.h1, s.headers, len(s.body), len(s.body) > 0)
		if err != nil {
			return nil, fmt.Errorf("compile step %q: %w", step.Name, err)
		}
		s.h1Head = head
	}
	s.base = append([]metrics.Tag(nil), base...)
	if g := GroupPath(step.Group); g != "" {
		s.base = append(s.base, metrics.Tag{Key: "group", Value: g})
	}
	for k, v := range step.Tags {
		s.reqTags = append(s.reqTags, metrics.Tag{Key: k, Value: v})
	}
	for _, ch := range step.Checks {
		switch ch.Kind {
		case scenario.CheckBodyContains, scenario.CheckBodyRegex, scenario.CheckJSON:
			s.needBody = true
		}
		tags := append(append([]metrics.Tag(nil), s.base...), metrics.Tag{Key: "check", Value: ch.Name})
		tags = append(tags, s.reqTags...)
		s.checkTags = append(s.checkTags, pool.Intern(tags))
	}
	return s, nil
}

// GroupPath returns k6's group tag for a group name: "::name"; "" stays "" (the root
// group, whose empty tag is dropped).
func GroupPath(name string) string {
	if name == "" || strings.HasPrefix(name, "::") {
		return name
	}
	return "::" + name
}

// check evaluates the step's checks on resp (nil after a transport error, which
// fails every check) and appends one checks sample per check. It returns the number
// that failed.
func (c *Client) check(st *Step, resp *http.Response, status int) int {
	failed := 0
	now := time.Now()
	r := scenario.Response{Status: status}
	if resp != nil {
		r.Header = resp.Header
		if st.needBody {
			r.Body = c.body.Bytes()
		}
	}
	for i := range st.src.Checks {
		v := 0.0
		if resp != nil && st.src.Checks[i].Eval(&r) {
			v = 1
		} else {
			failed++
		}
		c.samples = append(c.samples, metrics.Sample{Metric: c.env.Metrics.Checks, Tags: st.checkTags[i], Time: now, Value: v})
	}
	return failed
}
