package js

import (
	"fmt"
	"path"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/grafana/sobek"
)

// wrapperHead and wrapperTail make a module's code one function of its CommonJS
// environment. esbuild adds them as banner and footer, so that its source map (inline,
// read by sobek) accounts for them and positions name the original file.
const (
	wrapperHead = "(function (exports, require, module, __filename, __dirname, " + importMeta + ") {"
	wrapperTail = "\n})"
)

// importMeta is the wrapper's parameter that stands for `import.meta` (url and
// resolve, as k6 has them).
const importMeta = "__tidemark_import_meta"

// compile turns one module's source into a program that evaluates to its wrapper
// function. ES modules and TypeScript are transformed to CommonJS by esbuild (types are
// stripped, nothing is type-checked, as k6 does); the output keeps the script's own
// syntax (target esnext), so sobek runs what the user wrote. name is the module's name
// in messages and stack traces.
func compile(name string, src []byte) (*sobek.Program, error) {
	loader := api.LoaderJS
	if ext := path.Ext(strings.ToLower(name)); ext == ".ts" || ext == ".mts" || ext == ".cts" {
		loader = api.LoaderTS
	}
	res := api.Transform(string(src), api.TransformOptions{
		Loader:     loader,
		Format:     api.FormatCommonJS,
		Target:     api.ESNext,
		Platform:   api.PlatformNeutral,
		Sourcemap:  api.SourceMapInline,
		Sourcefile: name,
		Banner:     wrapperHead,
		Footer:     wrapperTail,
		Define:     map[string]string{"import.meta": importMeta},
		LogLevel:   api.LogLevelSilent,
		// Keep the script's names and layout: stack traces and messages stay readable.
		KeepNames: false,
	})
	if len(res.Errors) > 0 {
		return nil, syntaxError(name, res.Errors[0])
	}
	// Strict, as ES modules are and as k6 runs every script: an assignment to a frozen
	// object's property or to an undeclared name throws. A .cjs file is CommonJS, sloppy.
	strict := path.Ext(strings.ToLower(name)) != ".cjs"
	prg, err := sobek.Compile(name, string(res.Code), strict)
	if err != nil {
		return nil, &ScriptError{Msg: err.Error(), Err: err}
	}
	return prg, nil
}

// syntaxError names the file, line and column (1-based) of esbuild's first error.
func syntaxError(name string, m api.Message) error {
	if m.Location == nil {
		return &ScriptError{Msg: fmt.Sprintf("%s: SyntaxError: %s", name, m.Text)}
	}
	l := m.Location
	return &ScriptError{
		Msg:  fmt.Sprintf("%s:%d:%d: SyntaxError: %s", name, l.Line, l.Column+1, m.Text),
		File: name, Line: l.Line, Column: l.Column + 1,
	}
}
