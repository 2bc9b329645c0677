package kit

import "toolnexus.dev/conformance/kit/protocol"

// CoreCommands lists, per SPEC section, the commands a driver must register before `hello` may
// list that section. A section missing here is listed whenever it is declared. Other commands a
// section's scenarios send (skills_prompt, content_part, …) are per scenario: an unregistered
// one skips only the scenarios that send it. The table is generated from
// conformance/protocol.schema.json into the protocol package (`schema --kit go`).
var CoreCommands = protocol.CoreCommands
