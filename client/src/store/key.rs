//! What a store asks of a [`SessionKey`] before it names files after it.

use crate::SessionKey;

use super::StoreError;

/// Checks that `key` can name files: project key and session id each one plain path
/// component, the subpath relative and without `.` or `..` parts.
pub(crate) fn check_path_safe(key: &SessionKey) -> Result<(), StoreError> {
    let invalid = |reason| StoreError::InvalidKey {
        key: key.to_string(),
        reason,
    };
    for part in [&key.project_key, &key.session_id] {
        if !is_plain_component(part) {
            return Err(invalid(
                "the project key and session id must each be one plain path component",
            ));
        }
    }
    if let Some(subpath) = &key.subpath {
        if subpath.is_empty() || !subpath.split('/').all(is_plain_component) {
            return Err(invalid(
                "a subpath is made of plain path components separated by `/`",
            ));
        }
    }
    Ok(())
}

/// A name that is one path component on every platform and is not `.` or `..`.
fn is_plain_component(part: &str) -> bool {
    !part.is_empty()
        && part != "."
        && part != ".."
        && !part.contains(['/', '\\', '\0'])
        && !(part.len() >= 2 && part.as_bytes()[1] == b':')
}
