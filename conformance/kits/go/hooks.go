package kit

import (
	"encoding/json"
	"sync"
)

// LLMCall is what a `beforeLLM` hook receives: the port's values, any JSON-marshalable form.
type LLMCall struct {
	// Turn is the port's own numbering.
	Turn int
	// Model is the model of the turn.
	Model string
	// Messages is the transcript the hook received.
	Messages any
	// Tools is the tool list as the port passes it (the style's adapter entries).
	Tools any
}

// LLMOverride is what `beforeLLM` returns; nil fields are left as they were.
type LLMOverride struct {
	// Messages replaces the transcript (a JSON array).
	Messages json.RawMessage
	// Tools replaces the tool list (a JSON array, possibly empty).
	Tools json.RawMessage
	// Compactor asks the port to run its own SPEC §7F compactor, built with these options, on the
	// transcript and return its answer as the hook's (§7 `compactor`).
	Compactor *CompactOptions
}

// LLMResponse is what an `afterLLM` hook receives.
type LLMResponse struct {
	// Turn is the port's own numbering.
	Turn int
	// Model is the model of the turn.
	Model string
	// Response is the raw provider payload.
	Response any
}

// ToolHookCall is what `beforeTool` and `afterTool` receive.
type ToolHookCall struct {
	// Name is the tool's name.
	Name string
	// Args are the call's arguments (any JSON-marshalable value).
	Args any
	// ID is the provider's call id.
	ID string
	// Turn is the port's own numbering.
	Turn int
	// Result is the tool's ToolResult (afterTool only).
	Result ToolResult
}

// ToolOverride is what `beforeTool` returns: a Result (the tool never runs) or new Args.
type ToolOverride struct {
	// Result short-circuits the call.
	Result *ToolResult
	// Args replace the call's arguments (a JSON object).
	Args json.RawMessage
}

// Hooks are a client's installed hooks (§7 "Client hooks"); a nil func is a hook not installed.
// Each records its call in hookCalls before its behaviour acts.
type Hooks struct {
	// BeforeLLM returns nil to leave the turn as it is, or an error to raise (abort).
	BeforeLLM func(c LLMCall) (*LLMOverride, error)
	// AfterLLM observes.
	AfterLLM func(r LLMResponse)
	// BeforeTool returns nil to let the call run as it is.
	BeforeTool func(c ToolHookCall) *ToolOverride
	// AfterTool returns nil to keep the result.
	AfterTool func(c ToolHookCall) *ToolResult
}

// hookBehaviours says which behaviours each hook takes.
var hookBehaviours = map[string][]string{
	"beforeLLM":  {"observe", "replaceMessages", "keepTools", "abort", "appendMessage", "compactor"},
	"afterLLM":   {"observe"},
	"beforeTool": {"observe", "result", "args"},
	"afterTool":  {"observe", "result", "prefix"},
}

