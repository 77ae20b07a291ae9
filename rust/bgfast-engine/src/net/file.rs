//! bgfast's own net file (`.bgnet`): versioned, checksummed, and the shipped wildbg net.
//!
//! A file that is not a net file, from another version, truncated, altered or structurally
//! wrong is refused with an error that says which; nothing in it is trusted before it is
//! checked, and no length or count is used to allocate before the bytes it claims are
//! known to be there. All numbers are little-endian.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `"BGFNET\r\n"` ([`MAGIC`]) |
//! | 8 | 4 | format version, u32 ([`FORMAT_VERSION`]) |
//! | 12 | 8 | payload length in bytes, u64 |
//! | 20 | 8 | FNV-1a 64 of the payload, u64 |
//! | 28 | - | payload |
//!
//! The payload:
//!
//! | size | field |
//! |---|---|
//! | 1 + n | input encoding: length u8, then its ASCII name ([`Inputs::name`]) |
//! | 4 | part count, u32: 1 (contact only) or 2 (contact, then race) |
//! | | per part: |
//! | 4 | layer count, u32 |
//! | | per layer: |
//! | 4 | inputs, u32 |
//! | 4 | outputs, u32 |
//! | 1 + n | activation: length u8, then its ASCII name ([`Activation::name`]) |
//! | 4 x outputs x inputs | weights, f32, row-major `[outputs][inputs]` |
//! | 4 x outputs | bias, f32 |
//!
//! The `\r\n` in the magic catches a file mangled by a text-mode copy, as PNG's does. The
//! checksum detects damage, not tampering: a file whose checksum was recomputed after an edit
//! is still parsed with every check, and the net it holds is validated like any other
//! ([`Dense::new`], [`Mlp::new`], [`Net::new`]).

use core::fmt;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bgfast_core::bearoff::file::fnv1a64;

use super::{Activation, Dense, Inputs, Mlp, Net, NetError};

/// The file magic.
pub const MAGIC: [u8; 8] = *b"BGFNET\r\n";
/// Bumped whenever the layout or the meaning of the numbers changes.
pub const FORMAT_VERSION: u32 = 1;
/// Bytes before the payload.
pub const HEADER: usize = 28;
/// The longest file [`Net::load`] reads (1 GiB): longer is refused before reading.
pub const MAX_FILE_LEN: u64 = 1 << 30;

/// The shipped net: wildbg's contact and race nets, converted unchanged (`nets/NOTICE.md`).
static WILDBG: &[u8] = include_bytes!("../../nets/wildbg.bgnet");
/// wildbg's larger training nets (contact 12, race 16), converted unchanged.
static WILDBG_LARGE: &[u8] = include_bytes!("../../nets/wildbg-large.bgnet");

/// The smallest layer record: inputs, outputs, an activation name of length 0.
const MIN_LAYER_BYTES: usize = 4 + 4 + 1;
/// The part names, in file order.
const PARTS: [&str; 2] = ["contact", "race"];

/// Why bytes or a file are not a net bgfast can use.
#[derive(Debug)]
pub enum FileError {
    /// The file does not start with [`MAGIC`].
    BadMagic,
    /// Written in another format version.
    Version {
        /// The version found.
        found: u32,
    },
    /// The file ends before something it announces.
    Truncated(String),
    /// Bytes after the payload the header announces, or after the last part in the payload.
    TrailingBytes {
        /// How many.
        extra: u64,
    },
    /// The payload does not match its checksum.
    Checksum,
    /// An input encoding bgfast does not know.
    UnknownInputs(String),
    /// An activation bgfast does not know.
    UnknownActivation {
        /// `"contact"` or `"race"`.
        part: &'static str,
        /// The layer, from 0.
        layer: usize,
        /// The name found.
        name: String,
    },
    /// A structural field out of range (part count, a name that is not ASCII).
    Malformed(String),
    /// The layers were read but do not make a net.
    Invalid(NetError),
    /// Reading or writing `path` failed (also: not a regular file, or too large to be a net).
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
}

