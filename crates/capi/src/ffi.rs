//! Crossing the boundary: borrowed inputs checked for null and UTF-8, panics caught, the
//! last error kept per thread, strings handed out and taken back.

use crate::status::{Failure, TrellisStatus, TRELLIS_ERR_RTI_INTERNAL_ERROR, TRELLIS_OK};
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Order types, as the C++ API numbers them.
pub const TRELLIS_ORDER_RECEIVE: i32 = 1;
pub const TRELLIS_ORDER_TIMESTAMP: i32 = 2;
/// Transportation types, as the C++ API numbers them.
pub const TRELLIS_TRANSPORT_RELIABLE: i32 = 1;
pub const TRELLIS_TRANSPORT_BEST_EFFORT: i32 = 2;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// A byte buffer borrowed for the duration of a call (or of a callback).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TrellisBytes {
    pub data: *const u8,
    pub len: usize,
}

/// One attribute or parameter value: its handle and its bytes.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TrellisHandleValue {
    pub handle: u64,
    pub value: TrellisBytes,
}

impl TrellisBytes {
    pub(crate) fn of(bytes: &[u8]) -> TrellisBytes {
        TrellisBytes {
            data: bytes.as_ptr(),
            len: bytes.len(),
        }
    }

    /// # Safety
    /// `data` must point at `len` readable bytes (or be null with `len` 0).
    pub(crate) unsafe fn as_slice<'a>(self, what: &str) -> Result<&'a [u8], Failure> {
        slice(self.data, self.len, what)
    }
}

/// Run one entry point: its failure (or panic) becomes a status and the thread's last error.
pub(crate) fn entry(body: impl FnOnce() -> Result<(), Failure>) -> TrellisStatus {
    let outcome = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(Failure::new(
            TRELLIS_ERR_RTI_INTERNAL_ERROR,
            format!("internal error (panic): {why}"),
        ))
    });
    match outcome {
        Ok(()) => TRELLIS_OK,
        Err(failure) => {
            set_last_error(&failure.message);
            failure.status
        }
    }
}

/// `text` as a C string: an interior NUL (which C would read as the end) becomes a space.
pub(crate) fn c_string(text: &str) -> CString {
    CString::new(text.replace('\0', " ")).unwrap_or_default()
}

pub(crate) fn set_last_error(message: &str) {
    let text = c_string(message);
    LAST_ERROR.with(|last| *last.borrow_mut() = text);
}

/// The message of the last failed call on this thread (UTF-8, NUL-terminated); valid until
/// the next call on the same thread. Empty when nothing failed yet.
#[no_mangle]
pub extern "C" fn trellis_last_error() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// Frees a string the library returned. NULL is allowed.
#[no_mangle]
pub extern "C" fn trellis_string_free(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: the library made it with CString::into_raw (see `give_string`).
        drop(unsafe { CString::from_raw(s) });
    }
}

/// Hand a string to the caller, who frees it with trellis_string_free.
pub(crate) fn give_string(text: &str, out: *mut *mut c_char) -> Result<(), Failure> {
    let out = out_ref(out, "out")?;
    *out = c_string(text).into_raw();
    Ok(())
}

/// # Safety
/// `text` must be null or point at a NUL-terminated string.
pub(crate) unsafe fn text<'a>(text: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if text.is_null() {
        return Err(Failure::internal(format!("{what} is NULL")));
    }
    CStr::from_ptr(text)
        .to_str()
        .map_err(|_| Failure::internal(format!("{what} is not UTF-8")))
}

/// # Safety
/// As `text`; NULL and "" give None.
pub(crate) unsafe fn optional_text<'a>(
    value: *const c_char,
    what: &str,
) -> Result<Option<&'a str>, Failure> {
    if value.is_null() {
        return Ok(None);
    }
    let value = text(value, what)?;
    Ok((!value.is_empty()).then_some(value))
}

/// # Safety
/// `data` must point at `len` readable values (or be null with `len` 0).
pub(crate) unsafe fn slice<'a, T>(
    data: *const T,
    len: usize,
    what: &str,
) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if data.is_null() {
        return Err(Failure::internal(format!(
            "{what} is NULL with a count of {len}"
        )));
    }
    Ok(std::slice::from_raw_parts(data, len))
}

/// # Safety
/// As `slice`, for an array of C strings.
pub(crate) unsafe fn texts<'a>(
    data: *const *const c_char,
    len: usize,
    what: &str,
) -> Result<Vec<&'a str>, Failure> {
    slice(data, len, what)?
        .iter()
        .map(|&p| text(p, what))
        .collect()
}

pub(crate) fn out_ref<'a, T>(out: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: non-null output pointers are the caller's to give valid (header contract).
    unsafe { out.as_mut() }.ok_or_else(|| Failure::internal(format!("{what} is NULL")))
}

/// Write an output value where the caller asked (NULL: not wanted).
pub(crate) fn put<T>(out: *mut T, value: T) {
    // SAFETY: as `out_ref`.
    if let Some(out) = unsafe { out.as_mut() } {
        *out = value;
    }
}

/// Write handles into the caller's array: min(count, capacity) of them, and the count.
pub(crate) fn put_handles(
    values: impl ExactSizeIterator<Item = u64>,
    out: *mut u64,
    capacity: usize,
    len: *mut usize,
) -> Result<(), Failure> {
    let count = values.len();
    *out_ref(len, "len")? = count;
    if capacity > 0 {
        if out.is_null() {
            return Err(Failure::internal("out is NULL with a capacity"));
        }
        for (i, value) in values.take(capacity).enumerate() {
            // SAFETY: the caller gave `capacity` writable slots at `out`.
            unsafe { *out.add(i) = value };
        }
    }
    Ok(())
}
