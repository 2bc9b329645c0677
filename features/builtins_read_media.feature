@pin-0.17.0
Feature: Built-in read — media files as a description and one part; undecodable bytes are an error (SPEC §4A, §1B)

  From SPEC 0.17.0 `read` answers a file whose extension is in the media table with a one-line
  description (`<path> (<mimeType>, <bytes> bytes)`, the path as given) and one part carrying
  its bytes; any other file is read as UTF-8 text, and bytes that are not UTF-8 are an
  `isError` result naming the file. The media files are conformance/fixtures/media/ (made by
  its make.py). Every scenario here holds from SPEC 0.17.0: its clauses
  (the newest text's index) arrive there. (SPEC 0.16.0 left other bytes open:
  builtins_read.feature's lenient scenario.)

  @spec-4A @clause-4A.read.media-file @clause-1.part-strings.read-media-output @clause-4A.media-table.png
  Scenario: read of a PNG answers its description and one image part with its bytes
    Holds from SPEC 0.17.0 (§4A media files; §1B's second byte-identical string).
    Given a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{FIXTURES}}/media/shot.png"}
      """
    Then the result matches:
      """
      {"output": "{{FIXTURES}}/media/shot.png (image/png, 69 bytes)", "isError": false,
       "parts": [{"type": "image", "mimeType": "image/png", "$partial": true,
                  "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC"}]}
      """

  @spec-4A @clause-4A.read.media-file @clause-4A.media-table.fixed-shared @clause-4A.media-table.jpg-jpeg @clause-4A.media-table.gif @clause-4A.media-table.webp @clause-4A.media-table.pdf @clause-4A.media-table.mp3 @clause-4A.media-table.wav @clause-1.part-strings.read-media-output
  Scenario Outline: read of a <file> answers the table's mime type and part type
    Holds from SPEC 0.17.0 (the §4A media table).
    Given a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{FIXTURES}}/media/<file>"}
      """
    Then the result matches:
      """
      {"output": "{{FIXTURES}}/media/<file> (<mime>, <bytes> bytes)", "isError": false,
       "parts": [{"type": "<type>", "mimeType": "<mime>", "data": {"$match": "string"}, "$partial": true}]}
      """

    Examples:
      | file       | type  | mime            | bytes |
      | photo.jpg  | image | image/jpeg      | 55    |
      | photo.jpeg | image | image/jpeg      | 55    |
      | anim.gif   | image | image/gif       | 35    |
      | pic.webp   | image | image/webp      | 30    |
      | doc.pdf    | file  | application/pdf | 191   |
      | clip.mp3   | audio | audio/mpeg      | 417   |
      | tone.wav   | audio | audio/wav       | 76    |

  @spec-4A @clause-4A.read.media-file @clause-1.part-strings.read-media-output
  Scenario: read of a media file names the file as it was given
    Holds from SPEC 0.17.0 (§1B: `<path> (<mimeType>, <bytes> bytes)`, the SPEC's example
    `shot.png (image/png, 82 bytes)` is a relative path as given).
    Given a file "shots/tiny.gif" containing:
      """
      GIF89a
      """
    And a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{TMP}}/shots/tiny.gif"}
      """
    Then the result matches:
      """
      {"output": "{{TMP}}/shots/tiny.gif (image/gif, 6 bytes)", "isError": false, "$partial": true}
      """

  @spec-4A @clause-1.content-part.image-shape
  Scenario: read's image part has exactly the image shape's keys
    Holds from SPEC 0.17.0 (§1B: an image is `{type, mimeType, data?, url?}`, no `name`; only a
    file part has one). The cause, if it fails: a key outside the image shape.
    Given a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{FIXTURES}}/media/anim.gif"}
      """
    Then the result matches:
      """
      {"output": {"$match": "string"}, "isError": false,
       "parts": [{"type": "image", "mimeType": "image/gif", "data": "R0lGODlhAQABAIAAAP8AAAAAACwAAAAAAQABAAACAkQBADs="}]}
      """

  @spec-4A @clause-4A.read.undecodable-error @clause-4A.common.failure-is-result
  Scenario: read of a file that is not UTF-8 is an error result naming the file
    Holds from SPEC 0.17.0 (§4A: "Undecodable bytes ⇒ `isError:true` naming the file"); the
    positive control: a UTF-8 file beside it reads.
    Given a file "blob.bin" containing invalid UTF-8
    And a file "fine.txt" containing:
      """
      fine
      """
    And a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{TMP}}/blob.bin"}
      """
    Then the result is an error
    And the output contains "blob.bin"
    When "read" is executed with:
      """
      {"path": "{{TMP}}/fine.txt"}
      """
    Then the result is not an error
    And the output contains "fine"

  @spec-4A @clause-4A.read.text-otherwise-utf8 @clause-2.execute.text-only-no-parts-key
  Scenario: read of a file outside the media table is text, with no parts key
    Holds from SPEC 0.17.0 (§4A: "Otherwise read as UTF-8 text"); notes.xyz's extension is
    not in the table, so its bytes are its text. The cause, if it fails: a part, or a refusal.
    Given a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{FIXTURES}}/media/notes.xyz"}
      """
    Then the result matches:
      """
      {"output": "not in the media table\n", "isError": false}
      """

  @spec-4A @beyond-spec
  Scenario: read of an upper-case media extension answers a part
    Beyond the SPEC: §4A's table lists lower-case extensions and says nothing of case (NOTES
    #349); the reference and python 0.21 match them case-insensitively.
    Given a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{FIXTURES}}/media/SHOT.PNG"}
      """
    Then the result matches:
      """
      {"output": "{{FIXTURES}}/media/SHOT.PNG (image/png, 69 bytes)", "isError": false,
       "parts": [{"type": "image", "mimeType": "image/png", "$partial": true}]}
      """

  @spec-4A @beyond-spec
  Scenario: read of a media file ignores a line window
    Beyond the SPEC: §4A gives `offset`/`limit` to text only and says nothing of them on a
    media file (NOTES #351); the reference answers the whole file as its part.
    Given a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{FIXTURES}}/media/tone.wav", "offset": 2, "limit": 1}
      """
    Then the result matches:
      """
      {"output": "{{FIXTURES}}/media/tone.wav (audio/wav, 76 bytes)", "isError": false,
       "parts": [{"type": "audio", "mimeType": "audio/wav", "$partial": true}]}
      """

  @spec-4A @clause-4A.media-table.no-sniffing @clause-4A.read.media-file
  Scenario: read takes a media file's mime type from its extension, never from its bytes
    Holds from SPEC 0.17.0 (§4A: no sniffing, no platform mime database). jpeg-inside.png holds
    a JPEG's bytes under a .png name: read answers image/png carrying those bytes. vector.svg
    is image/svg+xml in every platform mime database, and not in the table: read answers its
    text, with no part.
    Given a toolkit built with no options
    When "read" is executed with:
      """
      {"path": "{{FIXTURES}}/media/jpeg-inside.png"}
      """
    Then the result matches:
      """
      {"output": "{{FIXTURES}}/media/jpeg-inside.png (image/png, 55 bytes)", "isError": false,
       "parts": [{"type": "image", "mimeType": "image/png", "$partial": true,
                  "data": "/9j/4AAQSkZJRgABAQAAAQABAAD//gAfdG9vbG5leHVzIGNvbmZvcm1hbmNlIGZpeHR1cmX/2Q=="}]}
      """
    When "read" is executed with:
      """
      {"path": "{{FIXTURES}}/media/vector.svg"}
      """
    Then the result matches:
      """
      {"output": {"$contains": "<svg xmlns="}, "isError": false, "parts": {"$absent": true}, "$partial": true}
      """
