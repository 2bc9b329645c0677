package kit

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Behaviour is one behaviour object of PROTOCOL.md §7: exactly one key, its Kind, whose value
// Arg stays raw JSON until an interpreter decodes it.
type Behaviour struct {
	// Kind is the behaviour's one key (`echo`, `suspend`, `observe`, …).
	Kind string
	// Arg is that key's value as received.
	Arg json.RawMessage
}

// ParseBehaviour reads a behaviour object; what names the option in messages ("beforeLLM",
// "waitFor", …). Not an object, or not exactly one key, is a bad_request.
func ParseBehaviour(what string, raw json.RawMessage) (Behaviour, error) {
	keys, err := ObjectKeys(raw)
	if err != nil || len(keys) != 1 {
		return Behaviour{}, Failf(BadRequest, "%s: a behaviour is an object with exactly one key, got %s", what, clip(raw))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Behaviour{}, Failf(BadRequest, "%s: %v", what, err)
	}
	return Behaviour{Kind: keys[0], Arg: fields[keys[0]]}, nil
}

// unknownBehaviour is the `unsupported` answer for a behaviour outside the catalogue of what.
func unknownBehaviour(what string, b Behaviour) error {
	return Failf(Unsupported, "%s: unknown behaviour %q", what, b.Kind)
}

// decodeStrict decodes raw into v, refusing keys v does not declare: the protocol's behaviour
// shapes are closed, and a misspelt key must not be ignored (PROTOCOL.md §4 bad_request).
func decodeStrict(what string, raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Failf(BadRequest, "%s: %v", what, err)
	}
	return nil
}

// wantTrue decodes a flag behaviour (`{"echo": true}`, `{"observe": true}`); only true is in the
// catalogue.
func wantTrue(what string, b Behaviour) error {
	var on bool
	if err := json.Unmarshal(b.Arg, &on); err != nil || !on {
		return Failf(BadRequest, "%s: %q must be true, got %s", what, b.Kind, clip(b.Arg))
	}
	return nil
}

// clip shortens raw JSON for a message.
func clip(raw json.RawMessage) string {
	if len(raw) > 80 {
		return string(raw[:80]) + "…"
	}
	return string(raw)
}

// marshal encodes v as compact JSON without HTML escaping (`<`, `>`, `&` stay themselves, as the
// harness writes them); a json.RawMessage keeps its key order.
func marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// str decodes a string argument of a behaviour.
func str(what string, b Behaviour) (string, error) {
	var s string
	if err := json.Unmarshal(b.Arg, &s); err != nil {
		return "", Failf(BadRequest, "%s: %q takes a string, got %s", what, b.Kind, clip(b.Arg))
	}
	return s, nil
}

// errorf makes the plain error a behaviour raises (not a Failure: it is the host code's throw,
// which the port reports in its own words).
func errorf(msg string) error { return errors.New(msg) }
