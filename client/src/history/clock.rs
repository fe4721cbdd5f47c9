//! Timestamps as the transcripts write them (`2026-11-23T06:03:37.276Z`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Parses an RFC 3339 timestamp (`YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`).
pub(crate) fn parse_timestamp(text: &str) -> Option<SystemTime> {
    let b = text.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let s = text.get(from..from + len)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut i = 19;
    let mut nanos: u64 = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let digits = &text[start..i];
        let kept = &digits[..digits.len().min(9)];
        nanos = kept.parse::<u64>().ok()? * 10u64.pow(9 - kept.len() as u32);
    }
    let offset = match &text[i..] {
        "Z" | "z" => 0,
        rest if rest.len() == 6 && (rest.starts_with('+') || rest.starts_with('-')) => {
            let minutes = num(i + 1, 2)? * 60 + num(i + 4, 2)?;
            if rest.starts_with('+') {
                minutes * 60
            } else {
                -minutes * 60
            }
        }
        _ => return None,
    };
    let secs =
        days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset;
    let secs = u64::try_from(secs).ok()?;
    Some(UNIX_EPOCH + Duration::new(secs, nanos as u32))
}

/// Formats a time as the transcripts do: UTC, milliseconds, `Z`.
pub(crate) fn format_timestamp(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_millis()
    )
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day counted from 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Is `text` a UUID (`8-4-4-4-12` hexadecimal digits)? Session ids must be, so that an id can
/// never name a path outside the projects folder.
pub(crate) fn is_uuid(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_round_trip() {
        let t = parse_timestamp("2026-11-23T06:03:37.276Z").unwrap();
        assert_eq!(format_timestamp(t), "2026-11-23T06:03:37.276Z");
        assert_eq!(
            t.duration_since(UNIX_EPOCH).unwrap().as_millis(),
            1_795_413_817_276
        );
        assert_eq!(parse_timestamp("2026-11-23T08:03:37.276+02:00"), Some(t));
        assert_eq!(
            parse_timestamp("2000-02-29T00:00:00Z")
                .map(format_timestamp)
                .as_deref(),
            Some("2000-02-29T00:00:00.000Z")
        );
        assert_eq!(parse_timestamp("yesterday"), None);
        assert_eq!(parse_timestamp("2026-13-01T00:00:00Z"), None);
    }

    #[test]
    fn uuids() {
        let (a, b) = (crate::uuid::new_uuid(), crate::uuid::new_uuid());
        assert!(is_uuid(&a) && is_uuid(&b) && a != b, "{a} {b}");
        assert_eq!(&a[14..15], "4");
        assert!(!is_uuid("../../etc/passwd-000000000000000000000"));
    }
}
