package js

import (
	"github.com/tidemark/tidemark/internal/browser/vitals"
	"github.com/tidemark/tidemark/internal/js/modules"
	k6browser "github.com/tidemark/tidemark/internal/js/modules/browser"
	"github.com/tidemark/tidemark/internal/js/modules/crypto"
	"github.com/tidemark/tidemark/internal/js/modules/csv"
	"github.com/tidemark/tidemark/internal/js/modules/data"
	"github.com/tidemark/tidemark/internal/js/modules/encoding"
	"github.com/tidemark/tidemark/internal/js/modules/execution"
	"github.com/tidemark/tidemark/internal/js/modules/fs"
	"github.com/tidemark/tidemark/internal/js/modules/html"
	"github.com/tidemark/tidemark/internal/js/modules/jslib"
	"github.com/tidemark/tidemark/internal/js/modules/k6"
	"github.com/tidemark/tidemark/internal/js/modules/k6http"
	"github.com/tidemark/tidemark/internal/js/modules/metrics"
	"github.com/tidemark/tidemark/internal/js/modules/netgrpc"
	"github.com/tidemark/tidemark/internal/js/modules/redis"
	"github.com/tidemark/tidemark/internal/js/modules/secrets"
	"github.com/tidemark/tidemark/internal/js/modules/streams"
	"github.com/tidemark/tidemark/internal/js/modules/websockets"
)

// DefaultModules returns the native modules scripts may import. This map is the one
// list of them: to add a module, add its line here (see package modules).
func DefaultModules() *modules.Registry {
	return modules.NewRegistry(map[string]modules.Module{
		"k6":                         k6.New(),
		"k6/execution":               execution.New(),
		"k6/metrics":                 metrics.New(),
		"k6/data":                    data.New(),
		"k6/encoding":                encoding.New(),
		"k6/crypto":                  crypto.New(),
		"k6/http":                    k6http.New(),
		"k6/html":                    html.New(),
		"k6/timers":                  timersModule(),
		"k6/experimental/fs":         fs.New(),
		"k6/experimental/csv":        csv.New(),
		"k6/experimental/streams":    streams.New(),
		"k6/ws":                      websockets.Legacy(),
		"k6/websockets":              websockets.New(),
		"k6/experimental/websockets": websockets.Experimental(), // deprecated in k6 v1.6, still in v2
		"k6/secrets":                 secrets.New(),
		"k6/x/redis":                 redis.New(),
		"k6/experimental/redis":      redis.Experimental(), // removed in k6 v2: a warning
		"k6/net/grpc":                netgrpc.New(),
		"k6/browser":                 k6browser.NewWith(k6browser.Options{Watch: vitals.Watch}), // Web Vitals of every page
		// Prefixes: every version of Tidemark's own jslib modules (package jslib).
		"https://jslib.k6.io/k6-utils/":   jslib.Utils(),
		"https://jslib.k6.io/k6-summary/": jslib.Summary(),
	})
}
