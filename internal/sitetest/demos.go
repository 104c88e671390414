package sitetest

import "net/http"

// newDarkModeToggle serves googlechromelabs.github.io's demo of the
// <dark-mode-toggle> element (/dark-mode-toggle/demo/), which k6's getattribute.js
// reads: toggles with their id and mode attribute, the third in light mode.
func newDarkModeToggle() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /dark-mode-toggle/demo/{$}", func(w http.ResponseWriter, _ *http.Request) {
		html(w, `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>dark-mode-toggle demo</title></head><body>`+
			`<h1>&lt;dark-mode-toggle&gt; demo</h1>`+
			`<dark-mode-toggle id="dark-mode-toggle-1" appearance="toggle" legend="Dark mode" dark="on" light="off"></dark-mode-toggle>`+
			`<dark-mode-toggle id="dark-mode-toggle-2" appearance="switch" legend="Theme" dark="Dark" light="Light"></dark-mode-toggle>`+
			`<dark-mode-toggle id="dark-mode-toggle-3" mode="light" legend="Mode" dark="Dark" light="Light" permanent></dark-mode-toggle>`+
			`</body></html>`)
	})
	return mux
}

// newExampleCom serves example.com, the domain reserved for documentation: one page
// on every path.
func newExampleCom() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		html(w, `<!DOCTYPE html><html><head><title>Example Domain</title></head><body><h1>Example Domain</h1>`+
			`<p>A name reserved for examples (RFC 2606); this page stands in for it.</p></body></html>`)
	})
}
