package js

import (
	"fmt"
	"path"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/grafana/sobek"
	"github.com/grafana/sobek/ast"
	"github.com/grafana/sobek/parser"
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

// compileSource compiles the module p, whose source is src, once for every VU. An ES
// module (import, export or top-level await) becomes a sobek module record (p.rec:
// native ES module semantics, its evaluation a promise); a CommonJS module (none of
// them, or a .cjs file) a CommonJS wrapper (p.prg), with a record (p.cjs) for ES
// modules that import it. TypeScript is stripped of its types first. The caller holds
// l.mu.
func (l *loader) compileSource(p *program, src []byte) error {
	ext := path.Ext(strings.ToLower(p.name))
	if ext != ".cjs" {
		code, err := moduleCode(p.name, src)
		if err != nil {
			return err
		}
		// A module that does not parse as an ES module (sloppy-mode CommonJS) is
		// compiled as CommonJS below, which reports its errors.
		if body, perr := sobek.Parse(p.name, code, parser.IsModule); perr == nil {
			rec, err := sobek.ModuleFromAST(body, l.resolveRecord)
			if err != nil {
				return &ScriptError{Msg: fmt.Sprintf("%s: SyntaxError: %v", p.name, err), Err: err}
			}
			if body.HasTLA || len(rec.RequestedModules()) > 0 || len(body.ExportEntries) > 0 {
				l.byRecord[rec] = p
				p.importAt = importPositions(p.name, code, body)
				p.rec = rec
				return nil
			}
		}
	}
	p.cjs = &cjsRecord{l: l, p: p}
	l.byRecord[p.cjs] = p
	var err error
	p.prg, err = compile(p.name, src)
	return err
}

// moduleCode is the module's source as sobek parses an ES module, through esbuild's
// transform keeping the module's format: TypeScript stripped of its types, JavaScript as it is,
// with an inline source map, so that positions are the source's as on the CommonJS
// path.
func moduleCode(name string, src []byte) (string, error) {
	loader := api.LoaderJS
	if ext := path.Ext(strings.ToLower(name)); ext == ".ts" || ext == ".mts" || ext == ".cts" {
		loader = api.LoaderTS
	}
	res := api.Transform(string(src), api.TransformOptions{
		Loader: loader,
		// No format: esbuild keeps the module's own, so that a CommonJS module stays
		// one (format esm would wrap it in an ES module).
		Target:     api.ESNext,
		Platform:   api.PlatformNeutral,
		Sourcemap:  api.SourceMapInline,
		Sourcefile: name,
		LogLevel:   api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		return "", syntaxError(name, res.Errors[0])
	}
	return string(res.Code), nil
}

// compile turns one CommonJS module's source into a program that evaluates to its
// wrapper function. TypeScript (and any ES module sobek's parser refuses) is
// transformed to CommonJS by esbuild (types are
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

// importPositions maps each specifier the module imports to the "file:line:column" of
// its first import (of the specifier's string literal), for errors resolving it.
func importPositions(name, code string, body *ast.Program) map[string]string {
	at := map[string]string{}
	for n, st := range body.Body {
		var spec string
		switch d := st.(type) {
		case *ast.ImportDeclaration:
			spec = d.ModuleSpecifier.String()
			if d.FromClause != nil {
				spec = d.FromClause.ModuleSpecifier.String()
			}
		case *ast.ExportDeclaration:
			if d.FromClause == nil {
				continue
			}
			spec = d.FromClause.ModuleSpecifier.String()
		default:
			continue
		}
		if _, ok := at[spec]; ok {
			continue
		}
		// The statement runs to the next one (sobek's Idx1 of an import is its keyword's).
		from, to := int(st.Idx0())-1, len(code)
		if n+1 < len(body.Body) {
			to = min(int(body.Body[n+1].Idx0())-1, to)
		}
		if from < 0 || from >= to {
			continue
		}
		// The literal is the statement's last string: find it from the end.
		i := strings.LastIndex(code[from:to], spec)
		if i < 1 {
			continue
		}
		pos := body.File.Position(from + i - 1)
		at[spec] = fmt.Sprintf("%s:%d:%d", name, pos.Line, pos.Column+1)
	}
	return at
}
