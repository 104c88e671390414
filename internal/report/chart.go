package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart geometry. Every chart has the same size and the same X range, so the plotting
// areas line up vertically and a moment sits at the same horizontal position.
const (
	chartWidth  = 11 * vg.Inch
	chartHeight = 2.6 * vg.Inch
)

// palette is colour-blind friendly (Okabe–Ito).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},
	color.RGBA{213, 94, 0, 255},
	color.RGBA{0, 158, 115, 255},
	color.RGBA{204, 121, 167, 255},
	color.RGBA{230, 159, 0, 255},
	color.RGBA{86, 180, 233, 255},
	color.RGBA{0, 0, 0, 255},
	color.RGBA{240, 228, 66, 255},
}

// SVG draws every chart of d, stacked in one figure whose plotting areas are aligned
// (plot.Align), over d.Window, with d.Events as vertical markers, and returns the SVG
// document: nil when d has no charts. Only d's Window, Charts and Events are read. The
// SVG loads nothing from the network, so it can be inlined in a self-contained page.
func SVG(d *Document) ([]byte, error) {
	if len(d.Charts) == 0 {
		return nil, nil
	}
	plots := make([][]*plot.Plot, len(d.Charts))
	for i, c := range d.Charts {
		p, err := newPlot(c, d.Window, d.Events, i == len(d.Charts)-1)
		if err != nil {
			return nil, err
		}
		plots[i] = []*plot.Plot{p}
	}
	canvas := vgsvg.New(chartWidth, chartHeight*vg.Length(len(d.Charts)))
	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: len(d.Charts), Cols: 1, PadY: vg.Points(6), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(12)}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("write svg: %w", err)
	}
	return buf.Bytes(), nil
}

// newPlot builds one chart over the window. Only the last chart shows time labels, the
// way a stack of aligned panels reads.
func newPlot(c Chart, win Window, events []Event, last bool) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = c.Title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.Y.Label.Text = c.Unit
	p.X.Min = unix(win.From)
	p.X.Max = unix(win.To)
	p.X.Tick.Marker = plot.TimeTicks{Format: time.TimeOnly, Time: plot.UnixTimeIn(time.UTC)}
	p.Y.Tick.Label.Font.Size = vg.Points(9)
	p.X.Tick.Label.Font.Size = vg.Points(9)
	if last {
		p.X.Label.Text = "time (UTC)"
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Add(plotter.NewGrid())

	ymin, ymax := math.Inf(1), math.Inf(-1)
	for i, s := range c.Series {
		col := palette[i%len(palette)]
		for _, seg := range segments(s.Points, win) {
			line, err := plotter.NewLine(seg)
			if err != nil {
				return nil, fmt.Errorf("draw series %q: %w", s.Name, err)
			}
			line.Color = col
			line.Width = vg.Points(1.5)
			if s.Step {
				line.StepStyle = plotter.PostStep
			}
			p.Add(line)
			for _, xy := range seg {
				ymin, ymax = math.Min(ymin, xy.Y), math.Max(ymax, xy.Y)
			}
		}
		// One legend entry per series, even when it has gaps or no data.
		p.Legend.Add(s.Name, legendThumb{col: col})
	}
	for _, l := range c.Lines {
		ln, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: l.Value}, {X: p.X.Max, Y: l.Value}})
		if err != nil {
			return nil, fmt.Errorf("draw line %q: %w", l.Label, err)
		}
		ln.Color = color.RGBA{110, 110, 110, 255}
		ln.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(ln)
		p.Legend.Add(l.Label, ln)
		ymin, ymax = math.Min(ymin, l.Value), math.Max(ymax, l.Value)
	}
	if math.IsInf(ymin, 1) {
		ymin, ymax = 0, 1
	}
	p.Y.Min = math.Min(0, ymin)
	p.Y.Max = ymax * 1.1
	if p.Y.Max <= p.Y.Min {
		p.Y.Max = p.Y.Min + 1
	}
	for _, e := range events {
		x := unix(e.Time)
		if x < p.X.Min || x > p.X.Max {
			continue
		}
		m, err := plotter.NewLine(plotter.XYs{{X: x, Y: p.Y.Min}, {X: x, Y: p.Y.Max}})
		if err != nil {
			return nil, fmt.Errorf("draw event %q: %w", e.Label, err)
		}
		m.Color = color.RGBA{160, 160, 160, 200}
		m.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(m)
	}
	return p, nil
}

// legendThumb draws a legend swatch in a series' colour.
type legendThumb struct{ col color.Color }

// Thumbnail implements plot.Thumbnailer.
func (t legendThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle{Color: t.col, Width: vg.Points(2)}, c.Min.X, y, c.Max.X, y)
}

// segments splits points into runs of finite values inside the window; NaN is a gap.
func segments(pts []Point, win Window) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for _, pt := range pts {
		if math.IsNaN(pt.V) || math.IsInf(pt.V, 0) || pt.T.Before(win.From) || pt.T.After(win.To) {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, plotter.XY{X: unix(pt.T), Y: pt.V})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func unix(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}

func seriesRange(s Series) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range s.Points {
		if math.IsNaN(p.V) || math.IsInf(p.V, 0) {
			continue
		}
		lo, hi, ok = math.Min(lo, p.V), math.Max(hi, p.V), true
	}
	return lo, hi, ok
}
