//! The connection between the client's byte streams and the server's loop: a thread reading
//! frames (`frame.rs`) into the loop's channel, answering those it cannot read itself, and a
//! thread writing the loop's messages. Both write whole frames under one lock, so an answer to
//! a bad frame never cuts into another message.

use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, unbounded};
use lsp_server::{Connection, Message};

use crate::frame::{Frame, FrameReader};

/// The output, written a whole frame at a time.
type Output = Arc<Mutex<Box<dyn Write + Send>>>;

/// The threads behind a [`Connection`]; [`Transport::join`] waits for them.
pub(crate) struct Transport {
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
}

/// A connection over `input` and `output`, and the threads that serve it.
pub(crate) fn connect(
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) -> (Connection, Transport) {
    let output: Output = Arc::new(Mutex::new(Box::new(output)));
    let (to_loop, from_reader) = unbounded();
    let (to_writer, from_loop) = unbounded();
    let reader = {
        let output = output.clone();
        std::thread::spawn(move || read_frames(input, &to_loop, &output))
    };
    let writer = std::thread::spawn(move || write_messages(&from_loop, &output));
    let connection = Connection {
        sender: to_writer,
        receiver: from_reader,
    };
    (connection, Transport { reader, writer })
}

impl Transport {
    /// Waits for both threads: the reader ends with the input or after `exit`, the writer once
    /// the connection is dropped.
    pub(crate) fn join(self) -> Result<(), crate::LspError> {
        let reader = self.reader.join();
        let writer = self.writer.join();
        reader
            .and(writer)
            .map_err(|_| crate::LspError("a thread of the connection failed".into()))
    }
}

/// Frames from `input` to the loop until the input ends or the client says `exit`; an
/// unreadable frame is answered here and said on standard error.
fn read_frames(input: impl BufRead, to_loop: &Sender<Message>, output: &Output) {
    let mut frames = FrameReader::new(input);
    loop {
        match frames.read() {
            Frame::Message(message) => {
                let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if to_loop.send(message).is_err() || exit {
                    return;
                }
            }
            Frame::Unreadable { reply, why } => {
                eprintln!("cairn lsp: could not read a frame ({why}); answered with an error");
                write_frame(output, reply.to_string().as_bytes());
            }
            Frame::End(why) => {
                if let Some(why) = why {
                    eprintln!("cairn lsp: {why}; the client has gone");
                }
                return;
            }
        }
    }
}

/// The loop's messages to `output`, until the connection is dropped. A message that cannot be
/// written (the client gone) is dropped and the rest still taken, so the loop never waits.
fn write_messages(from_loop: &Receiver<Message>, output: &Output) {
    for message in from_loop {
        let mut frame = Vec::new();
        if message.write(&mut frame).is_ok() {
            write_frame_bytes(output, &frame);
        }
    }
}

/// One body as a frame.
fn write_frame(output: &Output, body: &[u8]) {
    let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    frame.extend_from_slice(body);
    write_frame_bytes(output, &frame);
}

fn write_frame_bytes(output: &Output, frame: &[u8]) {
    let mut output = output
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // A client that has gone reads nothing more; the reader's end of input stops the server.
    let _ = output.write_all(frame).and_then(|()| output.flush());
}
