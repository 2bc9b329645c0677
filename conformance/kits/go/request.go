package kit

import (
	"bytes"
	"encoding/json"
	"reflect"

	"toolnexus.dev/conformance/kit/protocol"
)

// Request is one parsed request line: its command and every field as the raw JSON it arrived as,
// so a value whose key order matters (an `echo` tool's args, PROTOCOL.md §7) keeps it.
type Request struct {
	// Cmd is the request's `cmd`.
	Cmd string
	// Fields holds every field of the request, `cmd` and `seq` included, as raw JSON.
	Fields map[string]json.RawMessage
}

// Answer is the fields of a success answer (PROTOCOL.md §5); the kit adds `ok` and `seq`.
// A json.RawMessage value is written as it is (compacted), keeping its key order.
type Answer map[string]any

// Raw returns a field's raw JSON; a field that is absent or null is reported absent (§6: null
// means absent).
func (r *Request) Raw(key string) (json.RawMessage, bool) {
	v, ok := r.Fields[key]
	if !ok || isNull(v) {
		return nil, false
	}
	return v, true
}

// Has reports whether a field is present and not null.
func (r *Request) Has(key string) bool {
	_, ok := r.Raw(key)
	return ok
}

// Get decodes a required field into v; a missing field or a wrong type is a bad_request.
func (r *Request) Get(key string, v any) error {
	raw, ok := r.Raw(key)
	if !ok {
		return Failf(BadRequest, "missing field %q", key)
	}
	return decodeField(key, raw, v)
}

// Opt decodes an optional field into v when present and reports whether it was.
func (r *Request) Opt(key string, v any) (bool, error) {
	raw, ok := r.Raw(key)
	if !ok {
		return false, nil
	}
	return true, decodeField(key, raw, v)
}

// String returns a required string field.
func (r *Request) String(key string) (string, error) {
	var s string
	err := r.Get(key, &s)
	return s, err
}

// Decode decodes the whole request into v (a struct with json tags, such as the generated
// protocol.BuildRequest); a wrong type is a bad_request, and so is a key the protocol requires
// of a generated type (protocol.Required) that is absent or null.
func (r *Request) Decode(v any) error {
	if t := reflect.TypeOf(v); t != nil && t.Kind() == reflect.Pointer {
		if t.Elem().PkgPath() == reflect.TypeOf(protocol.BuildRequest{}).PkgPath() {
			for _, key := range protocol.Required[t.Elem().Name()] {
				if !r.Has(key) {
					return Failf(BadRequest, "missing field %q", key)
				}
			}
		}
	}
	all, err := json.Marshal(r.Fields)
	if err != nil {
		return Failf(Internal, "re-encoding the request: %v", err)
	}
	if err := json.Unmarshal(all, v); err != nil {
		return Failf(BadRequest, "%v", err)
	}
	return nil
}

func decodeField(key string, raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return Failf(BadRequest, "field %q: %v", key, err)
	}
	return nil
}

func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}
