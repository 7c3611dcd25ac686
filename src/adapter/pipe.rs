//! Lines to and from a child process, each with a deadline.
//!
//! Invariants: no call blocks past its deadline, whatever the child does (never reads, never
//! writes, writes without a newline, holds its pipes open); a line is at most
//! [`super::protocol::MAX_LINE`] bytes, and a longer one is reported as such without
//! buffering more than one read past the cap; bytes after a line stay buffered for the next
//! receive, so an unsolicited line is seen, never lost; a send that waits for the child's full
//! stdin keeps reading its stdout meanwhile, so calls written ahead can never deadlock the two
//! sides (each blocked on a full pipe the other does not drain). On Unix the pipes are waited on with
//! `poll(2)` on the calling thread (no thread hand-off per line); elsewhere a reader and a
//! writer thread feed channels that are waited on with a timeout.

use std::process::{ChildStdin, ChildStdout};
use std::time::Instant;

use super::protocol::MAX_LINE;

/// What waiting for a line gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Received {
    /// One line, without its newline.
    Line(Vec<u8>),
    /// The child closed its stdout.
    Eof,
    /// Nothing complete before the deadline.
    TimedOut,
    /// More than [`MAX_LINE`] bytes without a newline.
    TooLong,
    /// Reading failed.
    Failed(String),
}

/// Why a line could not be sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unsent {
    /// The child closed its stdin (or exited).
    Closed,
    /// The child did not take the line before the deadline.
    TimedOut,
    Failed(String),
}

/// Received bytes, cut into lines.
#[derive(Debug, Default)]
struct Lines {
    buf: Vec<u8>,
    /// `buf[..scanned]` holds no newline.
    scanned: usize,
    /// The child closed its stdout.
    eof: bool,
    /// Where a read lands before it joins `buf`.
    #[cfg_attr(not(unix), allow(dead_code))]
    chunk: Option<Box<[u8]>>,
}

impl Lines {
    /// The bytes after the last line end (a line not finished yet).
    fn unfinished(&self) -> &[u8] {
        &self.buf
    }

    fn take(&mut self) -> Option<Vec<u8>> {
        let pos = self.scanned + self.buf[self.scanned..].iter().position(|b| *b == b'\n')?;
        let mut line: Vec<u8> = self.buf.drain(..=pos).collect();
        line.pop();
        self.scanned = 0;
        Some(line)
    }

    /// Is a complete line there?
    #[cfg(unix)]
    fn has_line(&self) -> bool {
        self.buf[self.scanned..].contains(&b'\n')
    }

    /// The next line: take what is buffered, else `fill` (read once, or end the receive).
    fn recv(&mut self, mut fill: impl FnMut(&mut Lines) -> Option<Received>) -> Received {
        loop {
            if let Some(r) = self.next() {
                return r;
            }
            if self.eof {
                return Received::Eof;
            }
            if let Some(r) = fill(self) {
                return r;
            }
        }
    }

    /// A complete line already buffered, if any.
    fn ready(&mut self) -> Option<Vec<u8>> {
        match self.next() {
            Some(Received::Line(l)) => Some(l),
            _ => None,
        }
    }

    /// Take a line, or say the partial one is too long.
    fn next(&mut self) -> Option<Received> {
        if let Some(line) = self.take() {
            return Some(if line.len() > MAX_LINE { Received::TooLong } else { Received::Line(line) });
        }
        self.scanned = self.buf.len();
        (self.buf.len() > MAX_LINE).then_some(Received::TooLong)
    }
}

#[cfg(unix)]
pub use poll::Pipe;
#[cfg(not(unix))]
pub use threaded::Pipe;

#[cfg(unix)]
mod poll {
    use std::io::{ErrorKind, Read, Write};
    use std::os::fd::AsRawFd;

    use super::*;

    /// The child's stdin and stdout, waited on with `poll(2)`.
    pub struct Pipe {
        stdin: Option<ChildStdin>,
        stdout: ChildStdout,
        lines: Lines,
    }

