package kit

import "fmt"

// The error kinds of PROTOCOL.md §4; each decides the harness's verdict on the scenario.
const (
	// Unsupported skips the scenario: the port lacks this command, option or behaviour.
	Unsupported = "unsupported"
	// BadRequest fails the scenario: the request is malformed.
	BadRequest = "bad_request"
	// UnknownToolkit fails the scenario: the request names no toolkit built in this session.
	UnknownToolkit = "unknown_toolkit"
	// Internal fails the scenario: the driver itself broke.
	Internal = "internal"
)

// Failure is a driver failure, answered as {"ok":false,"error":{"kind":…,"message":…}}.
type Failure struct {
	// Kind is one of the PROTOCOL.md §4 kinds.
	Kind string
	// Message is the human text; for Unsupported it is what the skip report quotes.
	Message string
}

// Error renders the failure for logs.
func (f *Failure) Error() string { return f.Kind + ": " + f.Message }

// Fail returns a Failure of the given kind as an error, for a handler to return.
func Fail(kind, message string) error { return &Failure{Kind: kind, Message: message} }

// Failf is Fail with a format string.
func Failf(kind, format string, args ...any) error {
	return &Failure{Kind: kind, Message: fmt.Sprintf(format, args...)}
}
