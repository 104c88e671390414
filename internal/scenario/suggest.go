package scenario

import "strings"

// suggest returns the candidate closest to s by edit distance, or "" when none is close
// enough to be a likely typo (distance at most a third of the longer string, and 3).
func suggest(s string, candidates []string) string {
	best, bestD := "", -1
	ls := strings.ToLower(s)
	for _, c := range candidates {
		d := editDistance(ls, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 {
		return ""
	}
	limit := max(len(s), len(best)) / 3
	limit = min(max(limit, 1), 3)
	if bestD > limit {
		return ""
	}
	return best
}

// didYouMean returns `; did you mean "x"?` or "".
func didYouMean(s string, candidates []string) string {
	if m := suggest(s, candidates); m != "" {
		return `; did you mean "` + m + `"?`
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, counting an adjacent
// transposition as one edit (optimal string alignment), over bytes.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		// Long strings are not typos of our short names; don't spend time on them.
		return max(len(a), len(b))
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
