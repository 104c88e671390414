// Package k6types reads k6's own list of its JavaScript API, the TypeScript declarations
// of the @types/k6 npm package (index.d.ts per module), into the names a runtime must
// provide: each module's exported values (functions, constants, classes, enums, the
// default export) and the members of its classes, interfaces, enums and object-typed
// constants.
//
// It reads the declaration subset @types/k6 uses, not TypeScript at large: top-level
// statements ended by ";" or by the closing brace of a class, interface, enum or
// "declare global" block; members separated by ";" or ",". Type-only statements
// (type aliases, imports) declare no runtime name and are skipped.
package k6types

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Kind is what a declaration is at run time.
type Kind string

// The kinds of declarations.
const (
	// Function is an exported function: a value of the module.
	Function Kind = "function"
	// Const is an exported constant (const, let, var): a value of the module; its
	// Members are those of its object type, if it has one.
	Const Kind = "const"
	// Class is an exported class a script may construct: a value of the module; its
	// Members are those of its instances.
	Class Kind = "class"
	// Abstract is an abstract class: no value of the module, the type of objects the
	// module returns; its Members are those of such objects.
	Abstract Kind = "abstract"
	// Enum is an exported enum: a value whose Members are its keys.
	Enum Kind = "enum"
	// Interface is an interface: no value, the shape of an object a script passes or
	// receives.
	Interface Kind = "interface"
)

// Decl is one top-level declaration.
type Decl struct {
	Name string
	Kind Kind
	// Exported is false for a declaration the module does not export by name (a
	// "declare" only used by its default export).
	Exported bool
	// Extends names the class or interface this one extends, if any.
	Extends string
	// Members are the member names, nested object members as "outer.inner"; methods
	// and properties alike, without inherited ones (see Module.Members).
	Members []string
	// Line is the declaration's line in its file.
	Line int
}

// Module is the declarations of one module's index.d.ts.
type Module struct {
	Decls []Decl
	// Default is how the module exports its default: "namespace" (export * as default,
	// the module object itself), the name of a declaration (export default X), or "".
	Default string
}

// Values returns the names the module object must have: its exported functions,
// constants, classes and enums, sorted.
func (m *Module) Values() []string {
	var out []string
	for _, d := range m.Decls {
		if d.Exported && d.Kind != Abstract && d.Kind != Interface {
			out = append(out, d.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Decl returns the declaration named name (the first, for overloaded functions).
func (m *Module) Decl(name string) (Decl, bool) {
	for _, d := range m.Decls {
		if d.Name == name {
			return d, true
		}
	}
	return Decl{}, false
}

// Members returns the members of the class, interface or constant named name with
// those it inherits from declarations of the same module, sorted.
func (m *Module) Members(name string) []string {
	var out []string
	for seen := map[string]bool{}; name != "" && !seen[name]; {
		seen[name] = true
		d, ok := m.Decl(name)
		if !ok {
			break
		}
		out = append(out, d.Members...)
		name = d.Extends
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Parse reads the declarations of one index.d.ts; file names it in errors.
func Parse(file string, src []byte) (*Module, error) {
	stmts, err := statements(string(src))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	m := &Module{}
	for _, s := range stmts {
		if err := m.add(s); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, s.line, err)
		}
	}
	return m, nil
}

type statement struct {
	text string // comments removed
	line int
}

// statements splits src, its comments removed, into top-level statements.
func statements(src string) ([]statement, error) {
	code, err := stripComments(src)
	if err != nil {
		return nil, err
	}
	var out []statement
	depth, start := 0, 0
	line, startLine := 1, 1
	emit := func(end int) {
		if t := strings.TrimSpace(code[start:end]); t != "" {
			out = append(out, statement{text: t, line: startLine})
		}
		start = end
	}
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case c == '\n':
			line++
			if strings.TrimSpace(code[start:i]) == "" {
				startLine = line
			}
		case c == '"' || c == '\'' || c == '`':
			j, err := skipString(code, i)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			line += strings.Count(code[i:j], "\n")
			i = j - 1
		case c == '{' || c == '(' || c == '[':
			depth++
		case c == '}' || c == ')' || c == ']':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("line %d: unbalanced %q", line, c)
			}
			if depth == 0 && c == '}' && isBlock(code[start:i]) {
				emit(i + 1)
			}
		case c == ';' && depth == 0:
			emit(i + 1)
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unclosed brace at the end of the file")
	}
	emit(len(code))
	return out, nil
}

// isBlock reports whether a statement beginning so ends at its closing brace.
func isBlock(head string) bool {
	for w := range strings.FieldsSeq(head) {
		switch w {
		case "export", "declare", "abstract", "default":
			continue
		case "class", "interface", "enum", "namespace", "module", "global":
			return true
		}
		return false
	}
	return false
}

// skipString returns the index just past the string literal starting at i.
func skipString(s string, i int) (int, error) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1, nil
		case '\n':
			if q != '`' {
				return 0, fmt.Errorf("unterminated string")
			}
		}
	}
	return 0, fmt.Errorf("unterminated string")
}

