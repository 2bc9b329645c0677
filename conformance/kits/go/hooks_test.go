package kit

import (
	"encoding/json"
	"testing"
)

func hooks(t *testing.T, in *Interpreter, raw string) Hooks {
	t.Helper()
	h, err := in.Hooks(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("Hooks(%s): %v", raw, err)
	}
	return h
}

func TestBeforeToolObserveFollowsProtocolExample(t *testing.T) {
	rec := NewRecords()
	h := hooks(t, NewInterpreter(rec), `{"beforeTool":{"observe":true}}`)
	if h.BeforeLLM != nil || h.AfterLLM != nil || h.AfterTool != nil {
		t.Fatal("a hook not given was installed")
	}
	if over := h.BeforeTool(ToolHookCall{Name: "get_weather", Args: json.RawMessage(`{"city":"Paris"}`), ID: "call_w1", Turn: 1}); over != nil {
		t.Fatalf("observe returned %+v", over)
	}
	// §5.15's example entry, byte for byte.
	if a := answered(t, rec); a != `{"hookCalls":[{"hook":"beforeTool","name":"get_weather","args":{"city":"Paris"},"id":"call_w1","turn":1}]}` {
		t.Fatalf("records %s", a)
	}
}

func TestReplaceMessagesActsOncePerRun(t *testing.T) {
	rec := NewRecords()
	h := hooks(t, NewInterpreter(rec), `{"beforeLLM":{"replaceMessages":[{"role":"user","content":"replaced"}]}}`)
	call := LLMCall{Turn: 1, Model: "m", Messages: []map[string]string{{"role": "user", "content": "q"}}, Tools: []any{}}
	first, err := h.BeforeLLM(call)
	if err != nil || first == nil || string(first.Messages) != `[{"role":"user","content":"replaced"}]` {
		t.Fatalf("first call: %+v, %v", first, err)
	}
	if second, _ := h.BeforeLLM(call); second != nil {
		t.Fatalf("second call replaced again: %s", second.Messages)
	}
	if n := len(rec.List(HookCalls)); n != 2 {
		t.Fatalf("recorded %d calls, want 2", n)
	}
	want := `{"hook":"beforeLLM","turn":1,"model":"m","messages":[{"content":"q","role":"user"}],"tools":[]}`
	if got := string(rec.List(HookCalls)[0]); got != want {
		t.Fatalf("entry %s", got)
	}
	rec.Begin() // the next run
	if again, _ := h.BeforeLLM(call); again == nil {
		t.Fatal("a new run did not replace")
	}
}

func TestKeepToolsAppendAbortAndCompactor(t *testing.T) {
	rec := NewRecords()
	in := NewInterpreter(rec)
	tools := json.RawMessage(`[{"type":"function","function":{"name":"a"}},{"name":"b","input_schema":{}},{"type":"function","function":{"name":"c"}}]`)
	keep := hooks(t, in, `{"beforeLLM":{"keepTools":["c","b"]}}`)
	over, err := keep.BeforeLLM(LLMCall{Tools: tools})
	if err != nil || string(over.Tools) != `[{"name":"b","input_schema":{}},{"type":"function","function":{"name":"c"}}]` {
		t.Fatalf("keepTools: %s, %v", over.Tools, err)
	}
	none := hooks(t, in, `{"beforeLLM":{"keepTools":[]}}`)
	if over, _ := none.BeforeLLM(LLMCall{Tools: tools}); string(over.Tools) != `[]` {
		t.Fatalf("keepTools []: %s", over.Tools) // §7: [] ⇒ an empty tool list
	}
	appendH := hooks(t, in, `{"beforeLLM":{"appendMessage":{"role":"user","content":"more"}}}`)
	for i := 0; i < 2; i++ { // on every call
		over, err := appendH.BeforeLLM(LLMCall{Messages: json.RawMessage(`[{"role":"user","content":"q"}]`)})
		if err != nil || string(over.Messages) != `[{"role":"user","content":"q"},{"role":"user","content":"more"}]` {
			t.Fatalf("appendMessage: %s, %v", over.Messages, err)
		}
	}
	abort := hooks(t, in, `{"beforeLLM":{"abort":"route closed"}}`)
	before := len(rec.List(HookCalls))
	if _, err := abort.BeforeLLM(LLMCall{}); err == nil || err.Error() != "route closed" {
		t.Fatalf("abort: %v", err)
	}
	if len(rec.List(HookCalls)) != before+1 {
		t.Fatal("the aborting call was not recorded before it acted")
	}
	compactor := hooks(t, in, `{"beforeLLM":{"compactor":{"maxTokens":3,"summarize":{"text":"S"}}}}`)
	if over, _ := compactor.BeforeLLM(LLMCall{}); over == nil || over.Compactor == nil || over.Compactor.MaxTokens != 3 {
		t.Fatalf("compactor: %+v", over)
	}
}

