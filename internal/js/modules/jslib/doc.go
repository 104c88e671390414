// Package jslib is Tidemark's own implementation of the two jslib modules nearly every
// k6 script imports, written from their documentation (reference/k6-js.md §8), never
// from jslib's code:
//
//   - https://jslib.k6.io/k6-utils/<version>/index.js (Utils): randomIntBetween,
//     randomItem, randomString, uuidv4, findBetween and normalDistributionStages;
//   - https://jslib.k6.io/k6-summary/<version>/index.js (Summary): textSummary, drawn
//     by internal/summary, the renderer of Tidemark's own end-of-test summary, and
//     jUnit.
//
// # Resolution
//
// js.DefaultModules registers both under their URL prefixes (https://jslib.k6.io/
// k6-utils/ and https://jslib.k6.io/k6-summary/), so every published version (and any
// path under it) resolves to these modules without --modules.dir and without network.
// A user's vendored copy wins: when --modules.dir holds the file
// (<dir>/jslib.k6.io/k6-utils/1.4.0/index.js), the loader runs that file instead
// (internal/js/loader.go, remote). Exports of the real modules that Tidemark does not
// implement are functions that throw naming themselves, never undefined.
package jslib
