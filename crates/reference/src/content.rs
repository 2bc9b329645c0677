//! §1B content parts: the `ContentPart` type, its edge constructors, the fixed media
//! extension table (shared with §4A `read`), and the strings and sizes every port renders
//! the same (the described form, `read`'s output, the unsupported-part placeholder, the
//! `{type, mimeType, bytes}` descriptor and the token estimate).
//!
//! A part holds bytes (standard padded base64, no line breaks) or an `https:` URL, and a
//! mime type: never a path. Constructors normalise at construction, so what a caller gave
//! (a path, bytes, a `data:` URL) never enters the part.

use std::fmt;
use std::path::Path;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{json, Value};

/// The kind of a non-text part (§1B `image | file | audio`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MediaKind {
    /// `image`.
    Image,
    /// `file` (a document: a PDF, any other bytes).
    File,
    /// `audio`.
    Audio,
}

impl MediaKind {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            MediaKind::Image => "image",
            MediaKind::File => "file",
            MediaKind::Audio => "audio",
        }
    }

    /// The kind a wire `type` names; `None` for `text` or anything else.
    pub fn parse(s: &str) -> Option<MediaKind> {
        match s {
            "image" => Some(MediaKind::Image),
            "file" => Some(MediaKind::File),
            "audio" => Some(MediaKind::Audio),
            _ => None,
        }
    }

    /// The kind a mime type implies when no table row or caller names one: `image/*` an
    /// image, `audio/*` audio, anything else a file (NOTES records it).
    pub fn of_mime(mime: &str) -> MediaKind {
        let top = mime.split('/').next().unwrap_or("");
        if top.eq_ignore_ascii_case("image") {
            MediaKind::Image
        } else if top.eq_ignore_ascii_case("audio") {
            MediaKind::Audio
        } else {
            MediaKind::File
        }
    }
}

/// The §4A media extension table: extension, mime type, part kind. Fixed: no sniffing, no
/// platform mime database.
pub const MEDIA_TABLE: &[(&str, &str, MediaKind)] = &[
    ("png", "image/png", MediaKind::Image),
    ("jpg", "image/jpeg", MediaKind::Image),
    ("jpeg", "image/jpeg", MediaKind::Image),
    ("gif", "image/gif", MediaKind::Image),
    ("webp", "image/webp", MediaKind::Image),
    ("pdf", "application/pdf", MediaKind::File),
    ("mp3", "audio/mpeg", MediaKind::Audio),
    ("wav", "audio/wav", MediaKind::Audio),
];

/// The table row of an extension (without its dot). Matched ASCII case-insensitively, so
/// `SHOT.PNG` is a PNG (the SPEC's table is lower-case and silent on case: NOTES records it).
pub fn media_type_of_extension(ext: &str) -> Option<(&'static str, MediaKind)> {
    MEDIA_TABLE
        .iter()
        .find(|(e, _, _)| e.eq_ignore_ascii_case(ext))
        .map(|(_, mime, kind)| (*mime, *kind))
}

/// The table row of a path's extension; `None` for a path without one, or one not in it.
pub fn media_type_of_path(path: &Path) -> Option<(&'static str, MediaKind)> {
    path.extension()
        .and_then(|e| e.to_str())
        .and_then(media_type_of_extension)
}

/// Where a non-text part's content is: its bytes as base64, or a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartBody {
    /// Standard base64 (RFC 4648 §4), padded, no line breaks — as constructed; a part taken
    /// from an MCP server keeps the server's string verbatim (§2).
    Data(String),
    /// An `https:` URL (or, from an MCP `resource_link`, the server's URI).
    Url(String),
}

/// A non-text part: `{type, mimeType, data | url, name?}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaPart {
    /// image, file or audio.
    pub kind: MediaKind,
    /// The mime type (`mimeType` on the wire).
    pub mime_type: String,
    /// Exactly one of `data` / `url`.
    pub body: PartBody,
    /// A file's name (only a `file` part carries one).
    pub name: Option<String>,
}

/// §1B ContentPart: text, or a non-text part. Serialises as the SPEC's wire form.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawPart")]
pub enum ContentPart {
    /// `{type: "text", text}`.
    Text(String),
    /// `{type: "image"|"file"|"audio", mimeType, data?, url?, name?}`.
    Media(MediaPart),
}

/// Where a part came from. §8A (emission) and §7C (serving) treat the two differently: an
/// unsupported or oversized part the caller **attached** is an error, one **derived from a
/// tool / MCP result** degrades to its placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provenance {
    /// The caller put it in the prompt.
    Attached,
    /// A tool (native, builtin, MCP) returned it in `ToolResult.parts`.
    ToolDerived,
}

