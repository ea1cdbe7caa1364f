//! Writes 1-D and 2-D arrays in NumPy's `.npy` format (version 1.0), which `numpy.load` reads.

use std::io::{self, Write};

/// An element type with a NumPy dtype code.
pub trait NpyElement: Copy {
    const DESCR: &'static str;
    fn write_le(self, out: &mut Vec<u8>);
}

macro_rules! npy_element {
    ($t:ty, $d:expr) => {
        impl NpyElement for $t {
            const DESCR: &'static str = $d;
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    };
}
npy_element!(i64, "<i8");
npy_element!(u64, "<u8");
npy_element!(u32, "<u4");
npy_element!(i32, "<i4");
npy_element!(f64, "<f8");
npy_element!(u8, "|u1");

fn header(descr: &str, shape: &str) -> Vec<u8> {
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // Magic (6) + version (2) + header length (2) + dict + padding + newline, a multiple of 64.
    let unpadded = 10 + dict.len() + 1;
    let pad = (64 - unpadded % 64) % 64;
    let mut h = Vec::with_capacity(unpadded + pad);
    h.extend_from_slice(b"\x93NUMPY\x01\x00");
    h.extend_from_slice(&((dict.len() + pad + 1) as u16).to_le_bytes());
    h.extend_from_slice(dict.as_bytes());
    h.extend(std::iter::repeat_n(b' ', pad));
    h.push(b'\n');
    h
}

/// `rows` × `cols` array, row-major; `cols == 1` writes a 1-D array of length `rows`.
pub fn write_npy<T: NpyElement, W: Write>(out: &mut W, data: &[T], cols: usize) -> io::Result<()> {
    let shape = if cols == 1 {
        format!("({},)", data.len())
    } else {
        format!("({}, {cols})", data.len() / cols)
    };
    out.write_all(&header(T::DESCR, &shape))?;
    let mut buf = Vec::with_capacity(1 << 20);
    for chunk in data.chunks(1 << 17) {
        buf.clear();
        chunk.iter().for_each(|x| x.write_le(&mut buf));
        out.write_all(&buf)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_aligned_and_parsable() {
        let mut out = Vec::new();
        write_npy(&mut out, &[1.5f64, -2.0, 3.0], 1).unwrap();
        assert_eq!(&out[..6], b"\x93NUMPY");
        let hlen = u16::from_le_bytes([out[8], out[9]]) as usize;
        assert_eq!((10 + hlen) % 64, 0);
        let dict = std::str::from_utf8(&out[10..10 + hlen]).unwrap();
        assert!(dict.contains("'descr': '<f8'") && dict.contains("'shape': (3,)"));
        assert_eq!(out.len(), 10 + hlen + 24);
        assert_eq!(
            f64::from_le_bytes(out[10 + hlen..18 + hlen].try_into().unwrap()),
            1.5
        );
        let mut two = Vec::new();
        write_npy(&mut two, &[1u32, 2, 3, 4], 2).unwrap();
        let hlen2 = u16::from_le_bytes([two[8], two[9]]) as usize;
        assert!(std::str::from_utf8(&two[10..10 + hlen2])
            .unwrap()
            .contains("'shape': (2, 2)"));
        assert_eq!(two.len(), 10 + hlen2 + 16);
    }
}
