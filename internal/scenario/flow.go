package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// maxSteps bounds one flow, so a generated file cannot make an iteration unbounded.
const maxSteps = 10_000

func (d *decoder) flow(n *yaml.Node, field string, env map[string]string, defs testDefaults) Flow {
	items, ok := d.sequence(n, field, false)
	if !ok {
		return Flow{}
	}
	if len(items) == 0 {
		d.errorf(d.resolve(n), field, "no steps; expected a list of steps such as {url: \"http://127.0.0.1:8099/\"}")
		return Flow{}
	}
	if len(items) > maxSteps {
		d.errorf(d.resolve(n), field, "%d steps; expected at most %d", len(items), maxSteps)
		return Flow{}
	}
	fl := Flow{Steps: make([]Step, 0, len(items))}
	for i, it := range items {
		if s, ok := d.step(it, index(field, i), env, defs); ok {
			fl.Steps = append(fl.Steps, s)
		}
	}
	return fl
}

func (d *decoder) step(n *yaml.Node, field string, env map[string]string, defs testDefaults) (Step, bool) {
	f, ok := d.mapping(n, field, stepFields())
	if !ok {
		return Step{}, false
	}
	at := d.resolve(n)
	s := Step{
		Method:    "GET",
		Timeout:   DefaultTimeout,
		Redirects: defs.maxRedirects,
		Expected:  DefaultExpected(),
	}
	good := true
	fail := func(ok bool) {
		if !ok {
			good = false
		}
	}
	un, hasURL := f.get("url")
	sn, hasSleep := f.get("sleep")
	if hasSleep {
		var ok bool
		s.Sleep, ok = d.sleep(sn, join(field, "sleep"))
		fail(ok)
	}
	if !hasURL {
		if !hasSleep || len(f.list) > 1 {
			d.errorf(at, join(field, "url"), "missing url; expected a request step with url (http or https), or a pause with only sleep")
			return Step{}, false
		}
		return Step{Sleep: s.Sleep}, good
	}
	if v, ok := f.get("name"); ok {
		s.Name, ok = d.str(v, join(field, "name"))
		fail(ok)
	}
	if v, ok := f.get("group"); ok {
		s.Group, ok = d.str(v, join(field, "group"))
		fail(ok)
	}
	if v, ok := f.get("method"); ok {
		m, ok := d.str(v, join(field, "method"))
		if ok {
			s.Method = strings.ToUpper(m)
			if !slices.Contains(httpMethods(), s.Method) {
				d.errorf(v, join(field, "method"), "unknown HTTP method %q; expected one of %s%s", m, strings.Join(httpMethods(), ", "), didYouMean(s.Method, httpMethods()))
				ok = false
			}
		}
		fail(ok)
	}
	s.URL = d.url(un, join(field, "url"), env)
	fail(s.URL != nil)
	if s.URL != nil && s.Name == "" && !s.URL.Static() {
		// As k6's http.url`...`: one name for all the URLs a template makes.
		s.Name = s.URL.pattern()
	}
	if v, ok := f.get("headers"); ok {
		s.Headers = d.headers(v, join(field, "headers"), env)
		fail(s.Headers != nil)
	}
	if defs.userAgent != "" && !hasHeader(s.Headers, "User-Agent") {
		if s.Headers == nil {
			s.Headers = map[string]*Template{}
		}
		ua, err := ParseTemplate(strings.ReplaceAll(defs.userAgent, "${", "$${"))
		if err == nil {
			s.Headers["User-Agent"] = ua
		}
	}
	if v, ok := f.get("body"); ok {
		var isJSON bool
		s.Body, isJSON = d.body(v, join(field, "body"), env)
		fail(s.Body != nil)
		if isJSON && !hasHeader(s.Headers, "Content-Type") {
			if s.Headers == nil {
				s.Headers = map[string]*Template{}
			}
			s.Headers["Content-Type"] = &Template{src: "application/json", parts: []part{{lit: "application/json"}}}
		}
	}
	if v, ok := f.get("tags"); ok {
		s.Tags = d.stringMap(v, join(field, "tags"))
		fail(s.Tags != nil)
	}
	if v, ok := f.get("expect"); ok {
		s.Expected, ok = d.expect(v, join(field, "expect"))
		fail(ok)
	}
	if v, ok := f.get("checks"); ok {
		s.Checks, ok = d.checks(v, join(field, "checks"))
		fail(ok)
	}
	if v, ok := f.get("timeout"); ok {
		var ok bool
		s.Timeout, ok = d.duration(v, join(field, "timeout"))
		if ok && s.Timeout <= 0 {
			d.errorf(v, join(field, "timeout"), "must be more than 0")
			ok = false
		}
		fail(ok)
	}
	if v, ok := f.get("redirects"); ok {
		var ok bool
		s.Redirects, ok = d.integer(v, join(field, "redirects"))
		if ok && s.Redirects < 0 {
			d.errorf(v, join(field, "redirects"), "must not be negative, got %d", s.Redirects)
			ok = false
		}
		fail(ok)
	}
	return s, good
}