    /// Wait until `fd` has `events` or the deadline passes; `Ok(false)` on the deadline.
    fn wait(fd: i32, events: libc::c_short, deadline: Instant) -> std::io::Result<bool> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let ms = i32::try_from(left.as_millis() + u128::from(!left.subsec_nanos().is_multiple_of(1_000_000)))
                .unwrap_or(i32::MAX);
            let mut p = libc::pollfd { fd, events, revents: 0 };
            // SAFETY: one valid pollfd, for the duration of the call.
            let r = unsafe { libc::poll(&mut p, 1, ms) };
            match r {
                r if r < 0 => {
                    let e = std::io::Error::last_os_error();
                    if e.kind() != ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
                0 if ms == 0 || Instant::now() >= deadline => return Ok(false),
                0 => {}
                _ => return Ok(true),
            }
        }
    }

    /// Wait until `stdin` takes more or the deadline passes (`Ok(false)`), reading whatever the
    /// child writes meanwhile into `lines` (up to one read past [`MAX_LINE`] unread bytes).
    fn writable_or_pump(
        stdin: i32,
        stdout: &mut ChildStdout,
        lines: &mut Lines,
        deadline: Instant,
    ) -> std::io::Result<bool> {
        loop {
            let pump = !lines.eof && lines.buf.len() <= MAX_LINE;
            let left = deadline.saturating_duration_since(Instant::now());
            let ms = i32::try_from(left.as_millis() + u128::from(!left.subsec_nanos().is_multiple_of(1_000_000)))
                .unwrap_or(i32::MAX);
            let mut fds = [
                libc::pollfd { fd: stdin, events: libc::POLLOUT, revents: 0 },
                libc::pollfd { fd: stdout.as_raw_fd(), events: libc::POLLIN, revents: 0 },
            ];
            let n: libc::nfds_t = if pump { 2 } else { 1 };
            // SAFETY: `n` valid pollfds, for the duration of the call.
            let r = unsafe { libc::poll(fds.as_mut_ptr(), n, ms) };
            if r < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() != ErrorKind::Interrupted {
                    return Err(e);
                }
                continue;
            }
            if fds[0].revents != 0 {
                return Ok(true);
            }
            if pump && fds[1].revents != 0 {
                if let Some(Received::Failed(e)) = read_some(stdout, lines) {
                    return Err(std::io::Error::other(e));
                }
                continue;
            }
            if r == 0 && (ms == 0 || Instant::now() >= deadline) {
                return Ok(false);
            }
        }
    }

    /// Read once into `lines` (end of file marks it).
    fn read_some(stdout: &mut ChildStdout, lines: &mut Lines) -> Option<Received> {
        // One zeroed chunk for the pipe's life, not one per read.
        let chunk = lines.chunk.get_or_insert_with(|| vec![0; 64 * 1024].into_boxed_slice());
        match stdout.read(chunk) {
            Ok(0) => lines.eof = true,
            Ok(n) => lines.buf.extend_from_slice(&chunk[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::Interrupted | ErrorKind::WouldBlock) => {}
            Err(e) => return Some(Received::Failed(e.to_string())),
        }
        None
    }

    /// Read once, when something is there before `deadline`; `Some` ends the receive.
    fn fill(stdout: &mut ChildStdout, lines: &mut Lines, deadline: Instant) -> Option<Received> {
        match wait(stdout.as_raw_fd(), libc::POLLIN, deadline) {
            Ok(true) => {}
            Ok(false) => return Some(Received::TimedOut),
            Err(e) => return Some(Received::Failed(e.to_string())),
        }
        read_some(stdout, lines)
    }

    impl Pipe {
        /// What the child wrote after its last line end.
        pub fn unfinished(&self) -> &[u8] {
            self.lines.unfinished()
        }

        /// Take over the child's pipes.
        pub fn new(stdin: ChildStdin, stdout: ChildStdout) -> std::io::Result<Self> {
            let fd = stdin.as_raw_fd();
            // SAFETY: fcntl on a descriptor this process owns.
            let ok = unsafe {
                let flags = libc::fcntl(fd, libc::F_GETFL);
                flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) >= 0
            };
            if !ok {
                return Err(std::io::Error::last_os_error());
            }
            Ok(Self { stdin: Some(stdin), stdout, lines: Lines::default() })
        }

        /// Write `line` (its newline included) before `deadline`.
        pub fn send(&mut self, line: &[u8], deadline: Instant) -> Result<(), Unsent> {
            let Some(stdin) = self.stdin.as_mut() else { return Err(Unsent::Closed) };
            let mut done = 0;
            while done < line.len() {
                match stdin.write(&line[done..]) {
                    Ok(0) => return Err(Unsent::Closed),
                    Ok(n) => done += n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        // While the child's stdin is full, keep taking what it writes: a child
                        // answering calls written ahead blocks on a full stdout, and would
                        // never read on.
                        match writable_or_pump(stdin.as_raw_fd(), &mut self.stdout, &mut self.lines, deadline) {
                            Ok(true) => {}
                            Ok(false) => return Err(Unsent::TimedOut),
                            Err(e) => return Err(Unsent::Failed(e.to_string())),
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == ErrorKind::BrokenPipe => return Err(Unsent::Closed),
                    Err(e) => return Err(Unsent::Failed(e.to_string())),
                }
            }
            Ok(())
        }

        /// The next line, waiting until `deadline` at most.
        pub fn recv(&mut self, deadline: Instant) -> Received {
            let stdout = &mut self.stdout;
            self.lines.recv(|lines| fill(stdout, lines, deadline))
        }

        /// A line that is already there (written without being asked for), without waiting.
        pub fn unsolicited(&mut self) -> Option<Vec<u8>> {
            if !self.lines.has_line() && !self.lines.eof {
                fill(&mut self.stdout, &mut self.lines, Instant::now());
            }
            self.lines.ready()
        }

        /// Close the child's stdin (it reads end of input).
        pub fn close_input(&mut self) {
            self.stdin = None;
        }
    }
}

