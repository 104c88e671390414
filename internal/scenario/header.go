package scenario

import "strings"

// ValidHeaderName reports whether s is an RFC 9110 token, the syntax of a header field
// name. It is the one implementation of that rule: the parser checks a file's header
// names with it, and the request client the names it sends and reads.
func ValidHeaderName[S string | []byte](s S) bool {
	if len(s) == 0 {
		return false
	}
	for i := range len(s) {
		if !isTokenChar(s[i]) {
			return false
		}
	}
	return true
}

// ValidHeaderValue reports whether s has no control characters other than horizontal
// tab (RFC 9110 §5.5), which would break a request's framing. Like ValidHeaderName, it
// serves both the parser and the request client.
func ValidHeaderValue[S string | []byte](s S) bool {
	for i := range len(s) {
		if c := s[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// isTokenChar reports whether c is an RFC 9110 tchar.
func isTokenChar(c byte) bool {
	switch {
	case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