/// Why a part could not be constructed: a typed error, never a broken part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentError {
    /// Both `data` and `url` were given.
    BothDataAndUrl,
    /// Neither `data` nor `url` was given.
    NeitherDataNorUrl,
    /// A path's (or URL's) extension is not in the media table and no `mimeType` was given.
    UnknownExtension(String),
    /// A path (or URL) without an extension and no `mimeType` was given.
    NoExtension(String),
    /// Bytes or a URL given without the `mimeType` they need.
    MissingMimeType,
    /// The file could not be read.
    Read {
        /// The path as given.
        path: String,
        /// Why.
        message: String,
    },
    /// `data` that is not standard padded base64.
    NotBase64(String),
    /// A `data:` URL that is not `data:<mime>;base64,<b64>`.
    BadDataUrl(String),
    /// A URL that is neither `data:` nor `https:`.
    UnsupportedUrl(String),
    /// A `type` outside `text | image | file | audio`.
    UnknownType(String),
    /// A `name` on a part that is not a `file`.
    NameOnlyOnFile,
    /// A field the part's type requires is missing.
    Missing(&'static str),
}

impl fmt::Display for ContentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContentError::BothDataAndUrl => {
                f.write_str("a content part has exactly one of data and url, not both")
            }
            ContentError::NeitherDataNorUrl => {
                f.write_str("a content part has exactly one of data and url, got neither")
            }
            ContentError::UnknownExtension(ext) => write!(
                f,
                "unknown media extension \".{ext}\": give a mimeType (the media table has {})",
                MEDIA_TABLE
                    .iter()
                    .map(|(e, _, _)| *e)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ContentError::NoExtension(p) => {
                write!(f, "{p:?} has no extension: give a mimeType")
            }
            ContentError::MissingMimeType => f.write_str("a content part needs a mimeType"),
            ContentError::Read { path, message } => write!(f, "cannot read {path}: {message}"),
            ContentError::NotBase64(why) => {
                write!(f, "data is not standard padded base64: {why}")
            }
            ContentError::BadDataUrl(why) => {
                write!(f, "not a data:<mime>;base64,<data> URL: {why}")
            }
            ContentError::UnsupportedUrl(u) => write!(
                f,
                "a content part URL must be https: or data:, got {:?}",
                u.split(':').next().unwrap_or("")
            ),
            ContentError::UnknownType(t) => write!(
                f,
                "unknown content part type {t:?} (text, image, file or audio)"
            ),
            ContentError::NameOnlyOnFile => f.write_str("only a file part carries a name"),
            ContentError::Missing(field) => write!(f, "a content part needs {field}"),
        }
    }
}

impl std::error::Error for ContentError {}

/// Standard padded base64 decoded; any other text is [`ContentError::NotBase64`].
pub fn decode_base64(data: &str) -> Result<Vec<u8>, ContentError> {
    STANDARD
        .decode(data)
        .map_err(|e| ContentError::NotBase64(e.to_string()))
}

/// The number of bytes a base64 string decodes to, from its length (padding and any
/// stray whitespace not counted): a server's unpadded string counts as well as a padded one.
pub fn base64_decoded_len(data: &str) -> usize {
    let symbols = data
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
        .count();
    symbols * 3 / 4
}

impl ContentPart {
    /// A text part.
    pub fn text(text: impl Into<String>) -> ContentPart {
        ContentPart::Text(text.into())
    }

    /// The raw type's constructor: exactly one of `data` / `url` (both or neither is an
    /// error), `data` standard padded base64, a `name` only on a file.
    pub fn media(
        kind: MediaKind,
        mime_type: impl Into<String>,
        data: Option<String>,
        url: Option<String>,
        name: Option<String>,
    ) -> Result<ContentPart, ContentError> {
        let mime_type = mime_type.into();
        if mime_type.is_empty() {
            return Err(ContentError::MissingMimeType);
        }
        let body = match (data, url) {
            (Some(_), Some(_)) => return Err(ContentError::BothDataAndUrl),
            (None, None) => return Err(ContentError::NeitherDataNorUrl),
            (Some(d), None) => {
                STANDARD
                    .decode(&d)
                    .map_err(|e| ContentError::NotBase64(e.to_string()))?;
                PartBody::Data(d)
            }
            (None, Some(u)) => PartBody::Url(u),
        };
        if name.is_some() && kind != MediaKind::File {
            return Err(ContentError::NameOnlyOnFile);
        }
        Ok(ContentPart::Media(MediaPart {
            kind,
            mime_type,
            body,
            name,
        }))
    }