func hasHeader(h map[string]*Template, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// template parses a string field as a template and binds its environment variables.
func (d *decoder) template(n *yaml.Node, field string, env map[string]string) *Template {
	s, ok := d.str(n, field)
	if !ok {
		return nil
	}
	return d.parseBound(n, field, s, env)
}

func (d *decoder) parseBound(n *yaml.Node, field, s string, env map[string]string) *Template {
	t, err := ParseTemplate(s)
	if err != nil {
		d.errorf(d.resolve(n), field, "%v", err)
		return nil
	}
	b, missing := t.bind(env)
	for _, name := range missing {
		d.errorf(d.resolve(n), field, "environment variable %s is not set; set it, or give a default: ${__ENV.%s:-value}", name, name)
	}
	if len(missing) > 0 {
		return nil
	}
	return b
}

// url parses a URL template and checks that what it renders is an absolute http or
// https URL.
func (d *decoder) url(n *yaml.Node, field string, env map[string]string) *Template {
	t := d.template(n, field, env)
	if t == nil {
		return nil
	}
	sample := string(t.Render(nil, &Vars{VU: 1}))
	u, err := url.Parse(sample)
	switch {
	case err != nil:
		d.errorf(d.resolve(n), field, "invalid URL %q: %v; expected an absolute URL such as http://127.0.0.1:8099/", sample, unwrapURLError(err))
	case u.Scheme != "http" && u.Scheme != "https":
		if u.Scheme == "" {
			d.errorf(d.resolve(n), field, "invalid URL %q: no scheme; expected an absolute URL such as http://127.0.0.1:8099/", sample)
		} else {
			d.errorf(d.resolve(n), field, "invalid URL %q: scheme %q is not supported; expected http or https", sample, u.Scheme)
		}
	case u.Host == "" || u.Hostname() == "":
		d.errorf(d.resolve(n), field, "invalid URL %q: no host; expected an absolute URL such as http://127.0.0.1:8099/", sample)
	default:
		return t
	}
	return nil
}

func unwrapURLError(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}

func (d *decoder) headers(n *yaml.Node, field string, env map[string]string) map[string]*Template {
	f, ok := d.mapping(n, field, nil)
	if !ok {
		return nil
	}
	out := make(map[string]*Template, len(f.list))
	good := true
	for _, e := range f.list {
		hf := join(field, e.name)
		if !ValidHeaderName(e.name) {
			d.errorf(e.key, hf, "bad header name %q; expected letters, digits and -!#$%%&'*+.^_`|~", e.name)
			good = false
			continue
		}
		t := d.template(e.val, hf, env)
		if t == nil {
			good = false
			continue
		}
		if v := string(t.Render(nil, &Vars{VU: 1})); !ValidHeaderValue(v) {
			d.errorf(d.resolve(e.val), hf, "bad header value %q; expected no control characters other than tab (no line breaks)", v)
			good = false
			continue
		}
		out[e.name] = t
	}
	if !good {
		return nil
	}
	return out
}

// body decodes a string body, or a mapping or list sent as JSON (reported by isJSON).
func (d *decoder) body(n *yaml.Node, field string, env map[string]string) (t *Template, isJSON bool) {
	r := d.resolve(n)
	if r == nil {
		return nil, false
	}
	if r.Kind == yaml.MappingNode || r.Kind == yaml.SequenceNode {
		var b strings.Builder
		if !d.jsonValue(&b, r, field) {
			return nil, true
		}
		return d.parseBound(r, field, b.String(), env), true
	}
	return d.template(r, field, env), false
}

func (d *decoder) sleep(n *yaml.Node, field string) (Think, bool) {
	const forms = `a duration such as "1s", a range such as "1s-3s", {min: 1s, max: 3s}, or a number of seconds`
	r := d.resolve(n)
	if r == nil {
		return Think{}, false
	}
	var th Think
	switch {
	case r.Kind == yaml.MappingNode:
		f, ok := d.mapping(r, field, []string{"min", "max"})
		if !ok {
			return Think{}, false
		}
		mn, hasMin := f.get("min")
		mx, hasMax := f.get("max")
		if !hasMin || !hasMax {
			d.errorf(r, field, "a sleep range needs min and max; expected %s", forms)
			return Think{}, false
		}
		var ok1, ok2 bool
		th.Min, ok1 = d.durationUnit(mn, join(field, "min"), time.Second, forms)
		th.Max, ok2 = d.durationUnit(mx, join(field, "max"), time.Second, forms)
		if !ok1 || !ok2 {
			return Think{}, false
		}
	case r.Kind == yaml.ScalarNode && r.ShortTag() == "!!str" && strings.Contains(strings.TrimPrefix(r.Value, "-"), "-"):
		lo, hi, _ := strings.Cut(r.Value, "-")
		var err1, err2 error
		th.Min, err1 = ParseDuration(lo)
		th.Max, err2 = ParseDuration(hi)
		if err1 != nil || err2 != nil {
			d.errorf(r, field, "bad sleep range %q; expected %s", r.Value, forms)
			return Think{}, false
		}
	default:
		var ok bool
		th.Min, ok = d.durationUnit(r, field, time.Second, forms)
		if !ok {
			return Think{}, false
		}
		th.Max = th.Min
	}
	if th.Max < th.Min {
		d.errorf(r, field, "sleep range %s-%s has max below min; expected min <= max", th.Min, th.Max)
		return Think{}, false
	}
	if th.Max == th.Min {
		th.Max = 0
	}
	return th, true
}

// expect decodes statuses and ranges: 200, "200-399", or a list of them.
func (d *decoder) expect(n *yaml.Node, field string) ([]StatusRange, bool) {
	items, ok := d.sequence(n, field, true)
	if !ok {
		return nil, false
	}
	if len(items) == 0 {
		d.errorf(d.resolve(n), field, "no statuses; expected statuses or ranges such as [200, \"300-399\"]")
		return nil, false
	}
	var out []StatusRange
	good := true
	for i, it := range items {
		ef := index(field, i)
		it, ok := d.scalar(it, ef, `a status such as 200 or a range such as "200-399"`)
		if !ok {
			good = false
			continue
		}
		lo, hi, isRange := strings.Cut(it.Value, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b, err2 := strconv.Atoi(strings.TrimSpace(hi))
		switch {
		case err1 != nil || err2 != nil || (it.ShortTag() != "!!str" && isRange):
			d.errorf(it, ef, "bad status %s; expected a status such as 200 or a range such as \"200-399\"", describe(it))
			good = false
		case a < 100 || b > 599 || a > b:
			d.errorf(it, ef, "bad status range %q; expected statuses from 100 to 599, low to high", it.Value)
			good = false
		default:
			out = append(out, StatusRange{Min: a, Max: b})
		}
	}
	return out, good
}

func (d *decoder) checks(n *yaml.Node, field string) ([]Check, bool) {
	items, ok := d.sequence(n, field, false)
	if !ok {
		return nil, false
	}
	out := make([]Check, 0, len(items))
	good := true
	for i, it := range items {
		c, ok := d.check(it, index(field, i))
		if !ok {
			good = false
			continue
		}
		out = append(out, c)
	}
	return out, good
}

func (d *decoder) check(n *yaml.Node, field string) (Check, bool) {
	f, ok := d.mapping(n, field, checkFields())
	if !ok {
		return Check{}, false
	}
	at := d.resolve(n)
	var kinds []string
	for _, k := range []string{"status", "bodyContains", "bodyRegex", "jsonPath", "header"} {
		if _, ok := f.get(k); ok {
			kinds = append(kinds, k)
		}
	}
	const expected = "expected exactly one of status, bodyContains, bodyRegex, jsonPath, header"
	if len(kinds) != 1 {
		if len(kinds) == 0 {
			d.errorf(at, field, "nothing to check; %s", expected)
		} else {
			d.errorf(at, field, "%s given together; %s", strings.Join(kinds, " and "), expected)
		}
		return Check{}, false
	}
	var c Check
	if v, ok := f.get("name"); ok {
		if c.Name, ok = d.str(v, join(field, "name")); !ok {
			return Check{}, false
		}
	}
	eq, hasEq := f.get("equals")
	if hasEq && kinds[0] != "jsonPath" && kinds[0] != "header" {
		d.errorf(eq, join(field, "equals"), "equals only goes with jsonPath or header")
		return Check{}, false
	}
	v, _ := f.get(kinds[0])
	kf := join(field, kinds[0])
	var def string
	switch kinds[0] {
	case "status":
		st, ok := d.integer(v, kf)
		if !ok {
			return Check{}, false
		}
		if st < 100 || st > 599 {
			d.errorf(v, kf, "bad status %d; expected 100 to 599", st)
			return Check{}, false
		}
		c.Kind, c.Status = CheckStatus, st
		def = fmt.Sprintf("status is %d", st)
	case "bodyContains":
		s, ok := d.str(v, kf)
		if !ok {
			return Check{}, false
		}
		c.Kind, c.Value = CheckBodyContains, s
		def = "body contains " + s
	case "bodyRegex":
		s, ok := d.str(v, kf)
		if !ok {
			return Check{}, false
		}
		re, err := regexp.Compile(s)
		if err != nil {
			d.errorf(v, kf, "bad regular expression: %v; expected Go (RE2) syntax", err)
			return Check{}, false
		}
		c.Kind, c.Value, c.Regex = CheckBodyRegex, s, &Regexp{re}
		def = "body matches /" + s + "/"
	case "jsonPath":
		s, ok := d.str(v, kf)
		if !ok {
			return Check{}, false
		}
		path, err := parseJSONPath(s)
		if err != nil {
			d.errorf(v, kf, "bad JSON path %q: %v; expected a dotted path with [i] indexes such as data.items[0].id", s, err)
			return Check{}, false
		}
		c.Kind, c.Path, c.path = CheckJSON, dottedPath(path), path
		def = s + " is present"
		if hasEq {
			var b strings.Builder
			if !d.jsonValue(&b, eq, join(field, "equals")) {
				return Check{}, false
			}
			c.want = decodeJSON([]byte(b.String()))
			c.hasWant = true
			def = s + " is " + b.String()
			// Value is the canonical JSON of the expected value (what json.Marshal
			// makes of the decoded response field: sorted keys, Go's number format),
			// so comparing texts agrees with Eval; a string is kept as it is.
			if str, ok := c.want.(string); ok {
				c.Value = str
			} else if canon, err := json.Marshal(c.want); err == nil {
				c.Value = string(canon)
			}
		}
	case "header":
		s, ok := d.str(v, kf)
		if !ok {
			return Check{}, false
		}
		if !ValidHeaderName(s) {
			d.errorf(v, kf, "bad header name %q", s)
			return Check{}, false
		}
		c.Kind, c.Path = CheckHeader, s
		def = "header " + s + " is present"
		if hasEq {
			if c.Value, ok = d.str(eq, join(field, "equals")); !ok {
				return Check{}, false
			}
			c.hasWant = true
			def = "header " + s + " is " + c.Value
		}
	}
	if c.Name == "" {
		c.Name = def
	}
	return c, true
}
