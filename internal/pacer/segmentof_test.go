package pacer

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSegmentOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		i, n          int
		segment, seq  string
		wantFrom, wTo string
	}{
		{0, 3, "0:1/3", "0,1/3,2/3,1", "0", "1/3"},
		{1, 3, "1/3:2/3", "0,1/3,2/3,1", "1/3", "2/3"},
		{2, 3, "2/3:1", "0,1/3,2/3,1", "2/3", "1"},
		{0, 2, "0:1/2", "0,1/2,1", "0", "1/2"},
		{3, 4, "3/4:1", "0,1/4,2/4,3/4,1", "3/4", "1"},
	} {
		seg, seq := SegmentOf(tc.i, tc.n)
		require.Equal(t, tc.segment, seg)
		require.Equal(t, tc.seq, seq)
		// ParseSegment accepts what we derive, as the same segment.
		got, err := ParseSegment(seg, seq)
		require.NoError(t, err, seg)
		want, err := ParseSegment(tc.wantFrom+":"+tc.wTo, seq)
		require.NoError(t, err)
		require.Equal(t, want.String(), got.String())
	}
}
