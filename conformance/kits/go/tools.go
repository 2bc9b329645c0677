package kit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
)

// Interpreter turns the behaviours of PROTOCOL.md §7 into plain Go functions for the port's code,
// recording what they observe in Records. One per session is enough.
type Interpreter struct {
	// Records receives every recorded list the functions fill.
	Records *Records
	// Timers bounds `awaitCancel`: RealTime in a driver, a Clock in tests.
	Timers Timers
	// NewID gives each `suspend` Request a fresh id.
	NewID func() string
}

// NewInterpreter returns an interpreter on the wall clock recording into rec, whose request ids
// are `req-<hex>-<n>` as the reference's are (any fresh non-empty string would do, §7).
func NewInterpreter(rec *Records) *Interpreter {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand, Go ≥ 1.20); the counter keeps ids unique anyway
	prefix := "req-" + hex.EncodeToString(b[:]) + "-"
	var n atomic.Int64
	return &Interpreter{Records: rec, Timers: RealTime{}, NewID: func() string {
		return fmt.Sprint(prefix, n.Add(1)-1)
	}}
}

// ExtraTool is one entry of the `extraTools` option (§7 "Extra tools"), defaults applied.
type ExtraTool struct {
	// Name is the tool's name as given (the port sanitizes it, SPEC §1).
	Name string
	// Description defaults to "".
	Description string
	// InputSchema defaults to {"type":"object","properties":{}}.
	InputSchema json.RawMessage
	// Source defaults to "native" ("http" for an HTTP tool).
	Source string
	// Behaviour is what the tool does (ToolBody builds it); nil for an HTTP tool.
	Behaviour *Behaviour
	// HTTP is an HTTP tool's declaration; nil for a behaviour tool.
	HTTP *HTTPTool
}

// HTTPTool is the typed view of an HTTP tool's `http` block (§7 "HTTP tools"): the port builds
// the tool with its own httpTool, passing every key.
type HTTPTool struct {
	// Method is always present: the harness writes "GET" where a scenario names none.
	Method string `json:"method"`
	// URL holds `{placeholder}`s filled from the arguments.
	URL string `json:"url"`
	// Headers' values expand `${ENV}`.
	Headers map[string]string `json:"headers"`
	// Query names the arguments sent as query parameters.
	Query []string `json:"query"`
	// Body is `json`, `form` or `raw`; "" when absent (the port's default).
	Body string `json:"body"`
	// Timeout is in ms, 30000 when absent.
	Timeout int64 `json:"timeout"`
	// ResultMode is `text`, `json` or `status+text`; "" when absent (the port's default).
	ResultMode string `json:"resultMode"`
	// Keys lists the block's keys in the order received, so a port can refuse one it lacks.
	Keys []string `json:"-"`
	// Raw is the block as received.
	Raw json.RawMessage `json:"-"`
}

