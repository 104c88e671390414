// Package js runs k6 JavaScript tests unchanged: `tidemark run script.js`.
//
// A Runner loads a script (ES modules, CommonJS or TypeScript; esbuild transforms ES
// modules and TypeScript to CommonJS, sobek runs them), runs its init context once to
// read `export const options` into the same scenario.Test as a YAML file, and is the
// engine.VUSource of the run: every VU is one sobek runtime that runs the init context
// and then the scenario's exec function (default) per iteration. Each module is
// compiled once and its program shared by every VU. setup(), teardown(data) and
// handleSummary(data) run once, in VU 0, as k6 documents (reference/k6-js.md §1).
//
// Native modules (k6, k6/execution, ...) implement the interface of package modules
// and are listed in DefaultModules. docs/js-runtime.md says why sobek and esbuild.
package js
