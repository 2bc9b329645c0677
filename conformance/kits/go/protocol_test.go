package kit

import (
	"encoding/json"
	"errors"
	"testing"

	"toolnexus.dev/conformance/kit/protocol"
)

func requestOf(t *testing.T, line string) *Request {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &fields); err != nil {
		t.Fatal(err)
	}
	var cmd string
	_ = json.Unmarshal(fields["cmd"], &cmd)
	return &Request{Cmd: cmd, Fields: fields}
}

// The generated request types decode PROTOCOL.md §5.5's example, and a key the schema requires
// is checked: absent or null is a bad_request naming it.
func TestDecodeIntoAGeneratedRequestType(t *testing.T) {
	var r protocol.AdapterRequest
	req := requestOf(t, `{"cmd":"adapter","seq":4,"toolkit":"tk1","format":"openai"}`)
	if err := req.Decode(&r); err != nil || r.Toolkit != "tk1" || r.Format != "openai" {
		t.Fatalf("decoded %+v, %v", r, err)
	}
	for _, line := range []string{
		`{"cmd":"adapter","seq":4,"format":"openai"}`,
		`{"cmd":"adapter","seq":4,"toolkit":null,"format":"openai"}`,
	} {
		err := requestOf(t, line).Decode(&protocol.AdapterRequest{})
		var f *Failure
		if !errors.As(err, &f) || f.Kind != BadRequest || f.Message != `missing field "toolkit"` {
			t.Fatalf("%s: got %v", line, err)
		}
	}
	var w protocol.AgentWaitRequest
	if err := requestOf(t, `{"cmd":"agent_wait","runtime":"rt1","handle":"root/asker.1","timeoutMs":100,"advanceMs":100}`).Decode(&w); err != nil {
		t.Fatal(err)
	}
	if w.TimeoutMs == nil || *w.TimeoutMs != 100 || w.Handle != "root/asker.1" {
		t.Fatalf("decoded %+v", w)
	}
}

// hello's sections come from the generated table.
func TestCoreCommandsAreTheGeneratedTable(t *testing.T) {
	if len(CoreCommands["4"]) == 0 || CoreCommands["4"][0] != protocol.CoreCommands["4"][0] {
		t.Fatalf("CoreCommands[4] = %v", CoreCommands["4"])
	}
}