// stripComments replaces comments by spaces, keeping line breaks (so lines count).
func stripComments(s string) (string, error) {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"' || b[i] == '\'' || b[i] == '`':
			j, err := skipString(s, i)
			if err != nil {
				return "", fmt.Errorf("line %d: %w", 1+strings.Count(s[:i], "\n"), err)
			}
			i = j - 1
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return "", fmt.Errorf("line %d: unclosed comment", 1+strings.Count(s[:i], "\n"))
			}
			for j := i; j < i+2+end+2; j++ {
				if b[j] != '\n' {
					b[j] = ' '
				}
			}
			i += end + 3
		}
	}
	return string(b), nil
}

// add records the declaration of one statement, if it declares a runtime name.
func (m *Module) add(s statement) error {
	words := strings.Fields(s.text)
	exported, def := false, false
	i := 0
	for ; i < len(words); i++ {
		switch words[i] {
		case "export":
			exported = true
			continue
		case "declare":
			continue
		case "default":
			def = true
			continue
		}
		break
	}
	if i == len(words) {
		return fmt.Errorf("a statement with no declaration: %q", s.text)
	}
	rest := strings.Join(words[i:], " ")
	switch {
	case exported && strings.HasPrefix(rest, "* as default"):
		m.Default = "namespace"
		return nil
	case def:
		m.Default = strings.TrimSuffix(strings.TrimSpace(rest), ";")
		return nil
	}
	if words[i] == "global" {
		return m.addGlobal(s)
	}
	kind, name, body := declaration(words[i:], s.text)
	if kind == "" {
		return nil // type, import and the like: no runtime name
	}
	if name == "" {
		return fmt.Errorf("a %s with no name", kind)
	}
	d := Decl{Name: name, Kind: kind, Exported: exported, Line: s.line}
	if kind == Class || kind == Abstract || kind == Interface {
		d.Extends = extends(s.text)
	}
	members, err := membersOf(body, kind == Enum)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	d.Members = members
	m.Decls = append(m.Decls, d)
	return nil
}

// addGlobal records the declarations of a "declare global" block as exported names
// of the module: the globals a script sees without importing.
func (m *Module) addGlobal(s statement) error {
	open := strings.IndexByte(s.text, '{')
	end := -1
	if open >= 0 {
		end = matching(s.text, open)
	}
	if end < 0 {
		return fmt.Errorf("declare global without a body")
	}
	inner, err := statements(s.text[open+1 : end])
	if err != nil {
		return err
	}
	for _, in := range inner {
		in.line += s.line - 1 + strings.Count(s.text[:open], "\n")
		if err := m.add(statement{text: "export " + in.text, line: in.line}); err != nil {
			return err
		}
	}
	return nil
}

