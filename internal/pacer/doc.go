// Package pacer is the pure schedule math of the load engine: when the arrivals of an
// open-model (arrival-rate) scenario are due, how many VUs a ramping-vus scenario
// targets over time, and which share of a scenario one instance runs under a k6
// execution segment. Nothing here sleeps or starts goroutines; executors ask "how many
// arrivals are due by elapsed time t" and dispatch them in batches.
package pacer
