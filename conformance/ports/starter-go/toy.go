package main

// The toy toolkit: it stands in for your port (SPEC §4 with extra tools only), as the Python
// starter's ToyToolkit does. Replace it with calls into your port.

import (
	"encoding/json"
	"strings"
)

// sanitize is SPEC §0.2: every character outside [a-zA-Z0-9_-] becomes "_".
func sanitize(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// toolDesc is a SPEC §1 tool description.
type toolDesc struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Source      string          `json:"source"`
}

// toolResult is a SPEC §1 ToolResult a tool returns itself (a suspension's).
type toolResult struct {
	Output   string         `json:"output"`
	IsError  bool           `json:"isError"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// toolFunc is a native tool's body: its output (a string, or a whole toolResult), or an error
// the toolkit makes an isError result.
type toolFunc func(args json.RawMessage, ctx map[string]json.RawMessage) (any, error)

// toyTool pairs a description with its body.
type toyTool struct {
	desc toolDesc
	fn   toolFunc
}

// toyToolkit is createToolkit({extraTools, disableTools, builtins: false}): no MCP, skills or builtins.
type toyToolkit struct {
	tools []toolDesc
	fns   map[string]toolFunc
}

func newToyToolkit(tools []toyTool, disable []string) *toyToolkit {
	tk := &toyToolkit{tools: []toolDesc{}, fns: map[string]toolFunc{}}
	for _, t := range tools {
		t.desc.Name = sanitize(t.desc.Name) // SPEC §1: a tool's name is sanitized
		_, dup := tk.fns[t.desc.Name]
		if !contains(disable, t.desc.Name) && !dup { // SPEC §4: first wins
			tk.tools = append(tk.tools, t.desc)
			tk.fns[t.desc.Name] = t.fn
		}
	}
	return tk
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// execute is SPEC §1/§4 execute: an unknown name or a failing tool is an isError result.
func (tk *toyToolkit) execute(name string, args json.RawMessage, ctx map[string]json.RawMessage) any {
	fn, ok := tk.fns[name]
	if !ok {
		return map[string]any{"output": "Unknown tool: " + name, "isError": true}
	}
	out, err := fn(args, ctx)
	if err != nil { // SPEC §6: a tool that fails is an isError result with its message
		return map[string]any{"output": err.Error(), "isError": true}
	}
	if res, isResult := out.(toolResult); isResult {
		return res
	}
	return map[string]any{"output": out, "isError": false}
}

// adapter is SPEC §4 "Adapter mapping": schema only, in tools() order.
func (tk *toyToolkit) adapter(format string) []any {
	out := []any{}
	decls := []any{}
	for _, t := range tk.tools {
		switch format {
		case "anthropic":
			out = append(out, map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.InputSchema})
		case "gemini":
			decls = append(decls, map[string]any{"name": t.Name, "description": t.Description, "parameters": t.InputSchema})
		default:
			out = append(out, map[string]any{"type": "function", "function": map[string]any{
				"name": t.Name, "description": t.Description, "parameters": t.InputSchema}})
		}
	}
	if format == "gemini" {
		return []any{map[string]any{"functionDeclarations": decls}} // one element wrapping every tool
	}
	return out
}
