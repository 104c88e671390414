// Package restapi serves k6's REST API (v1): the run's status, pausing, resuming and
// stopping it, scaling an externally controlled run, its metrics and groups, and setup
// and teardown on demand, with k6's JSON:API shapes, status codes and error texts (as
// recorded from k6 v1.8.1, testdata/k6/).
//
// A Controller, with the optional MetricsSource, GroupsSource, SetupRunner and
// TeardownRunner, is what the handler serves; Run is the Controller of a Tidemark run
// as the engine stands. NewHandler serves it and Listen puts the handler on k6's
// --address. Pause is the gate --paused holds the start on.
package restapi
