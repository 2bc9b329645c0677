@pin-0.17.0
Feature: content parts — the ContentPart type and its edge constructors (SPEC §1B)

  A ContentPart is text, or an image, file or audio part carrying a `mimeType` and exactly one
  of `data` (standard base64, padded, no line breaks) or `url`; never a path. The port's edge
  constructors normalise what they are given (a path, bytes, a `data:` or `https:` URL) at
  construction. `content_part` (PROTOCOL.md §5.28) asks the port's own constructors; a
  construction error is the port's `raised`. The media files are conformance/fixtures/media/
  (made by its make.py). Every scenario here holds from SPEC 0.17.0: its clauses
  (the newest text's index) arrive there.

  @spec-1 @clause-1.edge-constructor.path @clause-1.content-part.standard-base64 @clause-1.content-part.mime-type-spelling @clause-4A.media-table.png
  Scenario: a part made from a PNG's path carries its bytes as standard padded base64 and the table's mime type
    Holds from SPEC 0.17.0 (§1B). The bytes are read at construction; `name` is not checked
    here (the scenario about a path's absence is below).
    When a content part is made from:
      """
      {"path": "{{FIXTURES}}/media/shot.png"}
      """
    Then the content part is:
      """
      {"type": "image", "mimeType": "image/png", "$partial": true,
       "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC"}
      """

  @spec-1 @clause-4A.media-table.fixed-shared @clause-4A.media-table.jpg-jpeg @clause-4A.media-table.gif @clause-4A.media-table.webp @clause-4A.media-table.pdf @clause-4A.media-table.mp3 @clause-4A.media-table.wav @clause-1.edge-constructor.path
  Scenario Outline: a part made from a path takes its type and mime type from the media table [<file>]
    Holds from SPEC 0.17.0 (the §4A media table, shared with §1B's constructors).
    When a content part is made from:
      """
      {"path": "{{FIXTURES}}/media/<file>"}
      """
    Then the content part is:
      """
      {"type": "<type>", "mimeType": "<mime>", "data": {"$match": "string"}, "$partial": true}
      """

    Examples:
      | file       | type  | mime            |
      | photo.jpg  | image | image/jpeg      |
      | photo.jpeg | image | image/jpeg      |
      | anim.gif   | image | image/gif       |
      | pic.webp   | image | image/webp      |
      | doc.pdf    | file  | application/pdf |
      | clip.mp3   | audio | audio/mpeg      |
      | tone.wav   | audio | audio/wav       |

  @spec-1 @clause-1.content-part.never-a-path @clause-0.content-part.never-a-path @clause-1.edge-constructor.normalise-at-construction
  Scenario: a part made from a path holds no path
    Holds from SPEC 0.17.0 (§1B "never a path"). The cause, if it fails: the part keeps where
    the file was (a `url` or a value naming its directory); the positive control is that the
    part carries the file's bytes.
    When a content part is made from:
      """
      {"path": "{{FIXTURES}}/media/doc.pdf"}
      """
    Then the content part is:
      """
      {"type": "file", "data": {"$regex": "^JVBERi0xLjQK"}, "url": {"$absent": true}, "$partial": true}
      """
    And the content part does not contain "{{FIXTURES}}"
    And the content part does not contain "media/"

  @spec-1 @clause-1.edge-constructor.unknown-extension-error @clause-1.edge-constructor.no-mime-sniffing
  Scenario: a path whose extension is not in the media table is refused, naming the extension
    Holds from SPEC 0.17.0 (§1B: "a typed error naming the extension"); the positive control:
    the same constructor makes a part from a file whose extension is in the table.
    When a content part is made from:
      """
      {"path": "{{FIXTURES}}/media/notes.xyz"}
      """
    Then the content part is refused, naming "xyz"
    When a content part is made from:
      """
      {"path": "{{FIXTURES}}/media/doc.pdf"}
      """
    Then the content part is:
      """
      {"type": "file", "mimeType": "application/pdf", "data": {"$regex": "^JVBERi0xLjQK"}, "$partial": true}
      """

  @spec-1 @clause-1.edge-constructor.unknown-extension-error
  Scenario: a path whose extension is not in the media table makes a part with an explicit mime type
    Holds from SPEC 0.17.0 (§1B: the error is for an unknown extension "with no explicit
    `mimeType`"). A port whose path constructor takes no mime type answers `unsupported`.
    When a content part is made from:
      """
      {"path": "{{FIXTURES}}/media/notes.xyz", "mimeType": "application/pdf", "type": "file"}
      """
    Then the content part is:
      """
      {"type": "file", "mimeType": "application/pdf", "data": "bm90IGluIHRoZSBtZWRpYSB0YWJsZQo=", "$partial": true}
      """

  @spec-1 @clause-1.edge-constructor.native-bytes @clause-1.content-part.standard-base64
  Scenario: a part made from bytes and a mime type carries those bytes base64d
    Holds from SPEC 0.17.0 (§1B native bytes). `bytes` crosses the protocol as base64 and the
    driver hands its port the decoded bytes (PROTOCOL.md §5.28).
    When a content part is made from:
      """
      {"bytes": "AAECA/7/", "mimeType": "audio/wav", "type": "audio"}
      """
    Then the content part is:
      """
      {"type": "audio", "mimeType": "audio/wav", "data": "AAECA/7/"}
      """

  @spec-1 @clause-1.edge-constructor.native-bytes
  Scenario: bytes without a mime type are refused
    Holds from SPEC 0.17.0 (§1B: for native bytes "`mimeType` required"); the positive
    control: the same bytes with a mime type make a part.
    When a content part is made from:
      """
      {"bytes": "AAECAw==", "type": "image"}
      """
    Then the content part is refused
    When a content part is made from:
      """
      {"bytes": "AAECAw==", "type": "image", "mimeType": "image/png"}
      """
    Then the content part is:
      """
      {"type": "image", "mimeType": "image/png", "data": "AAECAw=="}
      """

  @spec-1 @clause-1.edge-constructor.data-url
  Scenario: a data: URL becomes mimeType and data, never a url
    Holds from SPEC 0.17.0 (§1B: "parsed into `{mimeType, data}` — never stored as `url`").
    When a content part is made from:
      """
      {"url": "data:image/gif;base64,R0lGODlhAQABAIAAAP8AAAAAACwAAAAAAQABAAACAkQBADs=", "type": "image"}
      """
    Then the content part is:
      """
      {"type": "image", "mimeType": "image/gif", "data": "R0lGODlhAQABAIAAAP8AAAAAACwAAAAAAQABAAACAkQBADs="}
      """

  @spec-1 @clause-1.edge-constructor.https-url
  Scenario: an https: URL is kept as url, with no data
    Holds from SPEC 0.17.0 (§1B: "an `https:` URL | kept as `url`").
    When a content part is made from:
      """
      {"url": "https://example.test/charts/q3.png", "mimeType": "image/png", "type": "image"}
      """
    Then the content part is:
      """
      {"type": "image", "mimeType": "image/png", "url": "https://example.test/charts/q3.png"}
      """

  @spec-1 @clause-1.content-part.both-or-neither-error @clause-1.content-part.exactly-one-source @clause-0.content-part.mime-and-one-source
  Scenario: a part with both data and url is a construction error
    Holds from SPEC 0.17.0 (§1B: "Both, or neither, is a typed construction error"); the
    positive control: the same fields with data only make the part.
    When a content part is made from:
      """
      {"part": {"type": "image", "mimeType": "image/png", "data": "AAECAw==", "url": "https://example.test/a.png"}}
      """
    Then the content part is refused
    When a content part is made from:
      """
      {"part": {"type": "image", "mimeType": "image/png", "data": "AAECAw=="}}
      """
    Then the content part is:
      """
      {"type": "image", "mimeType": "image/png", "data": "AAECAw=="}
      """

  @spec-1 @clause-1.content-part.both-or-neither-error @clause-1.content-part.exactly-one-source
  Scenario: a part with neither data nor url is a construction error
    Holds from SPEC 0.17.0 (§1B: "Both, or neither, is a typed construction error"); the
    positive control: the same fields with a url make the part.
    When a content part is made from:
      """
      {"part": {"type": "audio", "mimeType": "audio/wav"}}
      """
    Then the content part is refused
    When a content part is made from:
      """
      {"part": {"type": "audio", "mimeType": "audio/wav", "url": "https://example.test/a.wav"}}
      """
    Then the content part is:
      """
      {"type": "audio", "mimeType": "audio/wav", "url": "https://example.test/a.wav"}
      """

  @spec-1 @clause-1.part-strings.described-in-text @clause-1.part-strings.bytes-decoded-integer @clause-1.part-strings.byte-identical
  Scenario: a part described in text is its type, mime type and decoded byte count
    Holds from SPEC 0.17.0 (§1B's first byte-identical string, with the SPEC's own example:
    82 bytes of a PNG).
    When a content part is made from:
      """
      {"bytes": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==", "mimeType": "image/png", "type": "image"}
      """
    Then the content part's described is:
      """
      "image (image/png, 82 bytes)"
      """
    And the content part's bytes is:
      """
      82
      """

  @spec-1 @clause-1.part-strings.unsupported-placeholder @clause-1.part-strings.byte-identical
  Scenario: an unsupported part's placeholder names its type, mime type and decoded byte count
    Holds from SPEC 0.17.0 (§1B's third byte-identical string).
    When a content part is made from:
      """
      {"path": "{{FIXTURES}}/media/tone.wav"}
      """
    Then the content part's placeholder is:
      """
      "[unsupported audio part (audio/wav, 76 bytes)]"
      """

  @spec-1 @clause-1.part-strings.url-zero-bytes
  Scenario: a part carrying a url renders its byte count as 0
    Holds from SPEC 0.17.0 (§1B: "A part carrying a `url` instead of `data` renders `<bytes>`
    as `0`").
    When a content part is made from:
      """
      {"url": "https://example.test/q3.pdf", "mimeType": "application/pdf", "type": "file"}
      """
    Then the content part's described is:
      """
      "file (application/pdf, 0 bytes)"
      """
    And the content part's placeholder is:
      """
      "[unsupported file part (application/pdf, 0 bytes)]"
      """

  @spec-1 @clause-1.part-render.descriptor-never-data
  Scenario: a part is rendered as its type, mime type and decoded bytes, never its data
    Holds from SPEC 0.17.0 (§1B: logs and events render `{type, mimeType, bytes}`; `data` is
    never logged). The descriptor is compared whole, so a `data` key in it fails.
    When a content part is made from:
      """
      {"path": "{{FIXTURES}}/media/anim.gif"}
      """
    Then the content part's descriptor is:
      """
      {"type": "image", "mimeType": "image/gif", "bytes": 35}
      """

  @spec-1 @clause-1.token-estimate.formula
  Scenario Outline: a part's token estimate is max(85, floor(decodedBytes / 750)) [<file>]
    Holds from SPEC 0.17.0 (§1B's normative estimate): long.wav is 96044 bytes (128 tokens),
    clip.mp3 (417 bytes) stays at the floor of 85.
    When a content part is made from:
      """
      {"path": "{{FIXTURES}}/media/<file>"}
      """
    Then the content part's tokens is:
      """
      <tokens>
      """

    Examples:
      | file     | tokens |
      | long.wav | 128    |
      | clip.mp3 | 85     |

  @spec-1 @clause-1.token-estimate.formula @clause-1.part-strings.url-zero-bytes
  Scenario: a url part's token estimate is the floor of 85
    Holds from SPEC 0.17.0 (§1B: a url part has 0 decoded bytes, and "a part is never free").
    When a content part is made from:
      """
      {"url": "https://example.test/big.png", "mimeType": "image/png", "type": "image"}
      """
    Then the content part's tokens is:
      """
      85
      """

  @spec-1 @beyond-spec
  Scenario: an upper-case extension is in the media table
    Beyond the SPEC: §1B/§4A's table lists lower-case extensions and says nothing of case
    (NOTES #349); the reference and python 0.21 match them case-insensitively.
    When a content part is made from:
      """
      {"path": "{{FIXTURES}}/media/SHOT.PNG"}
      """
    Then the content part is:
      """
      {"type": "image", "mimeType": "image/png", "data": {"$match": "string"}, "$partial": true}
      """

  @spec-1 @clause-1.tool-result.parts-optional @clause-1.tool-result.output-required-with-parts
  Scenario: a native tool's parts reach its result beside its output
    Holds from SPEC 0.17.0 (§1: `ToolResult.parts`, `output` still required). The tool is the
    `parts` behaviour (PROTOCOL.md §7), built with the port's own part type.
    Given a toolkit built with:
      """
      {"builtins": false, "extraTools": [{"name": "shot", "behaviour": {"parts": {
        "output": "screenshot, 1x1 png",
        "parts": [{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}]}}}]}
      """
    When "shot" is executed
    Then the result matches:
      """
      {"output": "screenshot, 1x1 png", "isError": false,
       "parts": [{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}]}
      """

  # ---------------------------------------------------------------- the union, and what a part stores

  @spec-1 @clause-0.content-part.types @clause-1.content-part.text-shape @clause-1.content-part.image-shape @clause-1.content-part.file-shape @clause-1.content-part.audio-shape
  Scenario Outline: the part type holds each of its four kinds in exactly its wire shape
    Holds from SPEC 0.17.0 (§0 1b, §1B: a ContentPart is text, image, file or audio, each with
    its own keys). The raw type's construction reads the part and gives it back unchanged,
    compared whole: a key outside the kind's shape (an absent optional key as `null`, a
    `name` on a kind without one) fails it.
    When a content part is made from:
      """
      {"part": <part>}
      """
    Then the content part is:
      """
      <part>
      """

    Examples:
      | kind              | part                                                                                          |
      | text              | {"type": "text", "text": "a caption"}                                                         |
      | image by data     | {"type": "image", "mimeType": "image/gif", "data": "R0lGODlhAQABAIAAAP8AAAAAACwAAAAAAQABAAACAkQBADs="} |
      | file with a name  | {"type": "file", "mimeType": "application/pdf", "data": "JVBERi0xLjQK", "name": "q3.pdf"}     |
      | file by url       | {"type": "file", "mimeType": "application/pdf", "url": "https://example.test/q3.pdf"}          |
      | audio by data     | {"type": "audio", "mimeType": "audio/wav", "data": "UklGRiQAAABXQVZF"}                        |

  @spec-1 @clause-1.edge-constructor.store-narrowly @clause-1.edge-constructor.normalise-at-construction
  Scenario Outline: whatever a part is made from, it stores bytes and a mime type
    Holds from SPEC 0.17.0 (§1B "accept broadly, store narrowly"): the same 69 bytes of
    shot.png given as a path, as native bytes or as a data: URL make the same part, compared
    whole (an image has no `name`): nothing of where the bytes came from is kept.
    When a content part is made from:
      """
      <from>
      """
    Then the content part is:
      """
      {"type": "image", "mimeType": "image/png",
       "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC"}
      """

    Examples:
      | source     | from                                                                                                                                      |
      | a path     | {"path": "{{FIXTURES}}/media/shot.png"}                                                                                                   |
      | bytes      | {"bytes": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC", "mimeType": "image/png", "type": "image"} |
      | a data URL | {"url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC", "type": "image"} |

  @spec-1 @clause-1.edge-constructor.read-error-reported
  Scenario: a path that cannot be read is the constructor's error, never a part
    Holds from SPEC 0.17.0 (§1B: a source that cannot be read, such as a missing file, is
    reported the port's own way for the call, never stored as a broken part; for the
    constructor that is its error). The cause, if it fails: a part made from nothing; the
    positive control: the same constructor reads a file that is there.
    When a content part is made from:
      """
      {"path": "{{FIXTURES}}/media/no-such-file.png"}
      """
    Then the content part is refused
    When a content part is made from:
      """
      {"path": "{{FIXTURES}}/media/shot.png"}
      """
    Then the content part is:
      """
      {"type": "image", "mimeType": "image/png", "data": {"$regex": "^iVBORw0KGgo"}, "$partial": true}
      """

  @spec-1 @clause-4A.media-table.no-sniffing @clause-1.edge-constructor.no-mime-sniffing
  Scenario: a part's mime type comes from the extension, never from the bytes
    Holds from SPEC 0.17.0 (§1B, §4A: no sniffing). jpeg-inside.png holds a JPEG's bytes
    (they begin FF D8 FF) under a .png name: the part is image/png carrying those bytes.
    When a content part is made from:
      """
      {"path": "{{FIXTURES}}/media/jpeg-inside.png"}
      """
    Then the content part is:
      """
      {"type": "image", "mimeType": "image/png",
       "data": "/9j/4AAQSkZJRgABAQAAAQABAAD//gAfdG9vbG5leHVzIGNvbmZvcm1hbmNlIGZpeHR1cmX/2Q==", "$partial": true}
      """

  @spec-1 @clause-4A.media-table.no-sniffing @clause-1.edge-constructor.unknown-extension-error
  Scenario: an extension every platform mime database knows, but the table lacks, is refused
    Holds from SPEC 0.17.0 (§1B, §4A: the fixed table, never a platform mime database, which
    maps .svg to image/svg+xml): vector.svg is refused naming its extension; the positive
    control: with an explicit mime type the same file makes a part.
    When a content part is made from:
      """
      {"path": "{{FIXTURES}}/media/vector.svg"}
      """
    Then the content part is refused, naming "svg"
    When a content part is made from:
      """
      {"path": "{{FIXTURES}}/media/vector.svg", "mimeType": "image/svg+xml", "type": "image"}
      """
    Then the content part is:
      """
      {"type": "image", "mimeType": "image/svg+xml", "data": {"$regex": "^PHN2Zy"}, "$partial": true}
      """
