package regress

import (
	"regexp"
)

// suffix matches a trailing date/time suffix of a testid, after a separator (-, _ or .):
//
//	-20260528               YYYYMMDD
//	-20260528-101500        YYYYMMDD, then HHMM or HHMMSS after - or _
//	-20260528T101500Z       YYYYMMDD'T'HHMM[SS], Z optional
//	-202605281015[00]       YYYYMMDDHHMM[SS]
//	_2026-05-28             YYYY-MM-DD
//	-2026-05-28T10-15-00Z   YYYY-MM-DD'T'HH-MM[-SS] (or with :), Z optional
//	-1780000000             unix seconds (10 digits) or milliseconds (13 digits)
//
// Years are 19xx or 20xx and months and days must be valid, so a number such as the 50
// of spike-50 or a build number is not taken for a date.
var suffix = regexp.MustCompile(`^(.+?)[-_.](?:` + SuffixPattern + `)$`)

// SuffixPattern is the regular expression of the date/time suffixes Group strips (after
// the separator, without anchors), written with the syntax RE2, PromQL and JavaScript
// share (no \d, no look-around), so that dashboards select and name groups as Group
// does.
const SuffixPattern = `` +
	// compact date, optional compact time
	`(?:19|20)[0-9][0-9](?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])(?:[-_T]?(?:[01][0-9]|2[0-3])[0-5][0-9](?:[0-5][0-9])?Z?)?` +
	// dashed date, optional time with - or : between the fields
	`|(?:19|20)[0-9][0-9]-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])(?:[-_T](?:[01][0-9]|2[0-3])[-:]?[0-5][0-9](?:[-:]?[0-5][0-9])?Z?)?` +
	// unix seconds or milliseconds
	`|1[0-9]{9}|1[0-9]{12}`

// Group is the default series a testid belongs to: the testid without a trailing
// date/time suffix ("spike-50-20260528" and "spike-50-20260529" → "spike-50"). The
// suffixes recognised are listed on the suffix pattern: YYYYMMDD with an optional time
// (-20260528-101500, -20260528T101500Z), YYYY-MM-DD with an optional time (_2026-05-28),
// and unix seconds or milliseconds. A testid without such a suffix is its own group.
func Group(testid string) string {
	if m := suffix.FindStringSubmatch(testid); m != nil {
		return m[1]
	}
	return testid
}
