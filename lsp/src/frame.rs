//! Reading the protocol's frames (`Content-Length: N`, a blank line, N bytes of JSON) from a
//! client that may send anything: one bad frame is answered with JSON-RPC's error and the
//! server reads on, so an editor never loses its server for one bad byte.
//!
//! A frame whose header cannot be read (no `Content-Length`, a length that is no number, a
//! line longer than [`MAX_HEADER_LINE`]) or whose length is over [`MAX_BODY`] leaves the
//! stream's position unknown: the body's end is the header's claim, and a wrong claim is what
//! made it unreadable. The reader then skips to the next `Content-Length:` header, where the
//! next frame starts, rather than ending: an editor that sent one bad frame keeps its server,
//! and a huge body is skipped as it streams by, never held.
//!
//! A frame's body is at most 64 MiB ([`MAX_BODY`]).

use std::io::{self, BufRead, Read};

use lsp_server::Message;
use serde_json::{Value, json};

/// The largest body the server reads (docs/editors.md): a runbook is far smaller, and a
/// length past it is refused before anything is allocated.
pub(crate) const MAX_BODY: u64 = 64 << 20;

/// The longest header line read; a longer one makes its frame unreadable.
pub(crate) const MAX_HEADER_LINE: usize = 8 << 10;

/// The header that starts every frame, which the reader looks for after an unreadable one.
const LENGTH_HEADER: &[u8] = b"content-length:";

/// What one read of the input gives.
#[derive(Debug)]
pub(crate) enum Frame {
    /// A JSON-RPC message.
    Message(Message),
    /// A frame that could not be read: JSON-RPC's error to answer (a whole response, its
    /// `id` null when the frame's is unknown), and why, for standard error.
    Unreadable { reply: Value, why: String },
    /// The input ended; `Some` says why when it ended inside a frame.
    End(Option<String>),
}

/// Frames read one after another from `input`.
pub(crate) struct FrameReader<R> {
    input: R,
    /// Whether the last frame's header was unreadable, so that the next frame is found by
    /// looking for its `Content-Length:` header.
    lost: bool,
    /// The first line of the next frame's header, when it was read with an unreadable one.
    pending: String,
}

/// JSON-RPC's "Parse error": the frame is not JSON, or could not be read at all.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "Invalid Request": JSON, but not a request, response or notification.
const INVALID_REQUEST: i64 = -32600;

impl<R: BufRead> FrameReader<R> {
    pub(crate) fn new(input: R) -> Self {
        Self {
            input,
            lost: false,
            pending: String::new(),
        }
    }

    /// The next frame. Never fails: an error of the input itself ends it.
    pub(crate) fn read(&mut self) -> Frame {
        match self.try_read() {
            Ok(frame) => frame,
            Err(error) => Frame::End(Some(format!("reading standard input: {error}"))),
        }
    }

    fn try_read(&mut self) -> io::Result<Frame> {
        let first = if !self.pending.is_empty() {
            Some(Line::Text(std::mem::take(&mut self.pending)))
        } else if self.lost {
            if !self.skip_to_length_header()? {
                return Ok(Frame::End(None));
            }
            Some(match self.line()? {
                Line::Text(rest) => Line::Text(format!("Content-Length:{rest}")),
                other => other,
            })
        } else {
            None
        };
        let length = match self.header(first)? {
            Header::End => return Ok(Frame::End(None)),
            Header::EndInside => {
                return Ok(Frame::End(Some("the input ended inside a header".into())));
            }
            Header::Unreadable(why) => {
                // Where the next frame starts is known when its header was seen.
                self.lost = self.pending.is_empty();
                return Ok(unreadable(PARSE_ERROR, Value::Null, why));
            }
            Header::Length(length) => length,
        };
        self.lost = false;
        let mut body = Vec::new();
        let read = (&mut self.input).take(length).read_to_end(&mut body)?;
        if (read as u64) < length {
            return Ok(Frame::End(Some(format!(
                "the input ended {read} bytes into a frame of {length}"
            ))));
        }
        Ok(message_of(&body))
    }