// ParseExtraTool reads one extra tool; a malformed one is a bad_request.
func ParseExtraTool(raw json.RawMessage) (ExtraTool, error) {
	var f struct {
		Name        *string         `json:"name"`
		Description *string         `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Source      *string         `json:"source"`
		Behaviour   json.RawMessage `json:"behaviour"`
		HTTP        json.RawMessage `json:"http"`
	}
	if err := decodeStrict("an extra tool", raw, &f); err != nil {
		return ExtraTool{}, err
	}
	if f.Name == nil {
		return ExtraTool{}, Fail(BadRequest, "an extra tool needs a \"name\"")
	}
	t := ExtraTool{Name: *f.Name, InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), Source: "native"}
	if f.Description != nil {
		t.Description = *f.Description
	}
	if len(f.InputSchema) > 0 && !isNull(f.InputSchema) {
		t.InputSchema = f.InputSchema
	}
	if f.Source != nil {
		t.Source = *f.Source
	}
	hasB, hasH := len(f.Behaviour) > 0 && !isNull(f.Behaviour), len(f.HTTP) > 0 && !isNull(f.HTTP)
	if hasB == hasH {
		return ExtraTool{}, Failf(BadRequest, "extra tool %q needs exactly one of \"behaviour\" and \"http\"", t.Name)
	}
	if hasB {
		b, err := ParseBehaviour("extra tool "+t.Name, f.Behaviour)
		if err != nil {
			return ExtraTool{}, err
		}
		t.Behaviour = &b
		return t, nil
	}
	if f.Source == nil {
		t.Source = "http" // §7: an HTTP tool's source
	}
	h := &HTTPTool{Method: "GET", Timeout: 30000, Raw: f.HTTP}
	if err := json.Unmarshal(f.HTTP, h); err != nil {
		return ExtraTool{}, Failf(BadRequest, "extra tool %q: http: %v", t.Name, err)
	}
	keys, err := ObjectKeys(f.HTTP)
	if err != nil {
		return ExtraTool{}, Failf(BadRequest, "extra tool %q: http: %v", t.Name, err)
	}
	h.Keys = keys
	t.HTTP = h
	return t, nil
}

// ToolCall is one execution of a tool body, as the port hands it over.
type ToolCall struct {
	// Ctx carries the call's cancellation signal; nil is never cancelled.
	Ctx context.Context
	// Args are the arguments as received (key order kept); nil means {}.
	Args json.RawMessage
	// Answer is the context's §10 answer on the retry after waitFor; nil otherwise.
	Answer *RequestAnswer
}

// PendingRequest is a SPEC §10 Request: what a suspending tool puts in `metadata.pending` and
// what `waitFor` receives. Optional keys are omitted when absent.
type PendingRequest struct {
	// ID is fresh and non-empty.
	ID string `json:"id"`
	// Kind is `approval`, `input`, …
	Kind string `json:"kind"`
	// Prompt is what to show.
	Prompt string `json:"prompt"`
	// URL is where to act, nil when not given.
	URL *string `json:"url,omitempty"`
	// Data is the kind-specific payload, nil when not given.
	Data json.RawMessage `json:"data,omitempty"`
	// ExpiresAt is an RFC 3339 deadline, nil when not given.
	ExpiresAt *string `json:"expiresAt,omitempty"`
}

// RequestAnswer is a SPEC §10 Answer: `context.answer` of an `execute`, or what `waitFor` returns.
type RequestAnswer struct {
	// ID echoes the Request's id.
	ID string `json:"id"`
	// OK says whether the Request was satisfied.
	OK bool `json:"ok"`
	// Data is the kind-specific payload, nil when absent.
	Data json.RawMessage `json:"data,omitempty"`
	// Reason says why not, nil when absent.
	Reason *string `json:"reason,omitempty"`
}

// ParseRequestAnswer reads an Answer (an `execute` request's `context.answer`); absent or null
// gives nil.
func ParseRequestAnswer(raw json.RawMessage) (*RequestAnswer, error) {
	if len(raw) == 0 || isNull(raw) {
		return nil, nil
	}
	var a RequestAnswer
	if err := decodeStrict("answer", raw, &a); err != nil {
		return nil, err
	}
	if isNull(a.Data) {
		a.Data = nil
	}
	return &a, nil
}

// ToolResult is a SPEC §1 ToolResult in its wire form (§8): parts and metadata omitted when
// there are none.
type ToolResult struct {
	// Output is the result's text.
	Output string `json:"output"`
	// IsError marks a failed (or suspended) call.
	IsError bool `json:"isError"`
	// Parts are SPEC §1B parts in their wire form.
	Parts []json.RawMessage `json:"parts,omitempty"`
	// Metadata is a JSON object, nil when there is none.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// Pending returns the §10 Request in the result's `metadata.pending`, if any, for a port that
// keeps it as its own type (§7 "A metadata.pending from JSON").
func (r ToolResult) Pending() (*PendingRequest, bool) {
	var m struct {
		Pending json.RawMessage `json:"pending"`
	}
	if len(r.Metadata) == 0 || json.Unmarshal(r.Metadata, &m) != nil || len(m.Pending) == 0 || isNull(m.Pending) {
		return nil, false
	}
	var p PendingRequest
	if json.Unmarshal(m.Pending, &p) != nil {
		return nil, false
	}
	return &p, true
}

// Outcome is what a tool body returns when it does not throw.
type Outcome struct {
	// Output is the result's text.
	Output string
	// IsError is set for a suspension.
	IsError bool
	// Parts are SPEC §1B parts in their wire form, for the port's own part type (`parts`).
	Parts []json.RawMessage
	// Pending is the §10 Request of a suspension; the port puts it in `metadata.pending`.
	Pending *PendingRequest
}

// Result is the outcome as a ToolResult, `metadata.pending` included.
func (o Outcome) Result() ToolResult {
	r := ToolResult{Output: o.Output, IsError: o.IsError, Parts: o.Parts}
	if o.Pending != nil {
		if meta, err := marshal(map[string]any{"pending": o.Pending}); err == nil {
			r.Metadata = meta
		}
	}
	return r
}

// ToolFunc is an extra tool's body: an Outcome, or the error the port's native-tool path turns
// into an isError result (SPEC §6).
type ToolFunc func(call ToolCall) (Outcome, error)

// AwaitCancelDefaultMs bounds `awaitCancel` when it names no `ms`.
const AwaitCancelDefaultMs = 10000

// ToolBody builds the body of a behaviour tool (§7 "Extra tools"). `panic` panics inside the
// body and nothing of the kit's recovers it there: the port's containment is what is checked.
// A behaviour outside the catalogue is unsupported; an HTTP tool has no body (build it from HTTP).
func (in *Interpreter) ToolBody(t ExtraTool) (ToolFunc, error) {
	if t.Behaviour == nil {
		return nil, Failf(BadRequest, "extra tool %q is an HTTP tool: build it from its http block", t.Name)
	}
	b, what := *t.Behaviour, "extra tool "+t.Name
	switch b.Kind {
	case "echo":
		if err := wantTrue(what, b); err != nil {
			return nil, err
		}
		return func(c ToolCall) (Outcome, error) { return textOutcome(compactArgs(c.Args)) }, nil
	case "text", "fail", "panic", "template":
		s, err := str(what, b)
		if err != nil {
			return nil, err
		}
		return map[string]ToolFunc{
			"text":     func(ToolCall) (Outcome, error) { return Outcome{Output: s}, nil },
			"fail":     func(ToolCall) (Outcome, error) { return Outcome{}, errors.New(s) },
			"panic":    func(ToolCall) (Outcome, error) { panic(s) },
			"template": func(c ToolCall) (Outcome, error) { return textOutcome(FillTemplate(s, c.Args)) },
		}[b.Kind], nil
	case "parts":
		var p struct {
			Output *string           `json:"output"`
			Parts  []json.RawMessage `json:"parts"`
		}
		if err := decodeStrict(what+": parts", b.Arg, &p); err != nil {
			return nil, err
		}
		if p.Output == nil || p.Parts == nil {
			return nil, Failf(BadRequest, "%s: parts needs \"output\" and \"parts\"", what)
		}
		return func(ToolCall) (Outcome, error) { return Outcome{Output: *p.Output, Parts: p.Parts}, nil }, nil
	case "awaitCancel":
		var a struct {
			Ms *int64 `json:"ms"`
		}
		if err := decodeStrict(what+": awaitCancel", b.Arg, &a); err != nil {
			return nil, err
		}
		ms := int64(AwaitCancelDefaultMs)
		if a.Ms != nil {
			ms = *a.Ms
		}
		return func(c ToolCall) (Outcome, error) { return in.awaitCancel(t.Name, ms, c), nil }, nil
	case "suspend":
		return in.suspend(what, b)
	}
	return nil, unknownBehaviour(what, b)
}

func textOutcome(s string, err error) (Outcome, error) { return Outcome{Output: s}, err }

// compactArgs is `echo`'s output: the arguments as compact JSON in the order received.
func compactArgs(args json.RawMessage) (string, error) {
	if len(args) == 0 {
		return "{}", nil
	}
	return CompactJSON(args)
}

// awaitCancel waits for the call's cancellation or ms, whichever is first, and records it in
// toolCancels (§5.25).
func (in *Interpreter) awaitCancel(name string, ms int64, c ToolCall) Outcome {
	var done <-chan struct{}
	if c.Ctx != nil {
		done = c.Ctx.Done()
	}
	cancelled := false
	select {
	case <-done:
		cancelled = true
	case <-in.Timers.After(ms):
	}
	in.Records.Add(ToolCancels, struct {
		Name      string `json:"name"`
		Cancelled bool   `json:"cancelled"`
	}{name, cancelled})
	if cancelled {
		return Outcome{Output: "cancelled"}
	}
	return Outcome{Output: "not cancelled"}
}

// FillTemplate is `template`: each `{{name}}` of t becomes the argument `name`, a string as
// itself, another value as its compact JSON, an absent one as nothing.
func FillTemplate(t string, args json.RawMessage) (string, error) {
	var fields map[string]json.RawMessage
	if len(args) > 0 && !isNull(args) {
		_ = json.Unmarshal(args, &fields) // arguments that are not an object fill nothing
	}
	var out strings.Builder
	for {
		start := strings.Index(t, "{{")
		if start < 0 {
			break
		}
		end := strings.Index(t[start+2:], "}}")
		if end < 0 {
			break
		}
		out.WriteString(t[:start])
		if v, ok := fields[strings.TrimSpace(t[start+2:start+2+end])]; ok {
			var s string
			if json.Unmarshal(v, &s) == nil {
				out.WriteString(s)
			} else {
				c, err := CompactJSON(v)
				if err != nil {
					return "", err
				}
				out.WriteString(c)
			}
		}
		t = t[start+2+end+2:]
	}
	out.WriteString(t)
	return out.String(), nil
}

// suspend is SPEC §10's suspending tool: a pending Request without an answer (and always with
// `always`); with one, `answerText` on an ok answer, the arguments with `echoArgs`, else the
// answer's data as compact JSON.
func (in *Interpreter) suspend(what string, b Behaviour) (ToolFunc, error) {
	var s struct {
		Kind       *string         `json:"kind"`
		Prompt     *string         `json:"prompt"`
		URL        *string         `json:"url"`
		Data       json.RawMessage `json:"data"`
		ExpiresAt  *string         `json:"expiresAt"`
		Always     *bool           `json:"always"`
		EchoArgs   *bool           `json:"echoArgs"`
		AnswerText *string         `json:"answerText"`
	}
	if err := decodeStrict(what+": suspend", b.Arg, &s); err != nil {
		return nil, err
	}
	if isNull(s.Data) {
		s.Data = nil
	}
	return func(c ToolCall) (Outcome, error) {
		if c.Answer != nil && (s.Always == nil || !*s.Always) {
			switch {
			case s.AnswerText != nil && c.Answer.OK:
				return Outcome{Output: *s.AnswerText}, nil
			case s.EchoArgs != nil && *s.EchoArgs:
				return textOutcome(compactArgs(c.Args))
			case c.Answer.Data == nil:
				return Outcome{Output: "null"}, nil
			}
			return textOutcome(CompactJSON(c.Answer.Data))
		}
		req := &PendingRequest{ID: in.NewID(), Kind: "approval", URL: s.URL, Data: s.Data, ExpiresAt: s.ExpiresAt}
		if s.Kind != nil {
			req.Kind = *s.Kind
		}
		if s.Prompt != nil {
			req.Prompt = *s.Prompt
		}
		return Outcome{Output: req.Prompt, IsError: true, Pending: req}, nil
	}, nil
}
