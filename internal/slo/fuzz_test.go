package slo

import (
	"strings"
	"testing"
	"time"
)

// FuzzParse: no rule file makes the parser panic, and every error it returns names the
// file; what it accepts renders to an expression the checks accepted. The corpus is in
// testdata/fuzz/FuzzParse, seeded with the shipped rule sets.
func FuzzParse(f *testing.F) {
	for _, name := range Builtins() {
		b, err := Builtin(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(ruleFile("        expr: up{testid=\"{{ .testid }}\"}[{{ .elapsed }}] > 0\n        for: 10s\n        labels: {severity: critical}\n")))
	f.Fuzz(func(t *testing.T, b []byte) {
		rules, err := Parse("f.yaml", b, 5*time.Second)
		if err != nil {
			for _, e := range unjoin(err) {
				if !strings.HasPrefix(e.Error(), "f.yaml") {
					t.Fatalf("error without the file name: %q", e)
				}
			}
			return
		}
		for _, r := range rules {
			if r.Name == "" {
				t.Fatalf("a rule without a name: %+v", r)
			}
			if checkActions(r.Expr) != nil {
				t.Fatalf("accepted an expression with unknown actions: %q", r.Expr)
			}
		}
	})
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