    /// Reads a header to its blank line, starting with `first` when a line was already read.
    fn header(&mut self, mut first: Option<Line>) -> io::Result<Header> {
        let mut length = None;
        let mut problem = None;
        let mut started = first.is_some();
        loop {
            let line = match first.take().map_or_else(|| self.line(), Ok)? {
                Line::End if !started => return Ok(Header::End),
                Line::End | Line::EndInside => return Ok(Header::EndInside),
                Line::TooLong => {
                    return Ok(Header::Unreadable(format!(
                        "a header line longer than {MAX_HEADER_LINE} bytes"
                    )));
                }
                Line::Text(text) => text,
            };
            if line.is_empty() {
                if !started {
                    // Blank lines between frames are no frame.
                    continue;
                }
                break;
            }
            started = true;
            // Bytes before a `Content-Length` header on its line are the rest of something
            // unreadable (a body longer than its length said); the next frame starts there.
            if let Some(at) = line
                .to_ascii_lowercase()
                .find("content-length:")
                .filter(|at| *at > 0)
            {
                self.pending = line[at..].to_owned();
                return Ok(Header::Unreadable(format!(
                    "bytes that are no frame before a Content-Length header: {:?}",
                    clip(&line[..at])
                )));
            }
            let Some((name, value)) = line.split_once(':') else {
                problem.get_or_insert(format!("a header line without `:`: {:?}", clip(&line)));
                continue;
            };
            if name.trim().eq_ignore_ascii_case("content-length") {
                match value.trim().parse::<u64>() {
                    Ok(n) => length = Some(n),
                    Err(_) => {
                        problem.get_or_insert(format!(
                            "a Content-Length that is no length: {:?}",
                            clip(value.trim())
                        ));
                    }
                }
            }
        }
        Ok(match (problem, length) {
            (Some(why), _) => Header::Unreadable(why),
            (None, None) => Header::Unreadable("a header without Content-Length".into()),
            (None, Some(n)) if n > MAX_BODY => Header::Unreadable(format!(
                "a Content-Length of {n} bytes, over the {} MiB the server reads",
                MAX_BODY >> 20
            )),
            (None, Some(n)) => Header::Length(n),
        })
    }

    /// One header line without its line ending (`\r\n`, or a bare `\n`). A line longer than
    /// [`MAX_HEADER_LINE`] is left unread past that, for the search for the next header.
    fn line(&mut self) -> io::Result<Line> {
        let mut bytes = Vec::new();
        loop {
            let available = self.input.fill_buf()?;
            if available.is_empty() {
                return Ok(if bytes.is_empty() {
                    Line::End
                } else {
                    Line::EndInside
                });
            }
            let room = MAX_HEADER_LINE + 1 - bytes.len();
            let window = &available[..available.len().min(room)];
            let (taken, done) = match window.iter().position(|&b| b == b'\n') {
                Some(at) => (at + 1, true),
                None => (window.len(), false),
            };
            bytes.extend_from_slice(&window[..taken]);
            self.input.consume(taken);
            if done {
                break;
            }
            if bytes.len() > MAX_HEADER_LINE {
                return Ok(Line::TooLong);
            }
        }
        while bytes.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
            bytes.pop();
        }
        Ok(Line::Text(String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// Skips to just after the next `Content-Length:` (in any case); `false` when the input
    /// ends first.
    fn skip_to_length_header(&mut self) -> io::Result<bool> {
        let mut matched = 0;
        loop {
            let available = self.input.fill_buf()?;
            if available.is_empty() {
                return Ok(false);
            }
            let mut used = 0;
            for &byte in available {
                used += 1;
                let byte = byte.to_ascii_lowercase();
                matched = if byte == LENGTH_HEADER[matched] {
                    matched + 1
                } else {
                    usize::from(byte == LENGTH_HEADER[0])
                };
                if matched == LENGTH_HEADER.len() {
                    self.input.consume(used);
                    return Ok(true);
                }
            }
            self.input.consume(used);
        }
    }
}

enum Header {
    /// The input ended before a frame began.
    End,
    /// The input ended inside a header.
    EndInside,
    Unreadable(String),
    Length(u64),
}

enum Line {
    /// The input ended before the line began.
    End,
    /// The input ended inside the line.
    EndInside,
    /// Longer than [`MAX_HEADER_LINE`]; the rest is still to be read.
    TooLong,
    Text(String),
}

/// The message a body holds, or the error that answers it.
fn message_of(body: &[u8]) -> Frame {
    let value = match serde_json::from_slice::<Value>(body) {
        Ok(value) => value,
        Err(error) => {
            return unreadable(
                PARSE_ERROR,
                Value::Null,
                format!("a body that is no JSON: {error}"),
            );
        }
    };
    // An id a request can have (a number or a string) is answered; any other is null.
    let id = value
        .get("id")
        .filter(|id| id.is_number() || id.is_string())
        .cloned()
        .unwrap_or(Value::Null);
    // By its fields, not by whichever shape fits first: `{"id": 7, "method": 42}` would pass
    // as a response with neither result nor error.
    let has = |field: &str| value.get(field).is_some();
    let message = if has("method") && has("id") {
        serde_json::from_value(value).map(Message::Request)
    } else if has("method") {
        serde_json::from_value(value).map(Message::Notification)
    } else if has("id") && (has("result") || has("error")) {
        serde_json::from_value(value).map(Message::Response)
    } else {
        return unreadable(
            INVALID_REQUEST,
            id,
            "JSON that is no request, response or notification: no `method`, nor a `result` or `error` for an `id`".into(),
        );
    };
    match message {
        Ok(message) => Frame::Message(message),
        Err(error) => unreadable(
            INVALID_REQUEST,
            id,
            format!("JSON that is no request, response or notification: {error}"),
        ),
    }
}

fn unreadable(code: i64, id: Value, why: String) -> Frame {
    let reply = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": format!("cairn lsp could not read a frame: {why}")},
    });
    Frame::Unreadable { reply, why }
}

