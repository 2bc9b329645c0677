package kit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// CompactJSON renders a JSON value as the compact JSON the behaviour catalogue compares byte for
// byte (PROTOCOL.md §7 `echo`, `suspend`): no whitespace, keys in the order received, non-ASCII
// characters as themselves, numbers as written. It is what Python's
// json.dumps(v, separators=(",", ":"), ensure_ascii=False) gives for the values scenarios echo.
func CompactJSON(raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	if err := compactValue(dec, &b); err != nil {
		return "", err
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", fmt.Errorf("trailing data after a JSON value")
	}
	return b.String(), nil
}

func compactValue(dec *json.Decoder, b *strings.Builder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		closer := map[json.Delim]byte{'{': '}', '[': ']'}[t]
		b.WriteByte(byte(t))
		for first := true; dec.More(); first = false {
			if !first {
				b.WriteByte(',')
			}
			if t == '{' {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				writeString(b, fmt.Sprint(key))
				b.WriteByte(':')
			}
			if err := compactValue(dec, b); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return err
		}
		b.WriteByte(closer)
	case string:
		writeString(b, t)
	case json.Number:
		b.WriteString(t.String())
	case bool:
		fmt.Fprint(b, t)
	case nil:
		b.WriteString("null")
	}
	return nil
}

// writeString escapes only what JSON requires (quote, backslash, control characters), as Python's
// ensure_ascii=False does; Go's own encoder would also escape <, >, &, U+2028 and U+2029.
func writeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// ObjectKeys returns the keys of a JSON object in the order received (a Go map forgets it), for
// a driver that must judge an options object key by key as the request lists them.
func ObjectKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	keys := []string{}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, fmt.Sprint(key))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
