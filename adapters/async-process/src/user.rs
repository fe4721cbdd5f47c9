//! `Options::user`: the uid and primary gid of the user the CLI runs as.

use std::io;

use nix::unistd::{Uid, User};

/// The user id and group id for `user`: a user name or a numeric user id, optionally followed by
/// `:` and a numeric group id. Without a group, the user's primary group from the system's user
/// database (so NSS sources such as LDAP count too). A numeric user id the database does not know
/// needs its group named: started with none, the CLI would keep this process's group (root's,
/// usually) and read what that group may read.
pub(crate) fn user_ids(user: &str) -> io::Result<(u32, u32)> {
    let (name, group) = match user.split_once(':') {
        Some((name, group)) => {
            let gid = group.parse().map_err(|_| {
                invalid(format!(
                    "{user:?}: the group after `:` must be a numeric group id"
                ))
            })?;
            (name, Some(gid))
        }
        None => (user, None),
    };
    let uid: Option<u32> = name.parse().ok();
    let entry = match uid {
        Some(uid) => User::from_uid(Uid::from_raw(uid)),
        None if name.contains('\0') => Ok(None),
        None => User::from_name(name),
    }
    .map_err(io::Error::from)?;
    match (entry, uid, group) {
        (Some(entry), _, group) => Ok((entry.uid.as_raw(), group.unwrap_or(entry.gid.as_raw()))),
        (None, Some(uid), Some(gid)) => Ok((uid, gid)),
        (None, Some(uid), None) => Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "user id {uid} is not in the user database, so its group is unknown: name the \
                 group too (\"{uid}:GID\"), or add the user"
            ),
        )),
        (None, None, _) => Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("no user {name:?}"),
        )),
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_is_found_by_name_and_by_id() {
        assert_eq!(user_ids("root").unwrap(), (0, 0));
        assert_eq!(user_ids("0").unwrap(), (0, 0));
    }

    #[test]
    fn a_group_can_be_named() {
        assert_eq!(user_ids("root:5").unwrap(), (0, 5));
        assert_eq!(
            user_ids("4000000001:4000000002").unwrap(),
            (4_000_000_001, 4_000_000_002)
        );
        let error = user_ids("root:wheel").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
    }

    /// An unknown numeric id with no group is refused: before, it ran with this process's group
    /// (root's, gid 0).
    #[test]
    fn an_unknown_numeric_id_needs_its_group() {
        let error = user_ids("4000000001").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        assert!(error.to_string().contains("\"4000000001:GID\""), "{error}");
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
