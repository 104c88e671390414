// Package testrun assembles one `tidemark run`: it layers the run's options (defaults
// < the file's or script's options < the K6_* environment < flags), loads the test
// from a scenario file or a k6 script behind one Source, and composes the run's actors
// (outputs, k6's REST API, the web dashboard, the header and the progress line) around
// loadtest.Run, then prints the k6 summary. The command binds flags into Options and
// builds the parts that need the public edges (remote write, the exporter).
package testrun
