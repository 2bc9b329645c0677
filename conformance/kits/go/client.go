package kit

import (
	"encoding/json"
	"sync"
	"sync/atomic"
)

// ErrorInfo is what `onError` receives for a failed attempt (§5.13 `onErrorCalls`).
type ErrorInfo struct {
	// Status is the HTTP status, nil for a transport error.
	Status *int `json:"status,omitempty"`
	// Error is the transport error's message, nil for an HTTP status.
	Error *string `json:"error,omitempty"`
	// Attempt is the attempt's number.
	Attempt int `json:"attempt"`
	// Retryable says whether the port would retry it.
	Retryable bool `json:"retryable"`
}

// OnError builds `onError` (§7): `{"answer": "retry" | "fail"}`, returned for every failed
// attempt, each info recorded in onErrorCalls first (the client's and the classifier's).
func (in *Interpreter) OnError(raw json.RawMessage) (func(ErrorInfo) string, error) {
	b, err := ParseBehaviour("onError", raw)
	if err != nil {
		return nil, err
	}
	if b.Kind != "answer" {
		return nil, unknownBehaviour("onError", b)
	}
	answer, err := str("onError", b)
	if err != nil {
		return nil, err
	}
	if answer != "retry" && answer != "fail" {
		return nil, Failf(BadRequest, "onError: answer %q is not \"retry\" or \"fail\"", answer)
	}
	in.Records.Enable(OnErrorCalls)
	return func(info ErrorInfo) string {
		in.Records.Add(OnErrorCalls, info)
		return answer
	}, nil
}

// OnMetric builds `onMetric` (`{"collect": true}`): every record the port emits lands in
// metricEvents, in its protocol form (§8 "Metric event").
func (in *Interpreter) OnMetric(raw json.RawMessage) (func(event any), error) {
	b, err := ParseBehaviour("onMetric", raw)
	if err != nil {
		return nil, err
	}
	if b.Kind != "collect" {
		return nil, unknownBehaviour("onMetric", b)
	}
	if err := wantTrue("onMetric", b); err != nil {
		return nil, err
	}
	in.Records.Enable(MetricEvents)
	return func(event any) { in.Records.Add(MetricEvents, event) }, nil
}

// GenerateUsage is a `generate` step's usage, OpenAI-spelled on purpose (§7 `generate`).
type GenerateUsage struct {
	// PromptTokens is `prompt_tokens`.
	PromptTokens int64 `json:"prompt_tokens"`
	// CompletionTokens is `completion_tokens`.
	CompletionTokens int64 `json:"completion_tokens"`
	// TotalTokens is `total_tokens`, as the script says (not checked).
	TotalTokens int64 `json:"total_tokens"`
}

