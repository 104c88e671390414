package store

import "github.com/tidemark/tidemark/internal/verdict"

// ConfigError is an error of the store's configuration (Config and the scrape
// configuration file) rather than of the system: the command reports it as a bad
// configuration (exit code 104).
type ConfigError struct{ Err error }

// Error returns the wrapped error's message.
func (e *ConfigError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *ConfigError) Unwrap() error { return e.Err }

// VerdictKind says the configuration cannot be used as given.
func (e *ConfigError) VerdictKind() error { return verdict.ErrInvalid }
