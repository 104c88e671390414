// Package slo judges a load test by server-side rules: Prometheus alerting rules
// (the rule file format `promtool check rules` checks) evaluated against the
// Prometheus a run writes to, while the run goes and once at its end (Judge), or
// afterwards over a past run's window and its stages (JudgeWindow).
//
// A rule's labels.severity says what a firing alert does: warning is reported, error
// fails the run (exit code 99, as a crossed threshold), critical aborts it (as an
// abortOnFail threshold). A rule's expr may use the template variables of Vars
// ({{ .testid }}, {{ .namespace }}, {{ .elapsed }}, {{ .interval }}), expanded before
// the expression is parsed; docs/slo.md describes the format and the shipped rule sets
// (builtin:NAME).
package slo