// Hooks builds the `hooks` option `{beforeLLM?, afterLLM?, beforeTool?, afterTool?}`. An unknown
// hook, or a behaviour the hook does not take, is a bad_request; a behaviour outside the
// catalogue is unsupported.
func (in *Interpreter) Hooks(raw json.RawMessage) (Hooks, error) {
	var h Hooks
	var byHook map[string]json.RawMessage
	order, err := ObjectKeys(raw)
	if err == nil {
		err = json.Unmarshal(raw, &byHook)
	}
	if err != nil {
		return h, Failf(BadRequest, "hooks: %v", err)
	}
	bs := map[string]Behaviour{}
	for _, hook := range order { // in the order received, so the first bad hook is the one named
		braw := byHook[hook]
		allowed, known := hookBehaviours[hook]
		if !known {
			return h, Failf(BadRequest, "hooks: unknown hook %q", hook)
		}
		if isNull(braw) {
			continue
		}
		b, err := ParseBehaviour(hook, braw)
		if err != nil {
			return h, err
		}
		if !contains(allowed, b.Kind) {
			for _, other := range hookBehaviours {
				if contains(other, b.Kind) { // in the catalogue, for another hook
					return h, Failf(BadRequest, "%s: behaviour %q is not for this hook", hook, b.Kind)
				}
			}
			return h, unknownBehaviour(hook, b)
		}
		if b.Kind == "observe" {
			if err := wantTrue(hook, b); err != nil {
				return h, err
			}
		}
		bs[hook] = b
	}
	in.Records.Enable(HookCalls)
	if b, ok := bs["beforeLLM"]; ok {
		if h.BeforeLLM, err = in.beforeLLM(b); err != nil {
			return h, err
		}
	}
	if _, ok := bs["afterLLM"]; ok {
		h.AfterLLM = func(r LLMResponse) {
			in.Records.Add(HookCalls, struct {
				Hook     string `json:"hook"`
				Turn     int    `json:"turn"`
				Model    string `json:"model"`
				Response any    `json:"response"`
			}{"afterLLM", r.Turn, r.Model, r.Response})
		}
	}
	if b, ok := bs["beforeTool"]; ok {
		if h.BeforeTool, err = in.beforeTool(b); err != nil {
			return h, err
		}
	}
	if b, ok := bs["afterTool"]; ok {
		if h.AfterTool, err = in.afterTool(b); err != nil {
			return h, err
		}
	}
	return h, nil
}

func (in *Interpreter) beforeLLM(b Behaviour) (func(LLMCall) (*LLMOverride, error), error) {
	record := func(c LLMCall) {
		in.Records.Add(HookCalls, struct {
			Hook     string `json:"hook"`
			Turn     int    `json:"turn"`
			Model    string `json:"model"`
			Messages any    `json:"messages"`
			Tools    any    `json:"tools"`
		}{"beforeLLM", c.Turn, c.Model, c.Messages, c.Tools})
	}
	act := func(LLMCall) (*LLMOverride, error) { return nil, nil } // observe
	switch b.Kind {
	case "replaceMessages":
		if !isArray(b.Arg) {
			return nil, Fail(BadRequest, "beforeLLM: replaceMessages takes an array of messages")
		}
		var mu sync.Mutex
		replacedIn := -1 // the loop command (Records epoch) it acted in: once per run
		act = func(LLMCall) (*LLMOverride, error) {
			mu.Lock()
			defer mu.Unlock()
			if epoch := in.Records.currentEpoch(); epoch != replacedIn {
				replacedIn = epoch
				return &LLMOverride{Messages: b.Arg}, nil
			}
			return nil, nil
		}
	case "keepTools":
		var names []string
		if err := json.Unmarshal(b.Arg, &names); err != nil {
			return nil, Failf(BadRequest, "beforeLLM: keepTools: %v", err)
		}
		act = func(c LLMCall) (*LLMOverride, error) {
			kept, err := keepTools(c.Tools, names)
			return &LLMOverride{Tools: kept}, err
		}
	case "abort":
		msg, err := str("beforeLLM", b)
		if err != nil {
			return nil, err
		}
		act = func(LLMCall) (*LLMOverride, error) { return nil, errorf(msg) }
	case "appendMessage":
		act = func(c LLMCall) (*LLMOverride, error) {
			msgs, err := elements(c.Messages)
			return &LLMOverride{Messages: mustArray(append(msgs, b.Arg))}, err
		}
	case "compactor":
		opts, err := in.CompactOptions(b.Arg)
		if err != nil {
			return nil, err
		}
		act = func(LLMCall) (*LLMOverride, error) { return &LLMOverride{Compactor: opts}, nil }
	}
	return func(c LLMCall) (*LLMOverride, error) {
		record(c)
		return act(c)
	}, nil
}

