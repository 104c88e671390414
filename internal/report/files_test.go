package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/correlator"
	"github.com/tidemark/tidemark/internal/timeline"
)

func TestWriteFiles(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	res := &correlator.Result{SchemaVersion: correlator.SchemaVersion, TestID: "spike-1",
		Window: correlator.Windows{Run: timeline.Window{From: from, To: from.Add(time.Minute)}}}
	res2 := *res
	res2.TestID = "spike-2"
	cmp := correlator.Compare(res, &res2)
	for _, tc := range []struct {
		base     string
		doc      *Document
		v        any
		wantJSON string
	}{
		{base: "report", doc: FromCorrelation(res), v: res, wantJSON: `"testid": "spike-1"`},
		{base: "compare", doc: FromComparison(cmp, []*correlator.Result{res, &res2}), v: cmp, wantJSON: `"spike-2"`},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		paths, err := WriteFiles(dir, tc.base, tc.doc, tc.v)
		require.NoError(t, err)
		require.Equal(t, []string{filepath.Join(dir, tc.base+".md"), filepath.Join(dir, tc.base+".json"), filepath.Join(dir, tc.base+".html")}, paths)
		b, err := os.ReadFile(filepath.Join(dir, tc.base+".json"))
		require.NoError(t, err)
		require.Contains(t, string(b), tc.wantJSON)
		require.Contains(t, string(b), `"schema_version": 1`)
		b, err = os.ReadFile(filepath.Join(dir, tc.base+".html"))
		require.NoError(t, err)
		require.Contains(t, string(b), "<html")
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Len(t, entries, 3, "no temporary files left")
	}
}

func TestWriteFilesUnwritableDir(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err := WriteFiles(filepath.Join(file, "sub"), "report", &Document{}, struct{}{})
	require.ErrorContains(t, err, "create report directory")
}

func TestWriteKeyFacts(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteKeyFacts(&b, &Document{
		KeyFacts: []KeyFact{{Label: "Requests", Value: "10"}, {Label: "HPA reaction order", Value: "25 s", Detail: "±10 s"}},
		Notes:    []string{"no RDS series"},
	}))
	require.Equal(t, "  Requests            10\n  HPA reaction order  25 s   (±10 s)\n\nNotes:\n  - no RDS series\n", b.String())
}