    /// From bytes and their mime type: base64d now. The kind is `kind`, or the one the mime
    /// type implies ([`MediaKind::of_mime`]).
    pub fn from_bytes(
        bytes: &[u8],
        mime_type: &str,
        kind: Option<MediaKind>,
    ) -> Result<ContentPart, ContentError> {
        if mime_type.is_empty() {
            return Err(ContentError::MissingMimeType);
        }
        Ok(ContentPart::Media(MediaPart {
            kind: kind.unwrap_or_else(|| MediaKind::of_mime(mime_type)),
            mime_type: mime_type.to_string(),
            body: PartBody::Data(STANDARD.encode(bytes)),
            name: None,
        }))
    }

    /// From what a Rust caller already holds (a `std::fs::File`, a socket, any `Read`): read
    /// to its end now, eagerly, so the part never holds a half-read stream; a read error is an
    /// error, never a broken part. The reader is the caller's (not closed here).
    pub fn from_reader(
        mut reader: impl std::io::Read,
        mime_type: &str,
        kind: Option<MediaKind>,
    ) -> Result<ContentPart, ContentError> {
        if mime_type.is_empty() {
            return Err(ContentError::MissingMimeType);
        }
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .map_err(|e| ContentError::Read {
                path: "the reader".to_string(),
                message: e.to_string(),
            })?;
        ContentPart::from_bytes(&bytes, mime_type, kind)
    }

    /// From a file: its bytes read now, base64d now; the mime type and kind from the media
    /// table, unless `mime_type` is given (then the table is not consulted). An unknown
    /// extension with no `mime_type` is an error naming it. The path never enters the part.
    pub fn from_path(
        path: impl AsRef<Path>,
        mime_type: Option<&str>,
    ) -> Result<ContentPart, ContentError> {
        let path = path.as_ref();
        let (mime, kind) = match mime_type {
            Some(m) => (m.to_string(), MediaKind::of_mime(m)),
            None => {
                let (mime, kind) = table_row(&path.to_string_lossy(), path.extension())?;
                (mime.to_string(), kind)
            }
        };
        let bytes = std::fs::read(path).map_err(|e| ContentError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        ContentPart::from_bytes(&bytes, &mime, Some(kind))
    }

    /// From a URL: a `data:<mime>;base64,<b64>` URL becomes `{mimeType, data}` (never a
    /// url); an `https:` URL is kept as `url`, its mime type `mime_type` or its path's
    /// extension's from the media table. Any other scheme is an error (a `file:` URL would
    /// be a path by another name).
    pub fn from_url(url: &str, mime_type: Option<&str>) -> Result<ContentPart, ContentError> {
        let scheme = url.split(':').next().unwrap_or("");
        if scheme.eq_ignore_ascii_case("data") {
            return from_data_url(url);
        }
        if !scheme.eq_ignore_ascii_case("https") || !url.contains(':') {
            return Err(ContentError::UnsupportedUrl(url.to_string()));
        }
        let (mime, kind) = match mime_type {
            Some(m) => (m.to_string(), MediaKind::of_mime(m)),
            None => {
                // The last path segment, query and fragment cut off.
                let path = url.split(['?', '#']).next().unwrap_or(url);
                let after_host = path.splitn(4, '/').nth(3).unwrap_or("");
                let last = after_host.rsplit('/').next().unwrap_or("");
                let ext = last.rsplit_once('.').map(|(_, e)| std::ffi::OsStr::new(e));
                let (mime, kind) = table_row(url, ext)?;
                (mime.to_string(), kind)
            }
        };
        Ok(ContentPart::Media(MediaPart {
            kind,
            mime_type: mime,
            body: PartBody::Url(url.to_string()),
            name: None,
        }))
    }

    /// The wire `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            ContentPart::Text(_) => "text",
            ContentPart::Media(m) => m.kind.as_str(),
        }
    }

    /// The mime type; a text part is `text/plain`.
    pub fn mime_type(&self) -> &str {
        match self {
            ContentPart::Text(_) => "text/plain",
            ContentPart::Media(m) => &m.mime_type,
        }
    }

    /// The decoded byte count: a `data` part's bytes, `0` for a `url` part, a text part's
    /// UTF-8 length.
    pub fn decoded_bytes(&self) -> usize {
        match self {
            ContentPart::Text(t) => t.len(),
            ContentPart::Media(MediaPart {
                body: PartBody::Data(d),
                ..
            }) => base64_decoded_len(d),
            ContentPart::Media(_) => 0,
        }
    }

    /// The bytes of a `data` part; `None` for text, a `url` part or undecodable data.
    pub fn bytes(&self) -> Option<Vec<u8>> {
        match self {
            ContentPart::Media(MediaPart {
                body: PartBody::Data(d),
                ..
            }) => STANDARD.decode(d).ok(),
            _ => None,
        }
    }

    /// How a part is rendered wherever it is shown (events, logs, errors): `{type, mimeType,
    /// bytes}`, never its data.
    pub fn descriptor(&self) -> Value {
        json!({"type": self.type_name(), "mimeType": self.mime_type(), "bytes": self.decoded_bytes()})
    }

    /// A part described in text: `<type> (<mimeType>, <bytes> bytes)`.
    pub fn described(&self) -> String {
        format!(
            "{} ({}, {} bytes)",
            self.type_name(),
            self.mime_type(),
            self.decoded_bytes()
        )
    }

    /// The placeholder of a part a provider cannot take:
    /// `[unsupported <type> part (<mimeType>, <bytes> bytes)]`.
    pub fn placeholder(&self) -> String {
        format!(
            "[unsupported {} part ({}, {} bytes)]",
            self.type_name(),
            self.mime_type(),
            self.decoded_bytes()
        )
    }

    /// The token estimate of a part: `max(85, floor(decodedBytes / 750))`.
    pub fn token_estimate(&self) -> usize {
        (self.decoded_bytes() / 750).max(85)
    }
}

