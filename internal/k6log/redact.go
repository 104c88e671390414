package k6log

import (
	"slices"
	"strings"
)

// Redacted replaces a secret's value in the log, as k6 writes it.
const Redacted = "***SECRET_REDACTED***"

// Redactor returns a function that replaces every value of secrets in a line with
// Redacted, longest first; nil when there are none.
func Redactor(secrets []string) func(string) string {
	var vals []string
	for _, s := range secrets {
		if s != "" {
			vals = append(vals, s)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	slices.SortFunc(vals, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(vals))
	for _, v := range vals {
		pairs = append(pairs, v, Redacted)
	}
	r := strings.NewReplacer(pairs...)
	return r.Replace
}
