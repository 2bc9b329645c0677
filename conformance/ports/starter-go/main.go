// The Go starter driver: conformance/PROTOCOL.md on the Go kit against the toy toolkit in
// toy.go. It serves SPEC §0, §1 and §4 as far as a toolkit of extra tools goes, as the Python
// starter (conformance/ports/starter/driver.py) does, and the kit answers `unsupported` to the
// rest, so those scenarios are skipped, never failed. For your port, replace the toy.
package main

import (
	"encoding/json"
	"sort"
	"strings"

	"toolnexus.dev/conformance/kit"
	"toolnexus.dev/conformance/kit/protocol"
)

// repr quotes as Python's repr does for a string, so the messages match the Python starter's.
func repr(s string) string {
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
}

// toyBehaviours are the §7 extra-tool behaviours the toy serves, as the Python starter does: not
// panic (the toy has no containment for it), awaitCancel (no cancellation signal), parts,
// template or HTTP tools.
var toyBehaviours = map[string]bool{"text": true, "echo": true, "fail": true, "suspend": true}

// extraTool is PROTOCOL.md §7 "Extra tools": the kit reads the declaration and builds the body;
// this glue hands both to the toy in its own types.
func extraTool(raw json.RawMessage, in *kit.Interpreter) (toyTool, error) {
	spec, err := kit.ParseExtraTool(raw)
	if err != nil {
		return toyTool{}, err
	}
	kind := "http"
	if spec.Behaviour != nil {
		kind = spec.Behaviour.Kind
	}
	if !toyBehaviours[kind] {
		return toyTool{}, kit.Fail(kit.Unsupported, "the extra tool behaviour "+repr(kind))
	}
	body, err := in.ToolBody(spec)
	if err != nil {
		return toyTool{}, err
	}
	fn := func(args json.RawMessage, ctx map[string]json.RawMessage) (any, error) {
		answer, err := kit.ParseRequestAnswer(ctx["answer"])
		if err != nil {
			return nil, err
		}
		out, err := body(kit.ToolCall{Args: args, Answer: answer})
		if err != nil || out.Pending == nil {
			return out.Output, err
		}
		return toolResult{Output: out.Output, IsError: true, Metadata: map[string]any{"pending": out.Pending}}, nil
	}
	desc := toolDesc{Name: spec.Name, Description: spec.Description, InputSchema: spec.InputSchema, Source: spec.Source}
	return toyTool{desc: desc, fn: fn}, nil
}

var knownOptions = map[string]bool{"mcpConfig": true, "skillsDir": true, "skills": true, "skillProvider": true,
	"skillsFilter": true, "skillSampleLimit": true, "extraTools": true, "builtins": true, "agents": true,
	"waitFor": true, "disableTools": true, "disableSkills": true, "relayTools": true}