// GenerateToolCall is a flat tool call of a `generate` answer.
type GenerateToolCall struct {
	// ID is the optional call id; nil when the script names none.
	ID *string `json:"id"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Arguments is an object, or a string to pass as it is (see ArgumentsText).
	Arguments json.RawMessage `json:"arguments"`
}

// ArgumentsText is the arguments as the provider's JSON text: a string as itself, an object as
// its compact JSON (key order kept), absent as "{}".
func (c GenerateToolCall) ArgumentsText() string {
	var s string
	if json.Unmarshal(c.Arguments, &s) == nil {
		return s
	}
	if len(c.Arguments) == 0 || isNull(c.Arguments) {
		return "{}"
	}
	text, err := CompactJSON(c.Arguments)
	if err != nil {
		return string(c.Arguments)
	}
	return text
}

// GenerateReply is one scripted `generate` answer: Content or ToolCalls, with an optional Usage.
type GenerateReply struct {
	// Content is the assistant text, nil for a tool-call step.
	Content *string `json:"content"`
	// ToolCalls are the step's flat tool calls.
	ToolCalls []GenerateToolCall `json:"toolCalls"`
	// Usage is handed to the port as it is, nil when the step has none.
	Usage *GenerateUsage `json:"usage"`
	// Fail is the script's `fail` (Generate returns it as the error instead).
	Fail *string `json:"fail"`
}

// Generate builds the in-process model `generate` (`{"script": [step, …]}`): the n-th call
// answers step n, the last one again once the script is used up; a `fail` step raises. Each
// request is recorded in generateCalls first.
func (in *Interpreter) Generate(raw json.RawMessage) (func(request any) (GenerateReply, error), error) {
	b, err := ParseBehaviour("generate", raw)
	if err != nil {
		return nil, err
	}
	if b.Kind != "script" {
		return nil, unknownBehaviour("generate", b)
	}
	var steps []GenerateReply
	if err := decodeStrict("generate: script", b.Arg, &steps); err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		return nil, Fail(BadRequest, "generate: the script needs at least one step")
	}
	if err := checkUsage(raw); err != nil {
		return nil, err
	}
	in.Records.Enable(GenerateCalls)
	var calls atomic.Int64
	return func(request any) (GenerateReply, error) {
		in.Records.Add(GenerateCalls, request)
		n := int(min(calls.Add(1)-1, int64(len(steps)-1)))
		step := steps[n]
		if step.Fail != nil {
			return GenerateReply{}, errorf(*step.Fail)
		}
		return step, nil
	}, nil
}

// checkUsage enforces the three required usage keys, which plain decoding would default to 0.
func checkUsage(raw json.RawMessage) error {
	var script struct {
		Script []struct {
			Usage map[string]json.RawMessage `json:"usage"`
		} `json:"script"`
	}
	if err := json.Unmarshal(raw, &script); err != nil {
		return Failf(BadRequest, "generate: %v", err)
	}
	for _, s := range script.Script {
		for _, k := range []string{"prompt_tokens", "completion_tokens", "total_tokens"} {
			if _, ok := s.Usage[k]; s.Usage != nil && !ok {
				return Failf(BadRequest, "generate: usage needs %q", k)
			}
		}
	}
	return nil
}

// BodyTransform builds `bodyTransform` (§7): `set` adds or replaces top-level keys, `copy` sets
// body[to] = body[from] (null when absent), every source read before any is written. The body
// is not changed in place.
func (in *Interpreter) BodyTransform(raw json.RawMessage) (func(body map[string]any) map[string]any, error) {
	b, err := ParseBehaviour("bodyTransform", raw)
	if err != nil {
		return nil, err
	}
	var pairs map[string]json.RawMessage
	var copies map[string]string
	switch b.Kind {
	case "set":
		err = json.Unmarshal(b.Arg, &pairs)
	case "copy":
		err = json.Unmarshal(b.Arg, &copies)
	default:
		return nil, unknownBehaviour("bodyTransform", b)
	}
	if err != nil {
		return nil, Failf(BadRequest, "bodyTransform: %s: %v", b.Kind, err)
	}
	return func(body map[string]any) map[string]any {
		out := make(map[string]any, len(body)+len(pairs)+len(copies))
		for k, v := range body {
			out[k] = v
		}
		for k, v := range pairs {
			out[k] = v
		}
		for from, to := range copies {
			out[to] = body[from] // from the body received, so a swap shows what the transform saw
		}
		return out
	}, nil
}

// MemoryStore is the host ConversationStore of `store: {"seeded": …}`: an in-memory map of the
// driver's own holding transcripts (JSON arrays). Safe for use by several goroutines.
type MemoryStore struct {
	mu      sync.Mutex
	threads map[string]json.RawMessage
}

// Store builds `store` (§7): a MemoryStore seeded with the given transcripts.
func (in *Interpreter) Store(raw json.RawMessage) (*MemoryStore, error) {
	b, err := ParseBehaviour("store", raw)
	if err != nil {
		return nil, err
	}
	if b.Kind != "seeded" {
		return nil, unknownBehaviour("store", b)
	}
	s := &MemoryStore{threads: map[string]json.RawMessage{}}
	var seed map[string]json.RawMessage
	if err := json.Unmarshal(b.Arg, &seed); err != nil {
		return nil, Failf(BadRequest, "store: seeded: %v", err)
	}
	for id, msgs := range seed {
		if !isArray(msgs) {
			return nil, Failf(BadRequest, "store: seeded: %q is not an array of messages", id)
		}
		s.threads[id] = msgs
	}
	return s, nil
}

// Get returns the transcript saved under id, and whether there is one.
func (s *MemoryStore) Get(id string) (json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	msgs, ok := s.threads[id]
	return msgs, ok
}

// Save stores a copy of messages (any JSON-marshalable array) under id.
func (s *MemoryStore) Save(id string, messages any) error {
	raw, err := marshal(messages)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.threads[id] = raw
	return nil
}
