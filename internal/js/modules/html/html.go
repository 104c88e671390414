// Package html is the native `k6/html` module: parseHTML and the jQuery-like
// Selection over a parsed document, with the DOM-like Element, its typed kinds
// (FormElement, InputElement, AnchorElement, …) and Attribute, as @types/k6
// declares them and k6's documentation describes them. Parsing and selectors are
// goquery's (golang.org/x/net/html and cascadia).
//
// k6/http's Response.html(), submitForm() and clickLink() build on Document,
// Form and Link.
//
// Objects are Go values the runtime reflects (its field name mapper makes Find
// find): a Selection or an Element is a Go struct, and its methods are the
// script's. Documents are read-only, as in k6. The module also exports the
// abstract classes @types/k6 declares (Selection, Element, FormElement, …): they
// cannot be constructed, but `x instanceof Selection` works. An invalid selector
// matches nothing, as in goquery.
package html

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/grafana/sobek"

	"github.com/tidemark/tidemark/internal/js/modules"
)

// New returns the module.
func New() modules.Module {
	return modules.ModuleFunc(func(vu modules.VU) (modules.Instance, error) {
		rt := vu.Runtime()
		named := map[string]any{
			"parseHTML": func(call sobek.FunctionCall) sobek.Value {
				return rt.ToValue(Document(rt, call.Argument(0).String(), ""))
			},
			"NodeType": nodeTypes(rt),
		}
		parents := classParents()
		for _, name := range append(slices.Collect(maps.Keys(parents)), "Selection", "Attribute") {
			named[name] = classConstructor(rt, name, parents)
		}
		return modules.Exports{Named: named}, nil
	})
}

// Document parses src as an HTML document and returns its Selection (the
// document node). url is the document's address, against which links and form
// actions resolve ("" for none).
func Document(rt *sobek.Runtime, src, url string) *Selection {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(src))
	if err != nil { // x/net/html reports only reader errors: a string has none
		modules.Throw(rt, errors.Join(errors.New("parseHTML"), err))
	}
	return &Selection{rt: rt, sel: doc.Selection, url: url}
}

// nodeTypes is the NodeType enum.
func nodeTypes(rt *sobek.Runtime) *sobek.Object {
	o := rt.NewObject()
	for _, kv := range []struct {
		k string
		v int
	}{{"ElementNode", 1}, {"TextNode", 3}, {"CommentNode", 8}, {"DocumentNode", 9}, {"DoctypeNode", 10}} {
		_ = o.Set(kv.k, kv.v)
		_ = o.Set(strconv.Itoa(kv.v), kv.k) // a TypeScript enum maps back too
	}
	return o
}

// classConstructor is the abstract class name: calling it throws, instanceof
// tests a value's class and its ancestors.
func classConstructor(rt *sobek.Runtime, name string, parents map[string]string) *sobek.Object {
	ctor := rt.ToValue(func(sobek.ConstructorCall) *sobek.Object {
		panic(rt.NewTypeError("Illegal constructor: " + name + " is abstract; get one from parseHTML"))
	}).(*sobek.Object)
	hasInstance := rt.ToValue(func(call sobek.FunctionCall) sobek.Value {
		v, ok := call.Argument(0).(*sobek.Object)
		if !ok {
			return rt.ToValue(false)
		}
		return rt.ToValue(isA(v.Export(), name, parents))
	})
	_ = ctor.DefineDataPropertySymbol(sobek.SymHasInstance, hasInstance, sobek.FLAG_FALSE, sobek.FLAG_FALSE, sobek.FLAG_FALSE)
	return ctor
}

// isA reports whether the Go value v is of class name or one of its subclasses.
func isA(v any, name string, parents map[string]string) bool {
	var class string
	switch x := v.(type) {
	case *Selection:
		return name == "Selection"
	case *Attribute:
		return name == "Attribute"
	case classed:
		class = x.class()
	default:
		return false
	}
	for ; class != ""; class = parents[class] {
		if class == name {
			return true
		}
	}
	return false
}
