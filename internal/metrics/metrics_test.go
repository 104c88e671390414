package metrics

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTagPoolIntern(t *testing.T) {
	p := NewTagPool()
	a := p.Intern([]Tag{{"b", "2"}, {"a", "1"}, {"empty", ""}, {"", "x"}})
	b := p.Intern([]Tag{{"a", "1"}, {"b", "2"}})
	require.Same(t, a, b)
	require.Equal(t, []Tag{{"a", "1"}, {"b", "2"}}, a.Tags())
	require.Equal(t, "{a:1, b:2}", a.String())

	c := p.Intern([]Tag{{"a", "1"}, {"a", "3"}})
	v, ok := c.Get("a")
	require.True(t, ok)
	require.Equal(t, "3", v)

	// Length prefixes keep {"ab":"c"} and {"a":"bc"} apart.
	require.NotSame(t, p.Intern([]Tag{{"ab", "c"}}), p.Intern([]Tag{{"a", "bc"}}))

	d := p.With(a, Tag{"b", "9"}, Tag{"c", "3"})
	require.Equal(t, []Tag{{"a", "1"}, {"b", "9"}, {"c", "3"}}, d.Tags())
	require.True(t, d.Contains([]Tag{{"c", "3"}, {"a", "1"}}))
	require.False(t, d.Contains([]Tag{{"b", "2"}}))
	require.False(t, d.Contains([]Tag{{"zz", "1"}}))
}

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	b := RegisterBuiltin(r)
	require.Equal(t, Trend, b.HTTPReqDuration.Type)
	require.Equal(t, Time, b.HTTPReqDuration.Contains)
	require.Same(t, b.HTTPReqs, r.Get("http_reqs"))

	m, err := r.New("http_reqs", Counter, Default)
	require.NoError(t, err)
	require.Same(t, b.HTTPReqs, m)

	_, err = r.New("http_reqs", Trend, Time)
	require.EqualError(t, err, `metric "http_reqs" already exists as a counter of default values`)
	_, err = r.New("1bad", Counter, Default)
	require.Error(t, err)
	_, err = r.New("x", Counter, Default)
	require.Error(t, err, "k6 names need at least two characters")
}
