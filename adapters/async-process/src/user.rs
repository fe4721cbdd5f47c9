//! `Options::user`: the uid and primary gid of the user the CLI runs as.

use std::io;

use nix::unistd::{Uid, User};

/// The user id of `user`, a user name or a numeric user id, and its primary group id, from the
/// system's user database (so NSS sources such as LDAP count too). A numeric id the database
/// does not know is taken as it is, with no group.
pub(crate) fn user_ids(user: &str) -> io::Result<(u32, Option<u32>)> {
    let uid: Option<u32> = user.parse().ok();
    let entry = match uid {
        Some(uid) => User::from_uid(Uid::from_raw(uid)),
        None if user.contains('\0') => Ok(None),
        None => User::from_name(user),
    }
    .map_err(io::Error::from)?;
    match (entry, uid) {
        (Some(entry), _) => Ok((entry.uid.as_raw(), Some(entry.gid.as_raw()))),
        (None, Some(uid)) => Ok((uid, None)),
        (None, None) => Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("no user {user:?}"),
        )),
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