// build is PROTOCOL.md §5.2.
func build(req *kit.Request, kits *kit.Table[*toyToolkit], in *kit.Interpreter) (kit.Answer, error) {
	id, err := req.String("id")
	if err != nil {
		return nil, err
	}
	raw, ok := req.Raw("options")
	if !ok {
		return nil, kit.Fail(kit.BadRequest, "missing field \"options\"")
	}
	keys, err := kit.ObjectKeys(raw)
	if err != nil {
		return nil, kit.Failf(kit.BadRequest, "options: %v", err)
	}
	var opts map[string]json.RawMessage
	if err := json.Unmarshal(raw, &opts); err != nil {
		return nil, kit.Failf(kit.BadRequest, "options: %v", err)
	}
	for _, key := range keys { // §6: an unknown key is a typo; a known one the port lacks is unsupported
		if string(opts[key]) == "null" { // §6: null means absent
			delete(opts, key)
			continue
		}
		if !knownOptions[key] {
			return nil, kit.Fail(kit.BadRequest, "unknown option "+repr(key))
		}
		if key != "extraTools" && key != "disableTools" && key != "builtins" {
			return nil, kit.Fail(kit.Unsupported, "the option "+repr(key))
		}
	}
	if string(opts["builtins"]) != "false" { // absent means on (SPEC §4A), and the toy has none
		return nil, kit.Fail(kit.Unsupported, "builtin tools (SPEC §4A); only builtins: false")
	}
	var specs []json.RawMessage
	var disable []string
	if err := unmarshalOpt(opts["extraTools"], &specs); err != nil {
		return nil, err
	}
	if err := unmarshalOpt(opts["disableTools"], &disable); err != nil {
		return nil, err
	}
	tools := []toyTool{}
	for _, s := range specs {
		t, err := extraTool(s, in)
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	tk := newToyToolkit(tools, disable)
	kits.Put(id, tk) // replaces an earlier one
	names := []string{}
	for _, t := range tk.tools {
		names = append(names, t.Name)
	}
	sort.Strings(names) // byte order of UTF-8 is code point order
	return kit.Answer{"toolkit": id, "tools": tk.tools, "names": names,
		"statuses": map[string]string{"builtin": "disabled"}, "errors": map[string]string{}, "skills": []any{}}, nil
}

func unmarshalOpt(raw json.RawMessage, v any) error {
	if raw == nil {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return kit.Failf(kit.BadRequest, "options: %v", err)
	}
	return nil
}

func main() {
	d := kit.New(kit.Port{Name: "starter-go", Language: "go", Version: "0.1.0"}, "0.16.0")
	d.Implements("0", "1", "4") // §5.1: scenarios of sections not listed are skipped
	kits := kit.NewTable[*toyToolkit]("toolkit", kit.UnknownToolkit)
	in := kit.NewInterpreter(kit.NewRecords())
	d.OnShutdown(func() { kits.Clear(nil) })
	d.Handle("build", func(req *kit.Request) (kit.Answer, error) { return build(req, kits, in) })
	// The handlers decode their requests into the generated protocol types (a required key
	// that is absent is a bad_request, as the kit's Decode checks).
	d.Handle("sanitize", func(req *kit.Request) (kit.Answer, error) {
		var r protocol.SanitizeRequest
		err := req.Decode(&r)
		return kit.Answer{"value": sanitize(r.Value)}, err
	})
	d.Handle("close", func(req *kit.Request) (kit.Answer, error) { // §5.10: idempotent; a closed id is forgotten
		var r protocol.CloseRequest
		err := req.Decode(&r)
		kits.Delete(r.Toolkit)
		return kit.Answer{}, err
	})
	d.Handle("tools", func(req *kit.Request) (kit.Answer, error) {
		var r protocol.ToolsRequest
		if err := req.Decode(&r); err != nil {
			return nil, err
		}
		tk, err := kits.Get(r.Toolkit)
		if err != nil {
			return nil, err
		}
		return kit.Answer{"tools": tk.tools}, nil
	})
	d.Handle("execute", func(req *kit.Request) (kit.Answer, error) {
		var r protocol.ExecuteRequest
		if err := req.Decode(&r); err != nil {
			return nil, err
		}
		tk, err := kits.Get(r.Toolkit)
		if err != nil {
			return nil, err
		}
		args := r.Args // absent means {}; an explicit null stays null, as in the Python starter
		if args == nil {
			args = json.RawMessage("{}")
		}
		var ctx map[string]json.RawMessage // raw, so an answer's data keeps its key order
		if _, err := req.Opt("context", &ctx); err != nil {
			return nil, err
		}
		return kit.Answer{"result": tk.execute(r.Name, args, ctx)}, nil
	})
	d.Handle("adapter", func(req *kit.Request) (kit.Answer, error) {
		var r protocol.AdapterRequest
		if err := req.Decode(&r); err != nil {
			return nil, err
		}
		tk, err := kits.Get(r.Toolkit)
		if err != nil {
			return nil, err
		}
		if r.Format != "openai" && r.Format != "anthropic" && r.Format != "gemini" {
			return nil, kit.Fail(kit.BadRequest, "unknown adapter format "+repr(r.Format))
		}
		return kit.Answer{"output": tk.adapter(r.Format)}, nil
	})
	d.Main()
}
