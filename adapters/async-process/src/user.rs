//! `Options::user`: the uid and primary gid of the user the CLI runs as.

use std::ffi::CString;
use std::io;

/// The user id of `user`, a user name or a numeric user id, and its primary group id, from the
/// system's user database (so NSS sources such as LDAP count too). A numeric id the database
/// does not know is taken as it is, with no group.
pub(crate) fn user_ids(user: &str) -> io::Result<(u32, Option<u32>)> {
    let not_found = || io::Error::new(io::ErrorKind::NotFound, format!("no user {user:?}"));
    let name = CString::new(user).map_err(|_| not_found())?;
    let uid: Option<libc::uid_t> = user.parse().ok();
    let mut buf = vec![0 as libc::c_char; 1024];
    loop {
        // SAFETY: all-zero bytes are a valid `passwd` (null pointers and zero ids); it is only
        // read after getpw*_r filled it.
        let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        // SAFETY: every pointer is valid for the call: `name` is NUL-terminated, `entry` and
        // `found` are locals, and `buf` is writable for `buf.len()` bytes; the strings the entry
        // points to live in `buf`, which is not read here.
        let code = unsafe {
            match uid {
                Some(uid) => {
                    libc::getpwuid_r(uid, &mut entry, buf.as_mut_ptr(), buf.len(), &mut found)
                }
                None => libc::getpwnam_r(
                    name.as_ptr(),
                    &mut entry,
                    buf.as_mut_ptr(),
                    buf.len(),
                    &mut found,
                ),
            }
        };
        match code {
            libc::ERANGE if buf.len() < 1 << 20 => buf.resize(buf.len() * 2, 0),
            0 if found.is_null() => return uid.map(|uid| (uid, None)).ok_or_else(not_found),
            0 => return Ok((entry.pw_uid, Some(entry.pw_gid))),
            code => return Err(io::Error::from_raw_os_error(code)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_is_found_by_name_and_by_id() {
        assert_eq!(user_ids("root").unwrap(), (0, Some(0)));
        assert_eq!(user_ids("0").unwrap(), (0, Some(0)));
    }

    #[test]
    fn an_unknown_numeric_id_is_taken_as_it_is() {
        assert_eq!(user_ids("4000000001").unwrap(), (4_000_000_001, None));
    }

    #[test]
    fn an_unknown_user_is_not_found() {
        let error = user_ids("no-such-user-of-claude-agent").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        assert_eq!(
            user_ids("a\0b").unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }
}
