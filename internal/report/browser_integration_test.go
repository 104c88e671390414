//go:build integration

package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/browsertest"
)

func TestIntegrationHTMLReportInChromium(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, WriteHTML(f, sampleDocument()))
	require.NoError(t, f.Close())

	v := browsertest.Open(t, path)
	require.Empty(t, v.ConsoleErrors, "console errors")
	require.Empty(t, v.Exceptions, "page exceptions")
	require.Equal(t, 1, v.SVGCount, "the aligned chart figure renders")
	require.Greater(t, v.FigureWidth, 600.0, "the figure is laid out at a readable width")
	require.Equal(t, 2, v.TableCount, "timeline and autoscaling tables")
	require.Equal(t, 2, v.FactCount)
	require.Equal(t, []string{"Notes", "Key facts", "On one time axis", "Timeline", "Autoscaling"}, v.Headings)
	require.NotEmpty(t, v.Screenshot)
	require.NoError(t, os.WriteFile(filepath.Join(browsertest.ArtifactDir(t), "report-sample.jpg"), v.Screenshot, 0o644))
}