// keepTools keeps the tools whose `function.name` or `name` is listed, in received order.
func keepTools(tools any, names []string) (json.RawMessage, error) {
	all, err := elements(tools)
	kept := []json.RawMessage{}
	for _, t := range all {
		var named struct {
			Name     *string `json:"name"`
			Function struct {
				Name *string `json:"name"`
			} `json:"function"`
		}
		_ = json.Unmarshal(t, &named) // a tool of another shape has no name and is dropped
		name := named.Function.Name
		if name == nil {
			name = named.Name
		}
		if name != nil && contains(names, *name) {
			kept = append(kept, t)
		}
	}
	return mustArray(kept), err
}

func (in *Interpreter) beforeTool(b Behaviour) (func(ToolHookCall) *ToolOverride, error) {
	var over *ToolOverride
	switch b.Kind {
	case "result":
		r, err := parseToolResult("beforeTool", b.Arg)
		if err != nil {
			return nil, err
		}
		over = &ToolOverride{Result: &r}
	case "args":
		over = &ToolOverride{Args: b.Arg}
	}
	return func(c ToolHookCall) *ToolOverride {
		in.Records.Add(HookCalls, struct {
			Hook string `json:"hook"`
			Name string `json:"name"`
			Args any    `json:"args"`
			ID   string `json:"id"`
			Turn int    `json:"turn"`
		}{"beforeTool", c.Name, c.Args, c.ID, c.Turn})
		if over == nil {
			return nil
		}
		copied := *over
		return &copied
	}, nil
}

func (in *Interpreter) afterTool(b Behaviour) (func(ToolHookCall) *ToolResult, error) {
	act := func(ToolHookCall) *ToolResult { return nil }
	switch b.Kind {
	case "result":
		r, err := parseToolResult("afterTool", b.Arg)
		if err != nil {
			return nil, err
		}
		act = func(ToolHookCall) *ToolResult { copied := r; return &copied }
	case "prefix":
		p, err := str("afterTool", b)
		if err != nil {
			return nil, err
		}
		act = func(c ToolHookCall) *ToolResult {
			r := c.Result
			r.Output = p + r.Output
			return &r
		}
	}
	return func(c ToolHookCall) *ToolResult {
		in.Records.Add(HookCalls, struct {
			Hook   string     `json:"hook"`
			Name   string     `json:"name"`
			Args   any        `json:"args"`
			Result ToolResult `json:"result"`
			ID     string     `json:"id"`
			Turn   int        `json:"turn"`
		}{"afterTool", c.Name, c.Args, c.Result, c.ID, c.Turn})
		return act(c)
	}, nil
}

// parseToolResult reads a hook's ToolResult, a pinned SPEC type (no other keys).
func parseToolResult(what string, raw json.RawMessage) (ToolResult, error) {
	var r struct {
		Output   *string           `json:"output"`
		IsError  *bool             `json:"isError"`
		Parts    []json.RawMessage `json:"parts"`
		Metadata json.RawMessage   `json:"metadata"`
	}
	if err := decodeStrict(what+": result", raw, &r); err != nil {
		return ToolResult{}, err
	}
	if r.Output == nil || r.IsError == nil {
		return ToolResult{}, Failf(BadRequest, "%s: a result needs \"output\" and \"isError\"", what)
	}
	if isNull(r.Metadata) {
		r.Metadata = nil
	}
	return ToolResult{Output: *r.Output, IsError: *r.IsError, Parts: r.Parts, Metadata: r.Metadata}, nil
}

// elements returns the elements of a JSON array given as any Go value (nil is empty).
func elements(v any) ([]json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	raw, err := marshal(v)
	if err != nil {
		return nil, err
	}
	var out []json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// mustArray renders elements as a JSON array (never null).
func mustArray(items []json.RawMessage) json.RawMessage {
	if items == nil {
		items = []json.RawMessage{}
	}
	raw, err := marshal(items)
	if err != nil { // raw elements only: cannot fail
		return json.RawMessage("[]")
	}
	return raw
}

func isArray(raw json.RawMessage) bool {
	var a []json.RawMessage
	return json.Unmarshal(raw, &a) == nil && a != nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
