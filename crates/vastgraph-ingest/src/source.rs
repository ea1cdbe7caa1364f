//! Opening an input as a byte stream: decompression on the fly (gzip, zstd) and a counter
//! of the on-disk bytes consumed, for progress reporting.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::format::Compression;
use crate::IngestError;

/// Size of the reads from the underlying file (and of the decompressors' input buffers).
const FILE_READ_BYTES: usize = 1 << 20;

/// A decompressed input stream. `Send` so that a reader thread can own it.
pub(crate) type InputStream = Box<dyn Read + Send>;

/// Opens `path`, decompressing according to its extension. `consumed` is increased by the
/// number of on-disk (compressed) bytes read so far.
pub(crate) fn open_input(
    path: &Path,
    consumed: Arc<AtomicU64>,
) -> Result<InputStream, IngestError> {
    let file = File::open(path).map_err(|e| IngestError::io(path, e))?;
    if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
        return Err(IngestError::invalid(
            path,
            "is a directory, not an input file",
        ));
    }
    let counted = CountingReader {
        inner: file,
        consumed,
    };
    Ok(match Compression::of(path) {
        Compression::None => Box::new(counted),
        // Multi-member gzip (as written by pigz or by concatenation) must be read whole.
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(
            io::BufReader::with_capacity(FILE_READ_BYTES, counted),
        )),
        Compression::Zstd => Box::new(
            zstd::stream::read::Decoder::with_buffer(io::BufReader::with_capacity(
                FILE_READ_BYTES,
                counted,
            ))
            .map_err(|e| IngestError::io(path, e))?,
        ),
    })
}

/// [`open_input`] for a text format: a UTF-8 byte order mark at the start (as spreadsheet
/// programs write one) is not part of the first line. Left in, it made the first vertex's
/// label "\u{feff}a", another vertex than the "a" of the lines after, or the first line a
/// header of "\u{feff}0" to skip.
pub(crate) fn open_text_input(
    path: &Path,
    consumed: Arc<AtomicU64>,
) -> Result<InputStream, IngestError> {
    let mut stream = open_input(path, consumed)?;
    let mut head = [0u8; 3];
    let read = read_full(&mut stream, &mut head).map_err(|e| IngestError::io(path, e))?;
    if head[..read] == [0xEF, 0xBB, 0xBF] {
        return Ok(stream);
    }
    // Spreadsheet programs' "Unicode text": every other byte a NUL, which no line parses.
    if matches!(head[..read.min(2)], [0xFF, 0xFE] | [0xFE, 0xFF]) {
        return Err(IngestError::invalid(
            path,
            "is UTF-16 text (it starts with a UTF-16 byte order mark), and text inputs are \
             UTF-8: convert it first, e.g. `iconv -f UTF-16 -t UTF-8 IN > OUT`",
        ));
    }
    Ok(Box::new(
        io::Cursor::new(head[..read].to_vec()).chain(stream),
    ))
}

/// [`open_text_input`] for callers that do not track progress.
pub(crate) fn open_text_input_uncounted(path: &Path) -> Result<InputStream, IngestError> {
    open_text_input(path, Arc::new(AtomicU64::new(0)))
}

/// Reads into `buf` until it is full or the stream ends; returns the number of bytes read.
/// Unlike `read_exact`, a short final read is not an error.
pub(crate) fn read_full(stream: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match stream.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

struct CountingReader<R> {
    inner: R,
    consumed: Arc<AtomicU64>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn read_all(path: &Path) -> Vec<u8> {
        let mut out = Vec::new();
        open_text_input_uncounted(path)
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    #[test]
    fn decompresses_gzip_members_and_zstd_and_counts_disk_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"1 2\n3 4\n".repeat(1000);

        // Two concatenated gzip members: a plain GzDecoder would stop after the first.
        let gz = dir.path().join("g.tsv.gz");
        let mut bytes = Vec::new();
        for half in text.chunks(text.len() / 2) {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(half).unwrap();
            bytes.extend(enc.finish().unwrap());
        }
        std::fs::write(&gz, &bytes).unwrap();
        assert_eq!(read_all(&gz), text);

        let zst = dir.path().join("g.tsv.zst");
        let compressed = zstd::encode_all(&text[..], 3).unwrap();
        std::fs::write(&zst, &compressed).unwrap();
        let consumed = Arc::new(AtomicU64::new(0));
        let mut out = Vec::new();
        open_input(&zst, consumed.clone())
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, text);
        assert_eq!(consumed.load(Ordering::Relaxed), compressed.len() as u64);
    }

    #[test]
    fn a_utf8_byte_order_mark_is_dropped_and_utf16_text_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let utf8 = dir.path().join("a.csv");
        std::fs::write(&utf8, b"\xEF\xBB\xBF1,2\n").unwrap();
        assert_eq!(read_all(&utf8), b"1,2\n");
        for bom in [[0xFF, 0xFE], [0xFE, 0xFF]] {
            let utf16 = dir.path().join("u.tsv");
            std::fs::write(&utf16, [&bom[..], b"1\x00\t\x002\x00"].concat()).unwrap();
            let err = open_text_input_uncounted(&utf16).err().unwrap().to_string();
            assert!(
                err.contains("u.tsv") && err.contains("UTF-16") && err.contains("iconv"),
                "{err}"
            );
        }
    }

    #[test]
    fn missing_file_error_names_the_path() {
        let err = open_text_input_uncounted(Path::new("/nonexistent/x.tsv"))
            .err()
            .unwrap();
        assert!(err.to_string().contains("/nonexistent/x.tsv"), "{err}");
    }
}