/// `read`'s output for a media file: `<path> (<mimeType>, <bytes> bytes)`, the path as given.
pub fn read_description(path: &str, mime_type: &str, bytes: usize) -> String {
    format!("{path} ({mime_type}, {bytes} bytes)")
}

fn table_row(
    shown: &str,
    ext: Option<&std::ffi::OsStr>,
) -> Result<(&'static str, MediaKind), ContentError> {
    let Some(ext) = ext else {
        return Err(ContentError::NoExtension(shown.to_string()));
    };
    let ext = ext.to_string_lossy();
    media_type_of_extension(&ext).ok_or_else(|| ContentError::UnknownExtension(ext.to_string()))
}

/// `data:<mime>;base64,<b64>` into `{mimeType, data}`; the data re-encoded as standard padded
/// base64 (a URL-safe or unpadded payload is refused, not repaired).
fn from_data_url(url: &str) -> Result<ContentPart, ContentError> {
    let rest = url.get(5..).unwrap_or("");
    let Some((head, payload)) = rest.split_once(',') else {
        return Err(ContentError::BadDataUrl("no comma".into()));
    };
    let Some(mime) = head.strip_suffix(";base64") else {
        return Err(ContentError::BadDataUrl("not base64-encoded".into()));
    };
    if mime.is_empty() {
        return Err(ContentError::MissingMimeType);
    }
    let bytes = STANDARD
        .decode(payload)
        .map_err(|e| ContentError::NotBase64(e.to_string()))?;
    ContentPart::from_bytes(&bytes, mime, None)
}

impl Serialize for ContentPart {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        match self {
            ContentPart::Text(t) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("type", "text")?;
                m.serialize_entry("text", t)?;
                m.end()
            }
            ContentPart::Media(p) => {
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("type", p.kind.as_str())?;
                m.serialize_entry("mimeType", &p.mime_type)?;
                match &p.body {
                    PartBody::Data(d) => m.serialize_entry("data", d)?,
                    PartBody::Url(u) => m.serialize_entry("url", u)?,
                }
                if let Some(n) = &p.name {
                    m.serialize_entry("name", n)?;
                }
                m.end()
            }
        }
    }
}

/// The wire form as read, before its rules are checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPart {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default, rename = "mimeType")]
    mime_type: Option<String>,
    #[serde(default)]
    data: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

impl TryFrom<RawPart> for ContentPart {
    type Error = ContentError;

