package kit

// CoreCommands lists, per SPEC section, the commands a driver must register before `hello` may
// list that section (the lead's rule for issue 49). A section missing here is listed whenever it
// is declared. Other commands a section's scenarios send (skills_prompt, content_part, …) are
// per scenario: an unregistered one skips only the scenarios that send it. This table is kept in
// a file of its own because it is to be generated from conformance/protocol.schema.json.
var CoreCommands = map[string][]string{
	"0":  {"build", "tools", "execute"},
	"1":  {"build", "tools", "execute"},
	"2":  {"build", "tools", "execute"},
	"3":  {"build", "tools", "execute"},
	"4":  {"build", "tools", "execute"},
	"4A": {"build", "tools", "execute"},
	"6":  {"build", "tools", "execute"},
	"7":  {"build", "tools", "execute"},
	"7A": {"build", "tools", "execute"},
	"7B": {"serve", "serve_stop", "client"},
	"7C": {"serve", "serve_stop"},
	"7D": {"agent_runtime", "agent_close_runtime"},
	"7E": {"agent_runtime", "agent_close_runtime"},
	"7F": {"compact"},
	"8":  {"client", "run"},
	"8A": {"client", "run"},
	"10": {"client", "run"},
	"8B": {"classifier", "evaluate"},
	"11": {"translate"},
}
