// Package cliarg parses command-line values whose errors must name the flag and
// show an example of what was expected.
package cliarg

import (
	"fmt"
	"net/url"
	"time"
)

// HTTPURL returns an error naming flag unless value is empty or an http or https URL
// with a host; example is shown in the error.
func HTTPURL(flag, value, example string) error {
	if value == "" {
		return nil
	}
	u, err := url.Parse(value)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s %q: expected an http or https URL such as %s", flag, value, example)
	}
	return nil
}

// Time reads the RFC 3339 time of a flag; empty is the zero time.
func Time(flag, value string) (time.Time, error) {
	if value == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, value)
	if err != nil {
		return t, fmt.Errorf("%s %q: expected an RFC 3339 time such as 2026-11-30T10:00:00Z", flag, value)
	}
	return t, nil
}
