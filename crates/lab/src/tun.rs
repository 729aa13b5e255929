//! A TUN device by hand: open /dev/net/tun and TUNSETIFF (a few lines, no crate needed).

use crate::LabError;
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;

/// Create TUN device `name` in the calling thread's network namespace, IP packets without a
/// packet-information header, non-blocking. It disappears when the file is closed.
pub(crate) fn open(name: &str) -> Result<File, LabError> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open("/dev/net/tun")
        .map_err(LabError::io("opening /dev/net/tun"))?;
    // SAFETY: ifreq is plain data; all-zero is a valid value.
    let mut request: libc::ifreq = unsafe { std::mem::zeroed() };
    if name.len() >= request.ifr_name.len() {
        return Err(LabError::Io {
            what: format!("TUN device name {name:?}"),
            source: std::io::ErrorKind::InvalidInput.into(),
        });
    }
    for (slot, byte) in request.ifr_name.iter_mut().zip(name.bytes()) {
        *slot = byte as libc::c_char;
    }
    request.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
    // SAFETY: TUNSETIFF reads and writes one ifreq, which outlives the call.
    if unsafe { libc::ioctl(file.as_raw_fd(), libc::TUNSETIFF, &mut request) } != 0 {
        return Err(LabError::Io {
            what: format!("creating TUN device {name}"),
            source: std::io::Error::last_os_error(),
        });
    }
    Ok(file)
}
