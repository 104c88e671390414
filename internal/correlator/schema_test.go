package correlator

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/analysis"
)

var updateSchema = flag.Bool("update-schema", false, "rewrite testdata/report_schema_v1.txt")

// schemaPaths lists every JSON path of a type with its JSON kind, e.g.
// "autoscaling[].steps[].ready_gap.value number".
func schemaPaths(t reflect.Type, prefix string, out *[]string, seen map[reflect.Type]bool) {
	switch {
	case t == reflect.TypeFor[time.Time]():
		*out = append(*out, prefix+" time")
		return
	case t == reflect.TypeFor[time.Duration]():
		*out = append(*out, prefix+" number")
		return
	case t == reflect.TypeFor[analysis.Fact]() && prefix != "fact":
		// Facts share one shape, listed once under "fact".
		*out = append(*out, prefix+" fact")
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		schemaPaths(t.Elem(), prefix, out, seen)
	case reflect.Slice:
		schemaPaths(t.Elem(), prefix+"[]", out, seen)
	case reflect.Map:
		schemaPaths(t.Elem(), prefix+"{}", out, seen)
	case reflect.Struct:
		if seen[t] {
			*out = append(*out, prefix+" (recursive)")
			return
		}
		seen[t] = true
		defer delete(seen, t)
		for f := range t.Fields() {
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				schemaPaths(f.Type, prefix, out, seen)
				continue
			}
			if name == "" {
				name = f.Name
			}
			p := name
			if prefix != "" {
				p = prefix + "." + name
			}
			schemaPaths(f.Type, p, out, seen)
		}
	case reflect.String:
		*out = append(*out, prefix+" string")
	case reflect.Bool:
		*out = append(*out, prefix+" bool")
	case reflect.Int, reflect.Int64, reflect.Float64, reflect.Float32, reflect.Int32:
		*out = append(*out, prefix+" number")
	default:
		*out = append(*out, prefix+" "+t.Kind().String())
	}
}

// TestReportSchemaV1 pins report.json's shape: removing or renaming a field fails until
// SchemaVersion is bumped; adding one requires -update-schema (so the listing, which
// documents the schema, stays complete).
func TestReportSchemaV1(t *testing.T) {
	t.Parallel()
	var got []string
	schemaPaths(reflect.TypeFor[Result](), "", &got, map[reflect.Type]bool{})
	schemaPaths(reflect.TypeFor[analysis.Fact](), "fact", &got, map[reflect.Type]bool{})
	slices.Sort(got)
	path := filepath.Join("testdata", "report_schema_v1.txt")
	if *updateSchema {
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644))
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	want := strings.Split(strings.TrimSpace(string(b)), "\n")
	var removed, added []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			removed = append(removed, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			added = append(added, g)
		}
	}
	require.Empty(t, removed, "fields removed or renamed: bump SchemaVersion (now %d) and run -update-schema", SchemaVersion)
	require.Empty(t, added, "fields added: run go test ./internal/correlator -run TestReportSchemaV1 -args -update-schema")
	require.Equal(t, 1, SchemaVersion)
}
