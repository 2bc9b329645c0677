@pin-0.17.0
Feature: Content parts on the §8 client's wire — the prompt, §8A emission, relocation, §11 arrays
  SPEC §8 lets `prompt` be a list of §1B ContentParts (PROTOCOL.md §5.15: `prompt` is a string or
  that list); §8A gives each part's block per style, refuses two, handles an unsupported or
  oversized part by provenance (`onUnsupportedPart`, `maxPartBytes`, PROTOCOL.md §6A), and moves
  the openai style's tool-result media into one synthetic `user` message that never enters the
  transcript; §11 translates an array `content`'s non-text parts. What the client sent is read
  from the mock LLM's recording (mock-servers/scenarios/llm/parts.json). The toolkit's tools
  answer parts through the `parts` behaviour (PROTOCOL.md §7): `snap` an 8-byte PNG, `clip` a
  12-byte WAV, `doclink` a PDF by https URL, `note` a text part. Every scenario tags clauses of
  SPEC 0.17.0, so it holds for ports declaring 0.17.0 or later.

  Background:
    Given a mock LLM runs "parts.json"
    And a toolkit built with:
      """
      {"builtins": false, "disableTools": ["skill"], "extraTools": [
        {"name": "snap", "description": "A screenshot.", "behaviour": {"parts": {"output": "snapped",
          "parts": [{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}]}}},
        {"name": "clip", "description": "A sound.", "behaviour": {"parts": {"output": "clipped",
          "parts": [{"type": "audio", "mimeType": "audio/wav", "data": "UklGRiQAAABXQVZF"}]}}},
        {"name": "doclink", "description": "A document link.", "behaviour": {"parts": {"output": "linked",
          "parts": [{"type": "file", "mimeType": "application/pdf", "url": "https://example.com/a.pdf"}]}}},
        {"name": "note", "description": "A note.", "behaviour": {"parts": {"output": "noted",
          "parts": [{"type": "text", "text": "extra note"}]}}}]}
      """

  # ---------------------------------------------------------------- §8 the prompt

  @spec-8 @clause-8.prompt.string-byte-identical
  Scenario Outline: a string prompt is the <style> user message of a pre-0.17 client, a string content
    Byte-identical to the 0.16.0 suite's expectation (client_wire: the user turn is
    `{"role": "user", "content": "hi"}`): a string stays a string, never one text part (NOTES #385).
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m", "apiKey": "test-key"}
      """
    When the client runs "hi"
    Then the run text is "seen: hi"
    And LLM request 1 body at "messages[-1]" is {"role": "user", "content": "hi"}

    Examples:
      | style     |
      | openai    |
      | anthropic |

  @spec-8 @clause-8.prompt.string-or-parts @clause-8A.emit.text @clause-8A.emit.openai-image-data
  Scenario: openai: a prompt of parts is one user message whose blocks keep the caller's order
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m", "apiKey": "test-key"}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "text", "text": "Look at "}, {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
       {"type": "text", "text": "and say what it is."}]
      """
    Then the run text is "seen: Look at and say what it is."
    And LLM request 1 body at "messages[-1]" is:
      """
      {"role": "user", "content": [
        {"type": "text", "text": "Look at "},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "text", "text": "and say what it is."}]}
      """

  @spec-8 @clause-8.prompt.string-or-parts @clause-8A.emit.text @clause-8A.emit.anthropic-image-data
  Scenario: anthropic: a prompt of parts is one user message whose blocks keep the caller's order
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m", "apiKey": "test-key"}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}, {"type": "text", "text": "What is it?"}]
      """
    Then the run text is "seen: What is it?"
    And LLM request 1 body at "messages[-1]" is:
      """
      {"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
        {"type": "text", "text": "What is it?"}]}
      """

  @spec-8 @partial-clause-8.prompt.string-or-parts
  Scenario Outline: <verb> takes a prompt of parts in the same position as run (<style>)
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m", "apiKey": "test-key"}
      """
    When the client <verb> with the prompt parts:
      """
      [{"type": "text", "text": "first"}, {"type": "image", "mimeType": "image/png", "url": "https://example.com/x.png"}]
      """
    Then the run did not raise
    And LLM request 1 body at "messages[-1].content[0]" is {"type": "text", "text": "first"}
    And LLM request 1 body at "messages[-1].content[1]" contains "https://example.com/x.png"

    Examples:
      | verb    | style     |
      | streams | openai    |
      | asks    | openai    |
      | streams | anthropic |
      | asks    | anthropic |

  @spec-8 @clause-8.metrics.parts-never-data @partial-clause-1.part-render.descriptor-never-data
  Scenario: a part's data reaches the LLM request body and nothing the run reports
    The base64 `Q0FOQVJZLXBheWxvYWQ=` is a canary: it is in the request the client sent, and in the
    transcript (`messages`, which holds the user turn as sent), and in no event, hook record,
    metric record or result field besides.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m", "apiKey": "test-key", "onMetric": {"collect": true},
       "hooks": {"afterLLM": {"observe": true}}}
      """
    When the client streams with the prompt parts:
      """
      [{"type": "text", "text": "see"}, {"type": "image", "mimeType": "image/png", "data": "Q0FOQVJZLXBheWxvYWQ="}]
      """
    Then the run did not raise
    And LLM request 1 body at "messages[-1].content[1]" contains "Q0FOQVJZLXBheWxvYWQ="
    And the loop answer mentions "Q0FOQVJZLXBheWxvYWQ=" only in its transcript

  @spec-8 @clause-8.metrics.parts-never-data @clause-8A.unsupported.attached-error
  Scenario: the error refusing an attached part names it without its data
    Negative control of the canary: the raise is the port's outcome here, so its message is
    rendered; it must not carry the part's base64.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m", "apiKey": "test-key"}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "audio", "mimeType": "audio/wav", "data": "Q0FOQVJZLXBheWxvYWQ="}]
      """
    Then the run raised an error mentioning ""
    And the loop answer mentions "Q0FOQVJZLXBheWxvYWQ=" only in its transcript

  @spec-8 @clause-8.metrics.parts-descriptor
  Scenario Outline: an llm event that describes its request's parts gives each as type, mime type and bytes
    Holds from SPEC 0.17.0 (§8: a port MAY add `parts` to the `llm` event; if it does, each
    entry is `{type, mimeType, bytes}`). A port that adds none passes (the step checks every
    `llm` event that has one, compared whole, so the `data` or any other key fails it). The
    canary image is 14 decoded bytes. The positive control: the run reached the model.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m", "apiKey": "test-key", "onMetric": {"collect": true}}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "image", "mimeType": "image/png", "data": "Q0FOQVJZLXBheWxvYWQ="}]
      """
    Then the run did not raise
    And the LLM received 1 request
    And every llm event of metricEvents that has parts describes them as:
      """
      [{"type": "image", "mimeType": "image/png", "bytes": 14}]
      """

    Examples:
      | style     |
      | openai    |
      | anthropic |

  @spec-8 @clause-8.metrics.base64-never-logged @partial-clause-1.part-render.descriptor-never-data
  Scenario Outline: a tool's part is used on the wire and never logged
    Holds from SPEC 0.17.0 (§8: base64 payloads are use-only and never logged, like header
    values). The driver's stderr is searched as it is written: on anthropic the tool's audio
    has no block, so it degrades to the placeholder with a warning (the log is where a warning
    most likely goes); on openai the image moves to the synthetic user message. The positive
    control: the model got the part (its data, or its placeholder).
    Given the port's log is watched for "<data>"
    And a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "<style>", "model": "m", "apiKey": "test-key"}
      """
    When the client runs "call <tool>"
    Then the run result at "text" contains "done: "
    And LLM request 2 body at "" contains "<sent>"
    And the port's log never mentioned "<data>"

    Examples:
      | style     | tool | data             | sent                                           |
      | anthropic | clip | UklGRiQAAABXQVZF | [unsupported audio part (audio/wav, 12 bytes)] |
      | openai    | snap | iVBORw0KGgo=     | iVBORw0KGgo=                                   |

  # ---------------------------------------------------------------- §8A the emission table

  @spec-8A @clause-8A.emit.openai-image-url
  Scenario: openai: an image by url is an image_url block with that url
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m", "apiKey": "test-key"}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "image", "mimeType": "image/png", "url": "https://example.com/x.png"}]
      """
    Then LLM request 1 body at "messages[-1].content" is [{"type": "image_url", "image_url": {"url": "https://example.com/x.png"}}]

  @spec-8A @clause-8A.emit.openai-file-data @clause-8A.emit.file-data-prefix
  Scenario: openai: a file with data is a file block whose file_data is a data URL, with its filename
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m", "apiKey": "test-key"}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "file", "mimeType": "application/pdf", "data": "JVBERi0xLjQK", "name": "report.pdf"}]
      """
    Then LLM request 1 body at "messages[-1].content" is:
      """
      [{"type": "file", "file": {"filename": "report.pdf", "file_data": "data:application/pdf;base64,JVBERi0xLjQK"}}]
      """

  @spec-8A @partial-clause-8A.emit.openai-file-data
  Scenario: openai: a file without a name still sends a filename
    The SPEC's block has `filename` but gives none for a part without `name` (NOTES #381): any
    non-empty string.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m", "apiKey": "test-key"}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "file", "mimeType": "application/pdf", "data": "JVBERi0xLjQK"}]
      """
    Then LLM request 1 body at "messages[-1].content[0].file" is:
      """
      {"filename": {"$regex": "."}, "file_data": "data:application/pdf;base64,JVBERi0xLjQK"}
      """

  @spec-8A @clause-8A.emit.openai-audio
  Scenario: openai: audio is an input_audio block with the part's data and a format
    The format's value is open (NOTES #380): a non-empty string naming the audio, e.g. `wav`.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m", "apiKey": "test-key"}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "audio", "mimeType": "audio/wav", "data": "UklGRiQAAABXQVZF"}]
      """
    Then LLM request 1 body at "messages[-1].content" is:
      """
      [{"type": "input_audio", "input_audio": {"data": "UklGRiQAAABXQVZF", "format": {"$regex": "(?i)wav"}}}]
      """

  @spec-8A @beyond-spec
  Scenario: Beyond the SPEC: openai input_audio.format is the mime subtype, audio/mpeg is mp3
    Beyond the SPEC: the format's values are not given (NOTES #380); the reference's reading is
    the one OpenAI documents (`wav`, `mp3`).
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m", "apiKey": "test-key"}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "audio", "mimeType": "audio/wav", "data": "UklGRiQAAABXQVZF"}, {"type": "audio", "mimeType": "audio/mpeg", "data": "SUQz"}]
      """
    Then LLM request 1 body at "messages[-1].content[0].input_audio.format" is "wav"
    And LLM request 1 body at "messages[-1].content[1].input_audio.format" is "mp3"

  @spec-8A @clause-8A.emit.anthropic-image-url
  Scenario: anthropic: an image by url is an image block with a url source
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m", "apiKey": "test-key"}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "image", "mimeType": "image/png", "url": "https://example.com/x.png"}]
      """
    Then LLM request 1 body at "messages[-1].content" is [{"type": "image", "source": {"type": "url", "url": "https://example.com/x.png"}}]

  @spec-8A @clause-8A.emit.anthropic-file-data
  Scenario: anthropic: a file with data is a document block with a base64 source
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m", "apiKey": "test-key"}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "file", "mimeType": "application/pdf", "data": "JVBERi0xLjQK"}]
      """
    Then LLM request 1 body at "messages[-1].content" is:
      """
      [{"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQK"}}]
      """

  @spec-8A @clause-8A.emit.anthropic-file-url
  Scenario: anthropic: a file by url is a document block with a url source
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m", "apiKey": "test-key"}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "file", "mimeType": "application/pdf", "url": "https://example.com/a.pdf"}]
      """
    Then LLM request 1 body at "messages[-1].content" is [{"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}}]

  # ---------------------------------------------------------------- §8A refusals by provenance

  @spec-8A @clause-8A.emit.openai-file-url-refused @clause-8A.allowlist.asserted-before-send @clause-8A.allowlist.never-reaches-wire
  Scenario: openai: an attached file by url is a typed error before any HTTP call
    The SPEC names the error's kind, not its words (NOTES #320): the cause is checked by the mock
    LLM having recorded no request at all.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m", "apiKey": "test-key"}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "text", "text": "read this"}, {"type": "file", "mimeType": "application/pdf", "url": "https://example.com/a.pdf"}]
      """
    Then the run raised an error mentioning ""
    And the LLM received 0 requests

  @spec-8A @clause-8A.emit.anthropic-audio-refused @clause-8A.unsupported.attached-error
  Scenario: anthropic: attached audio is a typed error before any HTTP call
    The cause is the refusal: the mock LLM recorded no request (the run raised before sending).
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m", "apiKey": "test-key"}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "text", "text": "listen"}, {"type": "audio", "mimeType": "audio/wav", "data": "UklGRiQAAABXQVZF"}]
      """
    Then the run raised an error mentioning ""
    And the LLM received 0 requests

  @spec-8A @clause-8A.unsupported.tool-derived-placeholder @clause-1.part-strings.unsupported-placeholder
  Scenario: anthropic: a tool's audio becomes the placeholder text and the run continues
    Where the warning goes is open (NOTES #382); it is not read here.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m", "apiKey": "test-key"}
      """
    When the client runs "call clip"
    Then the run result at "text" contains "done: clipped"
    And the LLM received 2 requests
    And LLM request 2 body at "messages[-1].content[0].content" contains "[unsupported audio part (audio/wav, 12 bytes)]"
    And LLM request 2 body at "messages[-1].content[0].content" does not contain "UklGRiQAAABXQVZF"

  @spec-8A @clause-8A.unsupported.tool-derived-placeholder @clause-1.part-strings.url-zero-bytes
  Scenario: openai: a tool's file by url becomes the placeholder text and the run continues
    Where in the request the placeholder stands is open (the tool message or the relocated user
    message): it is looked for in the whole transcript sent.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m", "apiKey": "test-key"}
      """
    When the client runs "call doclink"
    Then the run text is "done: linked"
    And LLM request 2 body at "messages" contains "[unsupported file part (application/pdf, 0 bytes)]"
    And LLM request 2 body at "messages" does not contain "https://example.com/a.pdf"

  @spec-8A @clause-8A.unsupported.on-unsupported-part
  Scenario: onUnsupportedPart "error" fails the run on a tool's unsupported part
    The one request is the first turn; the refusal stops the run before the second (its cause:
    the tool's audio on the anthropic style).
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m", "apiKey": "test-key", "onUnsupportedPart": "error"}
      """
    When the client runs "call clip"
    Then the run raised an error mentioning ""
    And the LLM received 1 request

  @spec-8A @clause-8A.unsupported.on-unsupported-part
  Scenario: onUnsupportedPart "text" sends an attached unsupported part as its placeholder
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m", "apiKey": "test-key", "onUnsupportedPart": "text"}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "text", "text": "read this"}, {"type": "file", "mimeType": "application/pdf", "url": "https://example.com/a.pdf"}]
      """
    Then the run did not raise
    And LLM request 1 body at "messages[-1].content" contains "[unsupported file part (application/pdf, 0 bytes)]"
    And LLM request 1 body at "messages[-1].content" does not contain "https://example.com/a.pdf"

  # ---------------------------------------------------------------- §1B maxPartBytes at assembly

  @spec-1 @clause-1.max-part-bytes.decoded-at-assembly @clause-1.max-part-bytes.over-attached-errors @partial-clause-1.max-part-bytes.may-check-at-construction
  Scenario: an attached part over maxPartBytes (decoded bytes) is an error before any HTTP call
    The image is 8 decoded bytes (12 base64 characters): a limit of 7 refuses it; the cause is
    checked by the mock LLM having no request.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m", "apiKey": "test-key", "maxPartBytes": 7}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}]
      """
    Then the run raised an error mentioning ""
    And the LLM received 0 requests

  @spec-1 @clause-1.max-part-bytes.decoded-at-assembly
  Scenario: a part of exactly maxPartBytes decoded bytes is sent (12 base64 characters, limit 8)
    Positive control of the one above: the limit counts decoded bytes, not base64 characters.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m", "apiKey": "test-key", "maxPartBytes": 8}
      """
    When the client runs with the prompt parts:
      """
      [{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}]
      """
    Then the run did not raise
    And LLM request 1 body at "messages[-1].content[0].image_url.url" is "data:image/png;base64,iVBORw0KGgo="

  @spec-1 @clause-1.max-part-bytes.over-tool-derived-placeholder @partial-clause-1.max-part-bytes.may-check-at-construction
  Scenario: a tool's part over maxPartBytes degrades to the placeholder and the run continues
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m", "apiKey": "test-key", "maxPartBytes": 4}
      """
    When the client runs "call snap"
    Then the run result at "text" contains "done: snapped"
    And LLM request 2 body at "messages[-1].content[0].content" contains "[unsupported image part (image/png, 8 bytes)]"
    And LLM request 2 body at "messages[-1].content[0].content" does not contain "iVBORw0KGgo="

  # ---------------------------------------------------------------- §8A the relocation rule

  @spec-8A @clause-8A.relocation.openai-tool-message-text-only @clause-8A.relocation.openai-single-user-message @clause-8A.relocation.openai-preceding-text
  Scenario: openai: a turn's tool media moves, in call order, into one user message after the last tool message
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m", "apiKey": "test-key"}
      """
    When the client runs "call snap and clip"
    Then the run text is "done: snapped | clipped"
    And LLM request 2 body at "messages[-3]" is {"role": "tool", "tool_call_id": "call_s1", "content": "snapped"}
    And LLM request 2 body at "messages[-2]" is {"role": "tool", "tool_call_id": "call_c1", "content": "clipped"}
    And LLM request 2 body at "messages[-1]" is:
      """
      {"role": "user", "content": [
        {"type": "text", "text": "Output of tool snap (call_s1):"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "text", "text": "Output of tool clip (call_c1):"},
        {"type": "input_audio", "input_audio": {"data": "UklGRiQAAABXQVZF", "format": {"$match": "string"}}}]}
      """

  @spec-8A @clause-8A.relocation.adapter-artifact-only
  Scenario: openai: the synthetic user message is in no transcript: not the RunResult's, not the store's
    The run's transcript ends assistant (tool_calls), tool, tool, assistant: no user message
    between the tool results and the answer; the thread the store saved is that same transcript.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m", "apiKey": "test-key"}
      """
    When the client asks "call snap and clip" in thread "t-parts"
    Then the run text is "done: snapped | clipped"
    And LLM request 2 body at "messages[-1].content[0].text" is "Output of tool snap (call_s1):"
    And the run result at "messages[-2].role" is "tool"
    And the run result at "messages[-1].role" is "assistant"
    And the run result at "messages" does not contain "Output of tool"
    When the client's store is read at "t-parts"
    Then the stored messages do not contain "Output of tool"

  @spec-8A @clause-8A.relocation.native-where-defined
  Scenario: anthropic: a tool's image stays a block of its tool_result, keyed to the tool_use_id
    The order of the output's text and the part inside `content` is open (NOTES #383): any order.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m", "apiKey": "test-key"}
      """
    When the client runs "call snap"
    Then the run text is "done: snapped"
    And LLM request 2 body at "messages[-1]" is:
      """
      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_s1", "$partial": true, "content": {"$unordered": [
        {"type": "text", "text": "snapped"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]}}]}
      """

  @spec-8A @beyond-spec
  Scenario: Beyond the SPEC: anthropic's tool_result content is the output's text first, then the parts
    Beyond the SPEC: the order inside `tool_result.content` is not given (NOTES #383); the
    reference puts the output first, as §7C serves a result (text, then one block per part).
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m", "apiKey": "test-key"}
      """
    When the client runs "call snap"
    Then LLM request 2 body at "messages[-1].content[0].content[0]" is {"type": "text", "text": "snapped"}
    And LLM request 2 body at "messages[-1].content[0].content[1].type" is "image"

  @spec-8A @partial-clause-8A.relocation.openai-tool-message-text-only
  Scenario: openai: a tool's text part stays in its tool message, and nothing is relocated
    The tool message's shape with a text part is open (NOTES #384): its content holds the output
    and the text part, whatever the shape; no synthetic user message follows it.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "openai", "model": "m", "apiKey": "test-key"}
      """
    When the client runs "call note"
    Then the run did not raise
    And LLM request 2 body at "messages[-1].role" is "tool"
    And LLM request 2 body at "messages[-1].content" contains "noted"
    And LLM request 2 body at "messages[-1].content" contains "extra note"

  # ---------------------------------------------------------------- §11 an array content

  @spec-11 @clause-11.inbound.content-parts-translated @clause-11.inbound.non-text-never-dropped
  Scenario: translate to anthropic: an array content's image is translated, its text concatenated
    The order of the concatenated text and the translated parts is open (NOTES #386): any order.
    The image is a §1B part inside the OpenAI message, the form every reading of "non-text parts"
    takes; OpenAI's own `image_url` is the twin below.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": [{"type": "text", "text": "Hello "},
        {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}, {"type": "text", "text": "world"}]}]}
      """
    Then the run did not raise
    And LLM request 1 body at "messages[0].content" is:
      """
      {"$unordered": [{"type": "text", "text": "Hello world"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]}
      """

  @spec-11 @clause-11.inbound.non-text-never-dropped @partial-clause-11.inbound.content-parts-translated
  Scenario: translate to anthropic: a tool result's array content keeps its document
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": "read it"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "fetch", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "the file"},
          {"type": "file", "mimeType": "application/pdf", "data": "JVBERi0xLjQK"}]}]}
      """
    Then the run did not raise
    And LLM request 1 body at "messages[-1].content[0].tool_use_id" is "call_1"
    And LLM request 1 body at "messages[-1].content[0].content" contains "the file"
    And LLM request 1 body at "messages[-1].content[0].content" contains "\"type\":\"document\""
    And LLM request 1 body at "messages[-1].content[0].content" contains "JVBERi0xLjQK"

  @spec-11 @beyond-spec
  Scenario: Beyond the SPEC: translate to anthropic: OpenAI's own image_url part is translated too
    Beyond the SPEC: whether "non-text parts" of an OpenAI message include OpenAI's own part types
    or only §1B parts is open (NOTES #386); the reference reads both.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": [{"type": "text", "text": "Hello"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}]}
      """
    Then the run did not raise
    And LLM request 1 body at "messages[0].content[1]" is:
      """
      {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
      """

  @spec-11 @beyond-spec
  Scenario: Beyond the SPEC: translate to anthropic: an array content's audio is an attached part, refused before the call
    Beyond the SPEC: whether a translate request's parts are attached (§8A: a typed error) or
    degrade like a tool's (the placeholder) is open (NOTES #386); the reference reads them as the
    caller's, so attached: the cause is the refusal, seen as no request recorded.
    Given a client created with:
      """
      {"baseUrl": "{{LLM}}", "style": "anthropic", "model": "m", "apiKey": "test-key"}
      """
    When the client translates:
      """
      {"messages": [{"role": "user", "content": [{"type": "text", "text": "listen"},
        {"type": "audio", "mimeType": "audio/wav", "data": "UklGRiQAAABXQVZF"}]}]}
      """
    Then the run raised an error mentioning ""
    And the LLM received 0 requests
