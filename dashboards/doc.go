// Package dashboards builds Tidemark's Grafana dashboards with grafana-foundation-sdk,
// writes them (and Grafana provisioning files) to disk, and pushes them through
// Grafana's HTTP API.
//
// Two dashboards are built:
//   - Load (UID "tidemark-load"): everything the k6 Prometheus dashboards (Grafana 19665
//     and 18030) show for k6 remote-write series, plus target versus achieved rate.
//   - Run correlation (UID "tidemark-run-correlation"): load, autoscaling, CPU, database
//     and errors for one run on one time axis with a shared crosshair, annotated with the
//     run's start and end and the correlator's events.
//
// Every panel query is looked up by name in one table of PromQL expressions (see
// [Exprs]); the generated JSON is committed under dashboards/generated and a test fails
// when it drifts from what the builders produce.
package dashboards

//go:generate go run ../cmd/tidemark dashboards generate --output.dir generated
