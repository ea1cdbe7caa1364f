//! Viewing slices of plain numbers as bytes and back, for writing arrays to files and
//! reading memory-mapped files without a copy. Only the types below implement `Pod`: each
//! has no padding and every bit pattern is a valid value, which is what makes the casts sound.

/// # Safety
/// Implementors must have no padding bytes and accept every bit pattern.
pub(crate) unsafe trait Pod: Copy + Send + Sync + 'static {
    /// The all-zero value, for allocating read buffers.
    fn zeroed() -> Self {
        // SAFETY: every bit pattern, zero included, is a valid value of a Pod type.
        unsafe { std::mem::zeroed() }
    }
}

unsafe impl Pod for u32 {}
unsafe impl Pod for u64 {}
unsafe impl Pod for i32 {}
unsafe impl Pod for f32 {}

pub(crate) fn as_bytes<T: Pod>(values: &[T]) -> &[u8] {
    // SAFETY: T is Pod (no padding), u8 has alignment 1, the length covers exactly the slice.
    unsafe {
        std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
    }
}

pub(crate) fn as_bytes_mut<T: Pod>(values: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `as_bytes`; any bytes written are a valid T because T accepts every bit pattern.
    unsafe {
        std::slice::from_raw_parts_mut(
            values.as_mut_ptr().cast::<u8>(),
            std::mem::size_of_val(values),
        )
    }
}

/// `bytes` as a slice of `T`, or `None` when it is misaligned or not a whole number of `T`s.
pub(crate) fn try_cast<T: Pod>(bytes: &[u8]) -> Option<&[T]> {
    // SAFETY: T is Pod, so any bytes form valid values; `align_to` handles alignment.
    let (head, values, tail) = unsafe { bytes.align_to::<T>() };
    (head.is_empty() && tail.is_empty()).then_some(values)
}
