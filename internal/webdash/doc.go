// Package webdash serves the live web dashboard of a run, Tidemark's counterpart of
// k6's web dashboard (`--out web-dashboard`, K6_WEB_DASHBOARD=true): one page with the
// request rate, http_req_duration percentiles, VUs, failed requests, checks, the Web
// Vitals of browser VUs and the stage in progress, kept up to date through server-sent events, and the same page
// written as a self-contained HTML file at the end of the run
// (K6_WEB_DASHBOARD_EXPORT).
//
// A Dashboard reads the run's aggregate store on its own ticker, never in the engine's
// path; its charts are drawn by internal/report. Config holds k6's parameters and
// ParseConfig reads them from the environment and an `--out web-dashboard=…` argument.
package webdash
