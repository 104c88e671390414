// Package deploy holds Tidemark's deployment files, and tests that validate them offline:
//   - kubernetes/: kustomize base with the loadtest namespace, the scenario ConfigMap,
//     the suspended load-test and correlate CronJobs and their (empty) permissions;
//   - prometheus/: prometheus.yml and recording rules;
//   - grafana/: data-source and dashboard provisioning, and a compose file for a local
//     Grafana.
//
// The package has no Go API; see README.md for the steps.
package deploy
