package kit

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// CompactOptions are SPEC §7F `compactor(opts)` options with their host callbacks built
// (§5.26 `compact`, §7 `compactor`): the port builds its own compactor from them.
type CompactOptions struct {
	// MaxTokens is required.
	MaxTokens int64
	// KeepTail is nil when absent (the port's default, maxTokens/2).
	KeepTail *int64
	// FlushToMemory is false when absent.
	FlushToMemory bool
	// Summarize is the `summarize(older)` callback; older is the port's message list (any
	// JSON-marshalable array). Each call is recorded for SummarizeCalls.
	Summarize func(older any) string
	// CountTokens is the `countTokens(messages)` callback, nil when absent (the port's default
	// estimator).
	CountTokens func(messages any) int64

	mu    sync.Mutex
	calls []json.RawMessage
}

// SummarizeCalls is the `older` argument of every Summarize call so far, in order (§5.26).
func (o *CompactOptions) SummarizeCalls() []json.RawMessage {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]json.RawMessage{}, o.calls...)
}

// CompactOptions reads `compact`'s options (§5.26): `summarize` `{text}` or `{template}` (each
// `<N>` the number of older messages), `countTokens` `{perMessage: K}` (K × the number of
// messages). An unknown key is a bad_request; an unknown callback behaviour unsupported.
func (in *Interpreter) CompactOptions(raw json.RawMessage) (*CompactOptions, error) {
	var f struct {
		MaxTokens     *int64          `json:"maxTokens"`
		KeepTail      *int64          `json:"keepTail"`
		Summarize     json.RawMessage `json:"summarize"`
		CountTokens   json.RawMessage `json:"countTokens"`
		FlushToMemory *bool           `json:"flushToMemory"`
	}
	if err := decodeStrict("compact options", raw, &f); err != nil {
		return nil, err
	}
	if f.MaxTokens == nil || len(f.Summarize) == 0 || isNull(f.Summarize) {
		return nil, Fail(BadRequest, "compact options need \"maxTokens\" and \"summarize\"")
	}
	o := &CompactOptions{MaxTokens: *f.MaxTokens, KeepTail: f.KeepTail, FlushToMemory: f.FlushToMemory != nil && *f.FlushToMemory}
	b, err := ParseBehaviour("summarize", f.Summarize)
	if err != nil {
		return nil, err
	}
	if b.Kind != "text" && b.Kind != "template" {
		return nil, unknownBehaviour("summarize", b)
	}
	text, err := str("summarize", b)
	if err != nil {
		return nil, err
	}
	o.Summarize = func(older any) string {
		list, _ := elements(older) // a list that is not JSON is recorded empty
		o.mu.Lock()
		o.calls = append(o.calls, mustArray(list))
		o.mu.Unlock()
		if b.Kind == "template" {
			return strings.ReplaceAll(text, "<N>", strconv.Itoa(count(older)))
		}
		return text
	}
	if len(f.CountTokens) > 0 && !isNull(f.CountTokens) {
		c, err := ParseBehaviour("countTokens", f.CountTokens)
		if err != nil {
			return nil, err
		}
		if c.Kind != "perMessage" {
			return nil, unknownBehaviour("countTokens", c)
		}
		var k int64
		if err := json.Unmarshal(c.Arg, &k); err != nil || k < 0 {
			return nil, Failf(BadRequest, "countTokens: perMessage takes a count, got %s", clip(c.Arg))
		}
		o.CountTokens = func(messages any) int64 { return k * int64(count(messages)) }
	}
	return o, nil
}

// count is the number of elements of a slice, array or JSON array given as any Go value.
func count(v any) int {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice && rv.Type() != reflect.TypeOf(json.RawMessage(nil)) || rv.Kind() == reflect.Array {
		return rv.Len()
	}
	list, _ := elements(v)
	return len(list)
}

// OnBudget builds a runtime's `onBudget` (§5.27 `{"answer": "stop" | "extend"}`): the answer for
// every budget stop, each info recorded in onBudgetCalls first. `suspend` is a SPEC answer the
// kit leaves to the port (unsupported); anything else is a bad_request.
func (in *Interpreter) OnBudget(raw json.RawMessage) (func(info any) string, error) {
	var f struct {
		Answer *string `json:"answer"`
	}
	if err := decodeStrict("onBudget", raw, &f); err != nil {
		return nil, err
	}
	switch {
	case f.Answer == nil:
		return nil, Fail(BadRequest, "onBudget needs \"answer\"")
	case *f.Answer == "suspend":
		return nil, Fail(Unsupported, "onBudget: answer \"suspend\"")
	case *f.Answer != "stop" && *f.Answer != "extend":
		return nil, Failf(BadRequest, "onBudget: answer %q is not \"stop\" or \"extend\"", *f.Answer)
	}
	answer := *f.Answer
	in.Records.Enable(OnBudgetCalls)
	return func(info any) string {
		in.Records.Add(OnBudgetCalls, info)
		return answer
	}, nil
}

// Evaluate builds a custom classifier's `evaluate` (§7 "Classifier behaviours"): `decision`
// returns its decision in the systemone wire form (for the port's own decoder), `fail` raises.
// Each call is recorded in evaluateCalls as {state, questions} before it acts.
func (in *Interpreter) Evaluate(raw json.RawMessage) (func(state, questions any) (json.RawMessage, error), error) {
	b, err := ParseBehaviour("evaluate", raw)
	if err != nil {
		return nil, err
	}
	act := func() (json.RawMessage, error) { return b.Arg, nil }
	switch b.Kind {
	case "decision":
	case "fail":
		msg, err := str("evaluate", b)
		if err != nil {
			return nil, err
		}
		act = func() (json.RawMessage, error) { return nil, errorf(msg) }
	default:
		return nil, unknownBehaviour("evaluate", b)
	}
	in.Records.Enable(EvaluateCalls)
	return func(state, questions any) (json.RawMessage, error) {
		in.Records.Add(EvaluateCalls, struct {
			State     any `json:"state"`
			Questions any `json:"questions"`
		}{state, questions})
		return act()
	}, nil
}