    fn try_from(raw: RawPart) -> Result<Self, Self::Error> {
        if raw.kind == "text" {
            return raw
                .text
                .map(ContentPart::Text)
                .ok_or(ContentError::Missing("text"));
        }
        let kind = MediaKind::parse(&raw.kind).ok_or(ContentError::UnknownType(raw.kind))?;
        let mime = raw.mime_type.ok_or(ContentError::MissingMimeType)?;
        ContentPart::media(kind, mime, raw.data, raw.url, raw.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(p: &ContentPart) -> String {
        serde_json::to_string(p).unwrap_or_default()
    }

    #[test]
    fn wire_form_spells_mime_type_and_leaves_absent_keys_out() {
        let p = ContentPart::from_bytes(b"\x89PNG", "image/png", None).unwrap();
        assert_eq!(
            wire(&p),
            r#"{"type":"image","mimeType":"image/png","data":"iVBORw=="}"#
        );
        let u = ContentPart::from_url("https://example.test/a/b.pdf?x=1", None).unwrap();
        assert_eq!(
            wire(&u),
            r#"{"type":"file","mimeType":"application/pdf","url":"https://example.test/a/b.pdf?x=1"}"#
        );
        assert_eq!(
            wire(&ContentPart::text("hi")),
            r#"{"type":"text","text":"hi"}"#
        );
        let back: ContentPart = serde_json::from_str(&wire(&u)).unwrap();
        assert_eq!(back, u);
    }

    #[test]
    fn exactly_one_of_data_and_url() {
        let both = ContentPart::media(
            MediaKind::Image,
            "image/png",
            Some("AA==".into()),
            Some("https://x.test/a.png".into()),
            None,
        );
        assert_eq!(both, Err(ContentError::BothDataAndUrl));
        let neither = ContentPart::media(MediaKind::Audio, "audio/wav", None, None, None);
        assert_eq!(neither, Err(ContentError::NeitherDataNorUrl));
        let raw: Result<ContentPart, _> =
            serde_json::from_str(r#"{"type":"image","mimeType":"image/png"}"#);
        assert!(raw.is_err());
    }

    #[test]
    fn data_urls_become_data_and_other_schemes_are_refused() {
        let p = ContentPart::from_url("data:audio/wav;base64,UklGRg==", None).unwrap();
        assert_eq!(
            wire(&p),
            r#"{"type":"audio","mimeType":"audio/wav","data":"UklGRg=="}"#
        );
        for bad in ["file:///etc/passwd", "http://x.test/a.png", "nocolon"] {
            assert!(matches!(
                ContentPart::from_url(bad, None),
                Err(ContentError::UnsupportedUrl(_))
            ));
        }
        assert!(matches!(
            ContentPart::from_url("data:image/png;base64,***", None),
            Err(ContentError::NotBase64(_))
        ));
    }

    #[test]
    fn paths_use_the_table_and_name_an_unknown_extension() {
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("shot.PNG");
        std::fs::write(&png, [1u8, 2, 3, 4, 5]).unwrap();
        let p = ContentPart::from_path(&png, None).unwrap();
        assert_eq!(
            wire(&p),
            r#"{"type":"image","mimeType":"image/png","data":"AQIDBAU="}"#
        );
        assert!(!wire(&p).contains("shot"));
        let odd = dir.path().join("notes.xyz");
        std::fs::write(&odd, "x").unwrap();
        let e = ContentPart::from_path(&odd, None).unwrap_err();
        assert!(e.to_string().contains(".xyz"), "{e}");
        let given = ContentPart::from_path(&odd, Some("text/x-notes")).unwrap();
        assert_eq!(given.type_name(), "file");
    }

    #[test]
    fn readers_are_read_eagerly_and_their_errors_reported() {
        let p = ContentPart::from_reader(&b"RIFF"[..], "audio/wav", None).unwrap();
        assert_eq!(
            wire(&p),
            r#"{"type":"audio","mimeType":"audio/wav","data":"UklGRg=="}"#
        );
        struct Broken;
        impl std::io::Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("pipe closed"))
            }
        }
        let e = ContentPart::from_reader(Broken, "image/png", None).unwrap_err();
        assert!(e.to_string().contains("pipe closed"), "{e}");
        assert_eq!(
            ContentPart::from_reader(&b""[..], "", None),
            Err(ContentError::MissingMimeType)
        );
    }

    #[test]
    fn strings_sizes_and_token_estimate() {
        let p = ContentPart::from_bytes(&[0u8; 82], "image/png", None).unwrap();
        assert_eq!(p.decoded_bytes(), 82);
        assert_eq!(p.described(), "image (image/png, 82 bytes)");
        assert_eq!(
            p.placeholder(),
            "[unsupported image part (image/png, 82 bytes)]"
        );
        assert_eq!(
            p.descriptor(),
            json!({"type": "image", "mimeType": "image/png", "bytes": 82})
        );
        assert_eq!(p.token_estimate(), 85);
        let big = ContentPart::from_bytes(&vec![7u8; 750 * 200 + 749], "audio/wav", None).unwrap();
        assert_eq!(big.token_estimate(), 200);
        let url = ContentPart::from_url("https://x.test/a.gif", None).unwrap();
        assert_eq!(url.decoded_bytes(), 0);
        assert_eq!(url.token_estimate(), 85);
        assert_eq!(
            read_description("a/b.wav", "audio/wav", 3),
            "a/b.wav (audio/wav, 3 bytes)"
        );
        assert_eq!(base64_decoded_len("AQIDBAU"), 5);
    }
}