impl FileError {
    /// Whether the file was refused for want of memory (to read it or to hold its net),
    /// not for what it holds.
    pub fn is_out_of_memory(&self) -> bool {
        match self {
            FileError::Invalid(e) => e.is_out_of_memory(),
            FileError::Io { source, .. } => source.kind() == io::ErrorKind::OutOfMemory,
            _ => false,
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::BadMagic => f.write_str("not a bgfast net file (bad magic)"),
            FileError::Version { found } => write!(
                f,
                "net file version {found}; this bgfast reads version {FORMAT_VERSION}"
            ),
            FileError::Truncated(what) => write!(f, "truncated: {what}"),
            FileError::TrailingBytes { extra } => {
                write!(f, "{extra} trailing bytes after the net")
            }
            FileError::Checksum => f.write_str("checksum mismatch (file damaged)"),
            FileError::UnknownInputs(name) => write!(
                f,
                "unknown input encoding {name:?}; bgfast knows {}",
                known(Inputs::ALL.map(Inputs::name))
            ),
            FileError::UnknownActivation { part, layer, name } => write!(
                f,
                "{part} part, layer {layer}: unknown activation {name:?}; bgfast knows {}",
                known(Activation::ALL.map(Activation::name))
            ),
            FileError::Malformed(what) => write!(f, "malformed net file: {what}"),
            // No memory for a good net is no fault of the net.
            FileError::Invalid(e @ NetError::OutOfMemory { .. }) => write!(f, "{e}"),
            FileError::Invalid(e) => write!(f, "bad net: {e}"),
            FileError::Io { path, source } => {
                write!(f, "I/O error on {}: {source}", path.display())
            }
        }
    }
}

