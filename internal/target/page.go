package target

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Paths of the page whose Largest Contentful Paint waits for a backend (the hybrid
// example: a browser VU's LCP follows the service the protocol VUs load).
const (
	PagePath      = "/page"
	PageImagePath = "/page/image"
)

// backendTimeout bounds the image's wait for the backend: above the simulated
// cluster's route timeout (5 s), so the page shows what the service answered.
const backendTimeout = 10 * time.Second

// The image's size: large enough to be the page's largest content.
const pageImageW, pageImageH = 800, 450

// lcpPage serves PagePath and PageImagePath. The page is a heading and one large image;
// the image is answered only once the backend (?backend=URL, http or https) has
// answered a GET, so the page's LCP is the backend's latency plus the page's own.
type lcpPage struct {
	client *http.Client
	// ok and failed are the image after a 2xx answer and after any other outcome.
	ok, failed []byte
}

func newLCPPage() (*lcpPage, error) {
	ok, err := pngOf(color.RGBA{R: 0x2e, G: 0x8b, B: 0x57, A: 0xff})
	if err != nil {
		return nil, err
	}
	failed, err := pngOf(color.RGBA{R: 0xb2, G: 0x22, B: 0x22, A: 0xff})
	if err != nil {
		return nil, err
	}
	return &lcpPage{client: &http.Client{Timeout: backendTimeout}, ok: ok, failed: failed}, nil
}

// pngOf is a PNG in shades of one colour at the image's size, in 4×4 blocks of
// pseudo-random shades: Chromium leaves low-entropy images (under 0.05 bits per
// displayed pixel, such as one flat colour) out of LCP, and this one has about 0.2.
func pngOf(c color.RGBA) ([]byte, error) {
	const shades, block = 8, 4
	pal := make(color.Palette, shades)
	for i := range pal {
		f := func(v uint8) uint8 { return uint8(int(v) * (shades + i) / (2 * shades)) }
		pal[i] = color.RGBA{R: f(c.R), G: f(c.G), B: f(c.B), A: 0xff}
	}
	img := image.NewPaletted(image.Rect(0, 0, pageImageW, pageImageH), pal)
	x := uint32(2463534242) // xorshift: the same image every time
	for by := 0; by < pageImageH; by += block {
		for bx := 0; bx < pageImageW; bx += block {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			idx := uint8(x % shades)
			for y := by; y < min(by+block, pageImageH); y++ {
				for xx := bx; xx < min(bx+block, pageImageW); xx++ {
					img.SetColorIndex(xx, y, idx)
				}
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("encode the page's image: %w", err)
	}
	return b.Bytes(), nil
}

// backend is the ?backend= URL, or "" for none; a URL that is not http or https is
// an error.
func backend(r *http.Request) (string, error) {
	raw := r.URL.Query().Get("backend")
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("backend %q: expected an http or https URL", raw)
	}
	return u.String(), nil
}

// ServeHTTP answers the page or its image.
func (p *lcpPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed: expected GET", http.StatusMethodNotAllowed)
		return
	}
	be, err := backend(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.URL.Path == PagePath {
		src := PageImagePath
		if be != "" {
			src += "?" + url.Values{"backend": {be}}.Encode()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = fmt.Fprintf(w, `<!DOCTYPE html><html lang="en"><head><title>Order status</title></head><body>`+
			`<h1>Order status</h1><img id="status" alt="order status" width="%d" height="%d" src="%s"></body></html>`,
			pageImageW, pageImageH, html.EscapeString(src))
		return
	}
	img := p.ok
	if be != "" && !p.fetch(r.Context(), be) {
		img = p.failed
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(img)
}

// fetch GETs the backend and tells whether it answered 2xx.
func (p *lcpPage) fetch(ctx context.Context, be string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, be, nil)
	if err != nil {
		return false
	}
	res, err := p.client.Do(req)
	if err != nil {
		return false
	}
	defer func() { _ = res.Body.Close() }()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode >= 200 && res.StatusCode < 300
}