// declaration reads a statement's kind, name and member body (the text between
// its outermost braces, if it has any).
func declaration(words []string, text string) (Kind, string, string) {
	var kind Kind
	switch words[0] {
	case "function":
		kind = Function
	case "const", "let", "var":
		kind = Const
	case "class":
		kind = Class
	case "abstract":
		if len(words) > 1 && words[1] == "class" {
			kind, words = Abstract, words[1:]
		}
	case "enum":
		kind = Enum
	case "interface":
		kind = Interface
	}
	if kind == "" || len(words) < 2 {
		return "", "", ""
	}
	name := identifier(words[1])
	body := ""
	if kind != Function {
		if open := strings.IndexByte(text, '{'); open >= 0 {
			if kind == Const && strings.IndexByte(text, '=') >= 0 && strings.IndexByte(text, '=') < open {
				return kind, name, "" // a constant with a literal value
			}
			if end := matching(text, open); end > open {
				body = text[open+1 : end]
			}
		}
	}
	return kind, name, body
}

// extends returns the name after "extends" in a class or interface head.
func extends(text string) string {
	head, _, _ := strings.Cut(text, "{")
	f := strings.Fields(withoutGenerics(head))
	for i, w := range f {
		if w == "extends" && i+1 < len(f) {
			return identifier(f[i+1])
		}
	}
	return ""
}

// withoutGenerics removes the type parameters, "<...>", of a declaration's head.
func withoutGenerics(head string) string {
	var b strings.Builder
	depth := 0
	for _, r := range head {
		switch {
		case r == '<':
			depth++
		case r == '>' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// identifier returns the leading identifier of s.
func identifier(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool { return !isIdent(r) })
	if end < 0 {
		return s
	}
	return s[:end]
}

func isIdent(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// matching returns the index of the brace closing the one at open, or -1.
func matching(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '"', '\'', '`':
			j, err := skipString(s, i)
			if err != nil {
				return -1
			}
			i = j - 1
		case '{', '(', '[':
			depth++
		case '}', ')', ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// membersOf returns the member names of a class, interface, enum or object type body.
func membersOf(body string, enum bool) ([]string, error) {
	var out []string
	for _, part := range splitTop(body) {
		name, rest := memberName(part, enum)
		if name == "" {
			continue
		}
		out = append(out, name)
		// An object-typed property: its members too, as "name.member". A method's
		// return type (name(): {...}) is not one.
		r := strings.TrimSpace(rest)
		if colon := strings.IndexByte(rest, ':'); colon >= 0 && !enum && (strings.HasPrefix(r, ":") || strings.HasPrefix(r, "?:")) {
			t := strings.TrimSpace(rest[colon+1:])
			if strings.HasPrefix(t, "{") {
				if end := matching(t, 0); end == len(t)-1 {
					inner, err := membersOf(t[1:end], false)
					if err != nil {
						return nil, err
					}
					for _, n := range inner {
						out = append(out, name+"."+n)
					}
				}
			}
		}
	}
	return out, nil
}

// splitTop splits s at the ";" and "," outside brackets and strings.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'', '`':
			if j, err := skipString(s, i); err == nil {
				i = j - 1
			}
		case '{', '(', '[', '<':
			depth++
		case '}', ')', ']':
			depth--
		case '>':
			if i > 0 && s[i-1] != '=' { // not an arrow
				depth--
			}
		case ';', ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// memberName returns the name one member declares ("" for index, call and construct
// signatures) and the text after the name.
func memberName(part string, enum bool) (string, string) {
	p := strings.TrimSpace(part)
	for {
		w := identifier(p)
		after := strings.TrimSpace(p[len(w):])
		switch w {
		case "readonly", "static", "public", "abstract", "async", "get", "set":
			if after != "" && (isIdent(rune(after[0])) || after[0] == '"' || after[0] == '\'') {
				p = after
				continue
			}
		case "private", "protected":
			return "", "" // not part of the API (protected __brand: nominal typing)
		case "constructor", "new":
			if after == "" || after[0] == '(' || after[0] == '<' {
				return "", ""
			}
		}
		break
	}
	if p == "" {
		return "", ""
	}
	if p[0] == '"' || p[0] == '\'' {
		j, err := skipString(p, 0)
		if err != nil {
			return "", ""
		}
		return p[1 : j-1], p[j:]
	}
	name := identifier(p)
	if name == "" || name == "__brand" {
		return "", "" // [index]: T, (call): T; __brand: nominal typing, no member
	}
	if enum {
		return name, ""
	}
	return name, p[len(name):]
}
