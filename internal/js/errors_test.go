package js

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
)

// k6Names lists the k6 modules of DefaultModules as the unknown-module error does.
func k6Names() string {
	var out []string
	for _, n := range DefaultModules().Names() {
		if n == "k6" || strings.HasPrefix(n, "k6/") {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

// TestBrokenScripts: every script error names its file (and line and column where it
// has one) and exits 107; bad options, and options naming a function the script does
// not export, exit 104, as a bad YAML file does.
func TestBrokenScripts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
		code  int
	}{
		{
			name:  "syntax error",
			files: map[string]string{"script.js": "export default function () {\n  let x = ;\n}\n"},
			want:  `script.js:2:11: SyntaxError: Unexpected ";"`,
			code:  107,
		},
		{
			name:  "syntax error in an imported module",
			files: map[string]string{"script.js": "import { f } from './lib/a.js';\nexport default function () { f(); }\n", "lib/a.js": "export function f() {\n\n  return (;\n}\n"},
			want:  `lib/a.js:3:11: SyntaxError: Unexpected ";"`,
			code:  107,
		},
		{
			name:  "TypeScript syntax error",
			files: map[string]string{"script.ts": "const x: number = ;\nexport default function (): void {}\n"},
			want:  `script.ts:1:19: SyntaxError: Unexpected ";"`,
			code:  107,
		},
		{
			name:  "missing default export",
			files: map[string]string{"script.js": "export const options = { vus: 1 };\n"},
			want:  `script.js: a default function is not exported; scenario "default" runs it each iteration (export default function () { ... })`,
			code:  104,
		},
		{
			name: "missing exec function",
			files: map[string]string{"script.js": "export const options = { scenarios: { api: { executor: 'shared-iterations', exec: 'api' } } };\n" +
				"export default function () {}\n"},
			want: `script.js: function "api" is not exported; scenario "api" runs it each iteration (export default function () { ... })`,
			code: 104,
		},
		{
			name:  "throwing init",
			files: map[string]string{"script.js": "const a = 1;\nthrow new Error('no config');\nexport default function () {}\n"},
			want:  `script.js:2:7: Error: no config`,
			code:  107,
		},
		{
			name:  "type error in init",
			files: map[string]string{"script.js": "const cfg = undefined;\nconst u = cfg.url;\nexport default function () {}\n"},
			want:  `script.js:2:15: TypeError: Cannot read property 'url' of undefined`,
			code:  107,
		},
		{
			name:  "unknown k6 module",
			files: map[string]string{"script.js": "import ws from 'k6/nope';\nexport default function () {}\n"},
			want:  `script.js:1:16: unknown module "k6/nope": Tidemark does not implement it; its k6 modules are ` + k6Names(),
			code:  107,
		},
		{
			name:  "unknown module by require",
			files: map[string]string{"script.js": "\nconst _ = require('lodash');\nmodule.exports.default = function () {};\n"},
			want:  `script.js:2:19: unknown module "lodash": a specifier is a k6 module (k6/...), a relative path (./lodash.js) or an https:// URL; there is no node_modules lookup`,
			code:  107,
		},
		{
			name:  "extension",
			files: map[string]string{"script.js": "import k from 'k6/x/kafka';\nexport default function () {}\n"},
			want:  `script.js:1:15: unknown module "k6/x/kafka": k6 extensions (k6/x/...) are not supported by Tidemark`,
			code:  107,
		},
		{
			name:  "missing local module",
			files: map[string]string{"script.js": "import { f } from './nope.js';\nexport default function () {}\n"},
			want:  `script.js:1:19: module nope.js: file does not exist`,
			code:  107,
		},
		{
			name:  "remote module without modules.dir",
			files: map[string]string{"script.js": "import { x } from 'https://jslib.example/x/1.0.0/index.js';\nexport default function () {}\n"},
			want:  `script.js:1:19: remote module "https://jslib.example/x/1.0.0/index.js": Tidemark does not download modules; vendor it into a directory as <dir>/jslib.example/x/1.0.0/index.js and pass --modules.dir=<dir>`,
			code:  107,
		},
		{
			name:  "bad options",
			files: map[string]string{"script.js": "export const options = { vus: -1, duration: '1x' };\nexport default function () {}\n"},
			want:  "script.js: duration: bad duration \"1x\": invalid duration; expected a duration such as \"30s\", \"1m30s\", \"2h\" or \"500ms\", or a number of milliseconds\nscript.js: vus: must be at least 1, got -1",
			code:  104,
		},
		{
			name:  "unknown executor",
			files: map[string]string{"script.js": "export const options = { scenarios: { a: { executor: 'constant-vu', vus: 1, duration: '1s' } } };\nexport default function () {}\n"},
			want:  `script.js: scenarios.a.executor: unknown executor "constant-vu"`,
			code:  104,
		},
		{
			name:  "threshold on a metric nobody created",
			files: map[string]string{"script.js": "export const options = { thresholds: { my_trend: ['p(95)<100'] } };\nexport default function () {}\n"},
			want:  `script.js: thresholds.my_trend: unknown metric "my_trend"; expected a k6 built-in metric or a custom metric the init context creates (new Trend("my_trend"))`,
			code:  104,
		},
		{
			name:  "options that are not an object",
			files: map[string]string{"script.js": "export const options = 5;\nexport default function () {}\n"},
			want:  `script.js: options: expected an object, e.g. export const options = { vus: 10, duration: '30s' }`,
			code:  104,
		},
		{
			name:  "abort in init",
			files: map[string]string{"script.js": "import exec from 'k6/execution';\nexec.test.abort('no target');\nexport default function () {}\n"},
			want:  `test aborted: no target`,
			code:  108,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, tc.files)
			main := "script.js"
			if _, ok := tc.files["script.ts"]; ok {
				main = "script.ts"
			}
			_, err := load(t, dir, main, nil)
			require.Error(t, err)
			msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			require.Contains(t, msg, tc.want)
			require.Equal(t, tc.code, exitcode.Of(err), msg)
		})
	}
}