#[cfg(any(not(unix), test))]
mod threaded {
    use std::io::{Read, Write};
    use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};

    use super::*;

    enum Chunk {
        Data(Vec<u8>),
        Eof,
        Failed(String),
    }

    fn take(lines: &mut Lines, chunk: Chunk) -> Option<Received> {
        match chunk {
            Chunk::Data(d) => lines.buf.extend_from_slice(&d),
            Chunk::Eof => lines.eof = true,
            Chunk::Failed(e) => return Some(Received::Failed(e)),
        }
        None
    }

    /// The child's stdin and stdout, fed by a writer and a reader thread.
    pub struct Pipe {
        to_child: Option<Sender<Vec<u8>>>,
        from_child: Receiver<Chunk>,
        lines: Lines,
    }

    impl Pipe {
        /// What the child wrote after its last line end.
        #[cfg_attr(unix, allow(dead_code))]
        pub fn unfinished(&self) -> &[u8] {
            self.lines.unfinished()
        }

        /// Take over the child's pipes.
        pub fn new(mut stdin: ChildStdin, mut stdout: ChildStdout) -> std::io::Result<Self> {
            let (to_child, rx) = mpsc::channel::<Vec<u8>>();
            std::thread::Builder::new().name("adapter-stdin".into()).spawn(move || {
                for line in rx {
                    if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
                        break;
                    }
                }
            })?;
            let (tx, from_child) = mpsc::channel();
            std::thread::Builder::new().name("adapter-stdout".into()).spawn(move || {
                let mut chunk = vec![0u8; 64 * 1024];
                loop {
                    let msg = match stdout.read(&mut chunk) {
                        Ok(0) => Chunk::Eof,
                        Ok(n) => Chunk::Data(chunk[..n].to_vec()),
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(e) => Chunk::Failed(e.to_string()),
                    };
                    let last = !matches!(msg, Chunk::Data(_));
                    if tx.send(msg).is_err() || last {
                        break;
                    }
                }
            })?;
            Ok(Self { to_child: Some(to_child), from_child, lines: Lines::default() })
        }

        /// Queue `line` for the child (the writer thread writes it; a child that does not read
        /// shows as a missing reply).
        pub fn send(&mut self, line: &[u8], _deadline: Instant) -> Result<(), Unsent> {
            match &self.to_child {
                Some(tx) => tx.send(line.to_vec()).map_err(|_| Unsent::Closed),
                None => Err(Unsent::Closed),
            }
        }

        /// The next line, waiting until `deadline` at most.
        pub fn recv(&mut self, deadline: Instant) -> Received {
            let from_child = &self.from_child;
            self.lines.recv(|lines| {
                let left = deadline.saturating_duration_since(Instant::now());
                match from_child.recv_timeout(left) {
                    Ok(c) => take(lines, c),
                    Err(RecvTimeoutError::Timeout) => Some(Received::TimedOut),
                    Err(RecvTimeoutError::Disconnected) => take(lines, Chunk::Eof),
                }
            })
        }

        /// A line that is already there (written without being asked for), without waiting.
        pub fn unsolicited(&mut self) -> Option<Vec<u8>> {
            while let Ok(chunk) = self.from_child.try_recv() {
                take(&mut self.lines, chunk);
            }
            self.lines.ready()
        }

        /// Close the child's stdin (it reads end of input once the queue is written).
        pub fn close_input(&mut self) {
            self.to_child = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::process::{Child, Command, Stdio};
    use std::time::Duration;

    use super::*;

    fn sh(script: &str) -> (Child, ChildStdin, ChildStdout) {
        let mut child = Command::new("sh")
            .args(["-c", script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("sh runs");
        let (i, o) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
        (child, i, o)
    }

    fn soon(ms: u64) -> Instant {
        Instant::now() + Duration::from_millis(ms)
    }

    /// Run `f` against a child running `script`, once per pipe implementation.
    fn with_pipes(script: &str, f: impl Fn(&mut dyn Probe)) {
        #[cfg(unix)]
        {
            let (mut child, i, o) = sh(script);
            f(&mut super::poll::Pipe::new(i, o).unwrap());
            let _ = child.kill();
            let _ = child.wait();
        }
        let (mut child, i, o) = sh(script);
        f(&mut super::threaded::Pipe::new(i, o).unwrap());
        let _ = child.kill();
        let _ = child.wait();
    }

    trait Probe {
        fn send(&mut self, line: &[u8], deadline: Instant) -> Result<(), Unsent>;
        fn recv(&mut self, deadline: Instant) -> Received;
        fn unsolicited(&mut self) -> Option<Vec<u8>>;
        fn close_input(&mut self);
    }

    macro_rules! probe {
        ($t:ty) => {
            impl Probe for $t {
                fn send(&mut self, line: &[u8], deadline: Instant) -> Result<(), Unsent> {
                    <$t>::send(self, line, deadline)
                }
                fn recv(&mut self, deadline: Instant) -> Received {
                    <$t>::recv(self, deadline)
                }
                fn unsolicited(&mut self) -> Option<Vec<u8>> {
                    <$t>::unsolicited(self)
                }
                fn close_input(&mut self) {
                    <$t>::close_input(self)
                }
            }
        };
    }
    #[cfg(unix)]
    probe!(super::poll::Pipe);
    probe!(super::threaded::Pipe);

    #[test]
    fn lines_round_trip_and_extra_lines_wait_their_turn() {
        with_pipes("while read -r l; do echo \"got $l\"; echo extra; done", |p| {
            p.send(b"one\n", soon(2000)).unwrap();
            assert_eq!(p.recv(soon(2000)), Received::Line(b"got one".to_vec()));
            let until = soon(5000);
            let mut extra = None;
            while extra.is_none() && Instant::now() < until {
                extra = p.unsolicited();
                std::thread::sleep(Duration::from_millis(1));
            }
            assert_eq!(extra, Some(b"extra".to_vec()));
            assert_eq!(p.unsolicited(), None);
            p.close_input();
            assert_eq!(p.recv(soon(2000)), Received::Eof);
        });
    }

    #[test]
    fn silence_times_out_and_a_partial_line_is_not_a_line() {
        with_pipes("printf 'no newline'; sleep 5", |p| {
            let started = Instant::now();
            assert_eq!(p.recv(soon(150)), Received::TimedOut);
            assert!(started.elapsed() < Duration::from_secs(2));
        });
    }

    #[test]
    fn an_overlong_line_is_reported_without_waiting_for_its_end() {
        let script = format!("head -c {} /dev/zero | tr '\\0' x; sleep 5", MAX_LINE + 10);
        with_pipes(&script, |p| assert_eq!(p.recv(soon(10_000)), Received::TooLong));
    }

    #[test]
    fn a_child_that_never_reads_does_not_block_the_sender() {
        with_pipes("sleep 5", |p| {
            let big = vec![b'x'; 1 << 20];
            let started = Instant::now();
            let sent = p.send(&big, soon(150));
            // The poll pipe reports the full pipe; the threaded one queues the line.
            assert!(matches!(sent, Ok(()) | Err(Unsent::TimedOut)), "{sent:?}");
            assert!(started.elapsed() < Duration::from_secs(2));
        });
    }

    #[test]
    fn a_send_keeps_reading_what_the_child_writes_so_neither_side_blocks() {
        // The child answers before it reads on (as it does with calls written ahead): 1 MiB of
        // output, more than any pipe holds, then it reads everything. A send that only waited
        // for the child's stdin would wait for ever; this one takes the output meanwhile.
        with_pipes("head -c 1048576 /dev/zero | tr '\\0' x; echo; cat >/dev/null; echo done", |p| {
            let big = vec![b'y'; 1 << 20];
            p.send(&big, soon(10_000)).expect("the send completes");
            let line = p.recv(soon(10_000));
            assert_eq!(line, Received::Line(vec![b'x'; 1 << 20]));
            p.close_input();
            assert_eq!(p.recv(soon(10_000)), Received::Line(b"done".to_vec()));
        });
    }

    #[test]
    fn a_child_that_exits_is_end_of_input_and_a_closed_stdin() {
        with_pipes("exit 3", |p| {
            assert_eq!(p.recv(soon(2000)), Received::Eof);
            std::thread::sleep(Duration::from_millis(20));
            let sent = p.send(b"x\n", soon(500));
            assert!(matches!(sent, Err(Unsent::Closed) | Ok(())), "{sent:?}");
        });
    }

    #[test]
    fn lines_are_cut_at_newlines_only() {
        let mut l = Lines::default();
        l.buf.extend_from_slice(b"a\r\nbc");
        assert_eq!(l.next(), Some(Received::Line(b"a\r".to_vec())));
        assert_eq!(l.next(), None);
        l.buf.extend_from_slice(b"d\n");
        assert_eq!(l.next(), Some(Received::Line(b"bcd".to_vec())));
    }
}