func TestToolHooksResultArgsPrefix(t *testing.T) {
	rec := NewRecords()
	in := NewInterpreter(rec)
	h := hooks(t, in, `{"beforeTool":{"result":{"output":"short-circuit","isError":false}},"afterTool":{"prefix":"P: "},"afterLLM":{"observe":true}}`)
	over := h.BeforeTool(ToolHookCall{Name: "t", Args: map[string]int{"x": 1}, ID: "c1", Turn: 2})
	if over == nil || over.Result == nil || js(t, over.Result) != `{"output":"short-circuit","isError":false}` {
		t.Fatalf("beforeTool result: %+v", over)
	}
	res := ToolResult{Output: "out", IsError: true, Metadata: json.RawMessage(`{"k":1}`)}
	got := h.AfterTool(ToolHookCall{Name: "t", Args: map[string]int{"x": 1}, ID: "c1", Turn: 2, Result: res})
	if js(t, got) != `{"output":"P: out","isError":true,"metadata":{"k":1}}` { // isError and metadata kept
		t.Fatalf("prefix: %s", js(t, got))
	}
	h.AfterLLM(LLMResponse{Turn: 2, Model: "m", Response: json.RawMessage(`{"choices":[]}`)})
	want := `{"hookCalls":[{"hook":"beforeTool","name":"t","args":{"x":1},"id":"c1","turn":2},` +
		`{"hook":"afterTool","name":"t","args":{"x":1},"result":{"output":"out","isError":true,"metadata":{"k":1}},"id":"c1","turn":2},` +
		`{"hook":"afterLLM","turn":2,"model":"m","response":{"choices":[]}}]}`
	if a := answered(t, rec); a != want {
		t.Fatalf("records %s", a)
	}
	args := hooks(t, in, `{"beforeTool":{"args":{"b":2,"a":1}},"afterTool":{"result":{"output":"r","isError":false}}}`)
	if over := args.BeforeTool(ToolHookCall{}); string(over.Args) != `{"b":2,"a":1}` || over.Result != nil {
		t.Fatalf("args: %+v", over)
	}
	if r := args.AfterTool(ToolHookCall{Result: res}); r.Output != "r" || r.IsError {
		t.Fatalf("afterTool result: %+v", r)
	}
}

func TestHookRefusals(t *testing.T) {
	in := NewInterpreter(NewRecords())
	_, err := in.Hooks(json.RawMessage(`{"afterLLM":{"prefix":"x"}}`))
	wantKind(t, err, BadRequest, "not for this hook")
	_, err = in.Hooks(json.RawMessage(`{"beforeLLM":{"explode":true}}`))
	wantKind(t, err, Unsupported, `"explode"`)
	_, err = in.Hooks(json.RawMessage(`{"beforeLMM":{"observe":true}}`))
	wantKind(t, err, BadRequest, "beforeLMM")
	_, err = in.Hooks(json.RawMessage(`{"beforeTool":{"result":{"output":"x","isError":false,"extra":1}}}`))
	wantKind(t, err, BadRequest, "extra")
}
