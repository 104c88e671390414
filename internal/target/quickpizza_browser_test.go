package target_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/browser"
)

// waitFor is page JavaScript that polls until the element selector names exists and
// returns its text ("" after five seconds).
const waitFor = `async (selector) => {
  for (let i = 0; i < 100; i++) {
    const e = document.querySelector(selector);
    if (e) return e.textContent;
    await new Promise((r) => setTimeout(r, 50));
  }
  return '';
}`

// TestQuickPizzaInChromium drives the stand-in's pages in Chromium as QuickPizza's
// browser scripts do: "Pizza, Please!" fills div#recommendations, which is absent
// before; the admin page's "Sign in" shows "Logout" and the recommendation just made;
// the user's login lets "Love it!" rate the pizza.
func TestQuickPizzaInChromium(t *testing.T) {
	t.Parallel()
	base := startQuickPizza(t)
	ctx := context.Background()
	b, err := browser.Launch(ctx, browser.DefaultConfig, browser.Options{})
	require.NoError(t, err)
	defer func() { _ = b.Close() }()
	c, err := b.NewContext(ctx, browser.ContextOptions{})
	require.NoError(t, err)
	p, err := c.NewPage(ctx)
	require.NoError(t, err)
	call := func(fn string, args ...string) any {
		t.Helper()
		var as []browser.Arg
		for _, a := range args {
			j, err := json.Marshal(a)
			require.NoError(t, err)
			as = append(as, browser.Arg{JSON: j})
		}
		out, _, err := p.Call(ctx, fn, as, false, 10*time.Second)
		require.NoError(t, err)
		var v any
		if len(out) > 0 {
			require.NoError(t, json.Unmarshal(out, &v))
		}
		return v
	}
	goTo := func(path string) {
		t.Helper()
		res, err := p.Goto(ctx, base+path, "load", 0)
		require.NoError(t, err)
		require.EqualValues(t, 200, res.Status, path)
	}
	click := func(text string) {
		t.Helper()
		require.Equal(t, true, call(`(text) => {
  const b = [...document.querySelectorAll('button')].find((b) => b.textContent === text);
  if (b) b.click();
  return !!b;
}`, text), "a button %q", text)
	}

	goTo("/")
	require.Equal(t, "Looking to break out of your pizza routine?", call(`() => document.querySelector('h1').textContent`))
	require.Equal(t, true, call(`() => document.evaluate('//button[. = "Pizza, Please!"]', document, null, XPathResult.BOOLEAN_TYPE, null).booleanValue`))
	require.Equal(t, true, call(`() => document.getElementById('recommendations') === null`))
	click("Pizza, Please!")
	require.Contains(t, call(waitFor, "div#recommendations"), "Our recommendation:")
	click("Love it!")
	require.Equal(t, "Please log in first.", call(waitFor, "#rate-result:not(:empty)"))

	goTo("/admin")
	click("Sign in")
	require.Equal(t, "Logout", call(waitFor, "main > button"))
	require.Contains(t, call(waitFor, "#latest li"), "(newest)")

	goTo("/login")
	call(`() => { document.getElementById('username').value = 'default'; document.getElementById('password').value = '12345678'; }`)
	click("Sign in")
	require.Equal(t, "No ratings yet", call(waitFor, "#ratings li"))
	goTo("/")
	click("Pizza, Please!")
	call(waitFor, "div#recommendations")
	click("Love it!")
	require.Equal(t, "Rated!", call(waitFor, "#rate-result:not(:empty)"))
	goTo("/login")
	require.Contains(t, call(waitFor, "#ratings li"), "stars=5")
}