/// At most 80 characters of `text`, for a message.
fn clip(text: &str) -> String {
    text.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::{Frame, FrameReader};

    /// What reading `input` to its end gives: `message METHOD`, `error CODE`, `end`.
    fn frames(input: &[u8]) -> Vec<String> {
        let mut reader = FrameReader::new(input);
        let mut found = Vec::new();
        loop {
            match reader.read() {
                Frame::Message(lsp_server::Message::Notification(n)) => {
                    found.push(format!("message {}", n.method));
                }
                Frame::Message(other) => found.push(format!("message {other:?}")),
                Frame::Unreadable { reply, .. } => {
                    found.push(format!("error {}", reply["error"]["code"]));
                }
                Frame::End(why) => {
                    found.push(format!("end {}", why.is_some()));
                    return found;
                }
            }
        }
    }

    fn note(method: &str) -> String {
        let body = format!(r#"{{"jsonrpc":"2.0","method":"{method}"}}"#);
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn a_bad_frame_is_answered_and_the_next_one_read() {
        for bad in [
            "Content-Length: 5\r\n\r\n{\"jsonrpc\"".to_owned(),
            "Content-Length: 1000000000000000\r\n\r\n{}".to_owned(),
            format!("Content-Length: {}\r\n\r\n{{}}", u64::MAX),
            "Content-Length: -5\r\n\r\n{}".to_owned(),
            "Content-Type: x\r\n\r\n{}".to_owned(),
            format!("Content-Length: 2{}", "0".repeat(20_000)),
            format!("X-{}: b\r\n\r\n", "a".repeat(20_000)),
            "Content-Length: 3\r\n\r\n{x}".to_owned(),
        ] {
            let input = format!("{}{bad}{}", note("a"), note("b"));
            let found = frames(input.as_bytes());
            assert_eq!(
                found.first().map(String::as_str),
                Some("message a"),
                "{bad:.60}"
            );
            assert!(
                found.iter().any(|f| f == "error -32700"),
                "{bad:.60}: {found:?}"
            );
            assert_eq!(
                &found[found.len() - 2..],
                ["message b", "end false"],
                "{bad:.60}"
            );
        }
    }

    #[test]
    fn json_that_is_no_message_is_an_invalid_request() {
        let body = r#"[1,2,3]"#;
        let input = format!("Content-Length: {}\r\n\r\n{body}{}", body.len(), note("b"));
        assert_eq!(
            frames(input.as_bytes()),
            ["error -32600", "message b", "end false"]
        );
    }

    #[test]
    fn the_input_ending_inside_a_frame_says_so() {
        assert_eq!(frames(b"Content-Length: 100\r\n\r\n{\"js"), ["end true"]);
        assert_eq!(frames(b"Content-Len"), ["end true"]);
        assert_eq!(frames(b""), ["end false"]);
    }
}
