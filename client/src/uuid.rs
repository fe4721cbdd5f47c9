//! Random uuids, for the user messages `Client::send` writes without one and for the entries
//! and session ids the history module writes.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};

/// A random version-4 uuid in its usual text form (`xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx`).
///
/// The 122 random bits are two SipHash values of a process-wide counter under a fresh
/// `RandomState` (whose keys the standard library seeds from the OS), so the crate needs no
/// random-number dependency. They identify messages; they are not meant to be secret.
pub(crate) fn new_uuid() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let keys = RandomState::new();
    let bits = u128::from(keys.hash_one((n, 0u8))) << 64 | u128::from(keys.hash_one((n, 1u8)));
    // Version 4 in bits 76..80, variant 0b10 in bits 62..64.
    let bits = bits & !(0xf << 76) | 0x4 << 76;
    let bits = bits & !(0x3 << 62) | 0x2 << 62;
    let hex = format!("{bits:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

#[cfg(test)]
mod tests {
    use super::new_uuid;

    #[test]
    fn uuids_are_version_4_and_distinct() {
        let uuids: Vec<String> = (0..1000).map(|_| new_uuid()).collect();
        for uuid in &uuids {
            let groups: Vec<&str> = uuid.split('-').collect();
            let lengths: Vec<usize> = groups.iter().map(|g| g.len()).collect();
            assert_eq!(lengths, [8, 4, 4, 4, 12], "{uuid}");
            assert!(uuid
                .chars()
                .all(|c| c == '-' || c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
            assert!(groups[2].starts_with('4'), "{uuid}");
            assert!(matches!(&groups[3][..1], "8" | "9" | "a" | "b"), "{uuid}");
        }
        let mut unique = uuids.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), uuids.len());
    }
}