fn known(names: impl IntoIterator<Item = &'static str>) -> String {
    names.into_iter().collect::<Vec<_>>().join(", ")
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FileError::Invalid(e) => Some(e),
            FileError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<NetError> for FileError {
    fn from(e: NetError) -> FileError {
        FileError::Invalid(e)
    }
}

/// Reads all of `path` if it is a regular file of at most `max` bytes: the size is checked
/// before anything is read, and the read stops after `max` bytes in case the file grows.
pub(crate) fn read_capped(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    // Checked before opening: opening a FIFO for reading would block.
    if !fs::metadata(path)?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    if len > max {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("{len} bytes; a net file may have at most {max}"),
        ));
    }
    let mut bytes = Vec::new();
    // Fallible: a file of up to a gigabyte must not abort the process under a memory limit.
    bytes.try_reserve_exact(len as usize).map_err(|_| {
        io::Error::new(
            io::ErrorKind::OutOfMemory,
            format!("cannot allocate {len} bytes to read it"),
        )
    })?;
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("grew past {max} bytes while being read"),
        ));
    }
    Ok(bytes)
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, flushed to disk, then
/// renamed over it, so a reader sees the old file or the new one, never a part.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let Some(name) = path.file_name() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path names no file",
        ));
    };
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(name);
    temp_name.push(format!(".{}.tmp", std::process::id()));
    let temp = path.with_file_name(temp_name);
    let written = (|| {
        let mut file = File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if written.is_err() {
        // Best effort: the error that matters is the write's.
        let _ = fs::remove_file(&temp);
        return written;
    }
    // Make the rename itself durable where directories can be synced.
    #[cfg(unix)]
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// A cursor over bytes that checks every read against what is left.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: impl FnOnce() -> String) -> Result<&'a [u8], FileError> {
        if self.bytes.len() < n {
            return Err(FileError::Truncated(format!(
                "{} needs {n} bytes, {} are left",
                what(),
                self.bytes.len()
            )));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn u32(&mut self, what: impl FnOnce() -> String) -> Result<u32, FileError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A name: length u8, then ASCII.
    fn name(&mut self, what: impl Fn() -> String) -> Result<&'a str, FileError> {
        let len = self.take(1, &what)?[0] as usize;
        let bytes = self.take(len, &what)?;
        if !bytes.is_ascii() {
            return Err(FileError::Malformed(format!(
                "{} is not ASCII: \"{}\"",
                what(),
                bytes.escape_ascii()
            )));
        }
        // ASCII is UTF-8.
        Ok(core::str::from_utf8(bytes).unwrap_or_default())
    }

    fn u64(&mut self, what: impl FnOnce() -> String) -> Result<u64, FileError> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// `n` floats, `n` checked against what is left before anything is allocated.
    fn floats(&mut self, n: u64, what: impl FnOnce() -> String) -> Result<Vec<f32>, FileError> {
        let left = self.bytes.len();
        let Some(len) = n.checked_mul(4).filter(|&len| len <= left as u64) else {
            return Err(FileError::Truncated(format!(
                "{} claims {n} floats, {left} bytes are left",
                what()
            )));
        };
        let (head, rest) = self.bytes.split_at(len as usize);
        self.bytes = rest;
        let mut floats = Vec::new();
        floats
            .try_reserve_exact(n as usize)
            .map_err(|_| NetError::OutOfMemory {
                bytes: len as usize,
            })?;
        floats.extend(
            head.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        );
        Ok(floats)
    }
}

fn put_name(out: &mut Vec<u8>, name: &str) {
    // Every name written is one of bgfast's own short ASCII names.
    debug_assert!(name.is_ascii() && name.len() <= u8::MAX as usize);
    out.push(name.len() as u8);
    out.extend_from_slice(name.as_bytes());
}

fn put_part(out: &mut Vec<u8>, part: &Mlp) {
    out.extend_from_slice(&(part.layers().len() as u32).to_le_bytes());
    for layer in part.layers() {
        out.extend_from_slice(&(layer.inputs() as u32).to_le_bytes());
        out.extend_from_slice(&(layer.outputs() as u32).to_le_bytes());
        put_name(out, layer.activation().name());
        for v in layer.weights().iter().chain(layer.bias()) {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

fn read_part(r: &mut Reader<'_>, part: &'static str) -> Result<Mlp, FileError> {
    let count = r.u32(|| format!("the {part} part's layer count"))? as usize;
    if count > r.bytes.len() / MIN_LAYER_BYTES {
        return Err(FileError::Truncated(format!(
            "the {part} part claims {count} layers, {} bytes are left",
            r.bytes.len()
        )));
    }
    let mut layers = Vec::with_capacity(count);
    for layer in 0..count {
        let at = || format!("the {part} part, layer {layer}");
        let inputs = r.u32(|| format!("{}'s inputs", at()))? as usize;
        let outputs = r.u32(|| format!("{}'s outputs", at()))? as usize;
        let name = r.name(|| format!("{}'s activation", at()))?;
        let activation =
            Activation::from_name(name).ok_or_else(|| FileError::UnknownActivation {
                part,
                layer,
                name: name.to_string(),
            })?;
        let weights = r.floats(inputs as u64 * outputs as u64, || {
            format!("{} ({outputs} x {inputs} weights)", at())
        })?;
        let bias = r.floats(outputs as u64, || format!("{}'s bias", at()))?;
        layers.push(Dense::new(
            layer, inputs, outputs, weights, bias, activation,
        )?);
    }
    Ok(Mlp::new(layers)?)
}

impl Net {
    /// The net as `.bgnet` file bytes (see the [module docs](self) for the layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let weights: usize = core::iter::once(self.contact())
            .chain(self.race())
            .flat_map(Mlp::layers)
            .map(|l| l.weights().len() + l.bias().len())
            .sum();
        let mut payload = Vec::with_capacity(64 + 4 * weights);
        put_name(&mut payload, self.inputs().name());
        let parts = 1 + self.race().is_some() as u32;
        payload.extend_from_slice(&parts.to_le_bytes());
        put_part(&mut payload, self.contact());
        if let Some(race) = self.race() {
            put_part(&mut payload, race);
        }
        let mut out = Vec::with_capacity(HEADER + payload.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&fnv1a64(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    /// Reads `.bgnet` file bytes written by [`Net::to_bytes`]: magic, version, length and
    /// checksum first, then every field, and the net is validated as [`Net::new`] does.
    /// Weights come back bit for bit.
    pub fn from_bytes(bytes: &[u8]) -> Result<Net, FileError> {
        // A short file that is not even the start of the magic is no net file at all.
        if !MAGIC.starts_with(&bytes[..bytes.len().min(MAGIC.len())]) {
            return Err(FileError::BadMagic);
        }
        if bytes.len() < HEADER {
            return Err(FileError::Truncated(format!(
                "the header needs {HEADER} bytes, the file has {}",
                bytes.len()
            )));
        }
        let mut header = Reader {
            bytes: &bytes[MAGIC.len()..],
        };
        let version = header.u32(|| String::from("the version"))?;
        if version != FORMAT_VERSION {
            return Err(FileError::Version { found: version });
        }
        let len = header.u64(|| String::from("the payload length"))?;
        let checksum = header.u64(|| String::from("the checksum"))?;
        let payload = header.bytes;
        let have = payload.len() as u64;
        if have < len {
            return Err(FileError::Truncated(format!(
                "the header announces a payload of {len} bytes, the file holds {have}"
            )));
        }
        if have > len {
            return Err(FileError::TrailingBytes { extra: have - len });
        }
        if fnv1a64(payload) != checksum {
            return Err(FileError::Checksum);
        }
        let mut r = Reader { bytes: payload };
        let name = r.name(|| String::from("the input encoding"))?;
        let inputs =
            Inputs::from_name(name).ok_or_else(|| FileError::UnknownInputs(name.to_string()))?;
        let parts = r.u32(|| String::from("the part count"))?;
        if !(1..=2).contains(&parts) {
            return Err(FileError::Malformed(format!(
                "{parts} parts; a net has 1 (contact) or 2 (contact and race)"
            )));
        }
        let contact = read_part(&mut r, PARTS[0])?;
        let race = if parts == 2 {
            Some(read_part(&mut r, PARTS[1])?)
        } else {
            None
        };
        if !r.bytes.is_empty() {
            return Err(FileError::TrailingBytes {
                extra: r.bytes.len() as u64,
            });
        }
        Ok(Net::new(inputs, contact, race)?)
    }

    /// Writes the net to `path` atomically (a temporary file beside it, synced, then
    /// renamed over it): a crash leaves the old file or the new one.
    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        write_atomic(path, &self.to_bytes()).map_err(|source| FileError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Reads a `.bgnet` file: only a regular file of at most [`MAX_FILE_LEN`] bytes, the
    /// size checked before it is read.
    pub fn load(path: &Path) -> Result<Net, FileError> {
        let bytes = read_capped(path, MAX_FILE_LEN).map_err(|source| FileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Net::from_bytes(&bytes)
    }

    /// wildbg's nets, shipped with bgfast (wildbg encoding; a 202-150-6 contact part and a
    /// 186-16-6 race part, tanh then softmax; MIT OR Apache-2.0, see `nets/NOTICE.md`).
    /// Parsed on first use and kept.
    pub fn wildbg() -> &'static Net {
        static NET: OnceLock<Net> = OnceLock::new();
        NET.get_or_init(|| {
            // The bytes are part of the build and checked by tests/net_files.rs: failing here
            // means the build shipped a damaged file, not that a user supplied one.
            Net::from_bytes(WILDBG).expect("the shipped nets/wildbg.bgnet is a valid net file")
        })
    }

    /// wildbg's larger training nets, shipped with bgfast (wildbg encoding; contact net 17,
    /// 202-300-250-200-6 with hard sigmoids, and race net 16, 186-300-250-200-6 with ReLU,
    /// then softmax; CC0, see `nets/NOTICE.md`): about 0.45 points a game stronger than
    /// [`Net::wildbg`] in cubeless money play, and about ten times its cost per position.
    /// Parsed on first use and kept.
    pub fn wildbg_large() -> &'static Net {
        static NET: OnceLock<Net> = OnceLock::new();
        NET.get_or_init(|| {
            // Checked by tests/net_files.rs, as the small net.
            Net::from_bytes(WILDBG_LARGE)
                .expect("the shipped nets/wildbg-large.bgnet is a valid net file")
        })
    }
}
