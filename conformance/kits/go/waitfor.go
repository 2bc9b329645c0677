package kit

import "encoding/json"

// WaitForFunc is the §10 host slot `waitFor(request) → answer`.
type WaitForFunc func(req PendingRequest) RequestAnswer

// WaitFor builds a `waitFor` behaviour (§7 "`waitFor`", the toolkit's and the client's option).
// Every Request it receives is recorded in waitForCalls before it answers (§5.13).
func (in *Interpreter) WaitFor(raw json.RawMessage) (WaitForFunc, error) {
	const what = "waitFor"
	b, err := ParseBehaviour(what, raw)
	if err != nil {
		return nil, err
	}
	in.Records.Enable(WaitForCalls)
	record := func(req PendingRequest) { in.Records.Add(WaitForCalls, req) }
	switch b.Kind {
	case "answer":
		var t struct {
			OK     *bool           `json:"ok"`
			Data   json.RawMessage `json:"data"`
			Reason *string         `json:"reason"`
		}
		if err := decodeStrict(what+": answer", b.Arg, &t); err != nil {
			return nil, err
		}
		if isNull(t.Data) {
			t.Data = nil
		}
		return func(req PendingRequest) RequestAnswer {
			record(req)
			a := RequestAnswer{ID: req.ID, OK: t.OK == nil || *t.OK, Data: t.Data, Reason: t.Reason}
			return a
		}, nil
	case "echoRequest":
		if err := wantTrue(what, b); err != nil {
			return nil, err
		}
		return func(req PendingRequest) RequestAnswer {
			record(req)
			return RequestAnswer{ID: req.ID, OK: true, Data: flatRequest(req)}
		}, nil
	}
	return nil, unknownBehaviour(what, b)
}

// flatRequest is `echoRequest`'s data: the Request with primitive values only, its `data` as
// compact JSON text (an MCP elicitation result carries nothing else).
func flatRequest(req PendingRequest) json.RawMessage {
	flat := struct {
		ID        string  `json:"id"`
		Kind      string  `json:"kind"`
		Prompt    string  `json:"prompt"`
		URL       *string `json:"url,omitempty"`
		Data      *string `json:"data,omitempty"`
		ExpiresAt *string `json:"expiresAt,omitempty"`
	}{ID: req.ID, Kind: req.Kind, Prompt: req.Prompt, URL: req.URL, ExpiresAt: req.ExpiresAt}
	if len(req.Data) > 0 {
		text, err := CompactJSON(req.Data)
		if err != nil {
			text = string(req.Data)
		}
		flat.Data = &text
	}
	raw, err := marshal(flat)
	if err != nil { // strings only: cannot fail
		return nil
	}
	return raw
}

// SkillDef is a SPEC §3 S1 skill supplied as data; absent keys stay nil.
type SkillDef struct {
	Name        *string  `json:"name"`
	Description *string  `json:"description"`
	Content     *string  `json:"content"`
	Resources   []string `json:"resources"`
	Base        *string  `json:"base"`
}

// SkillProviderFunc is a §3 S1 lazy skill provider: the defs, or the error it raises.
type SkillProviderFunc func() ([]SkillDef, error)

// SkillProvider builds a `skillProvider` behaviour (§7 "Skill provider"): `skills` returns its
// defs, `fail` raises its message.
func (in *Interpreter) SkillProvider(raw json.RawMessage) (SkillProviderFunc, error) {
	const what = "skillProvider"
	b, err := ParseBehaviour(what, raw)
	if err != nil {
		return nil, err
	}
	switch b.Kind {
	case "skills":
		var defs []SkillDef
		if err := decodeStrict(what+": skills", b.Arg, &defs); err != nil {
			return nil, err
		}
		return func() ([]SkillDef, error) { return append([]SkillDef{}, defs...), nil }, nil
	case "fail":
		msg, err := str(what, b)
		if err != nil {
			return nil, err
		}
		return func() ([]SkillDef, error) { return nil, errorf(msg) }, nil
	}
	return nil, unknownBehaviour(what, b)
}
