//! The code of the repository's README.md and of every page of the guide (docs/guide/),
//! compiled (and run, unless marked `no_run`) as this package's doc tests
//! (`cargo test --doc -p claude-agent-examples`), so the README and the guide show code that
//! builds. A new guide page gets a struct of its own here.

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/README.md")]
struct GuideIndex;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/sessions.md")]
struct GuideSessions;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/permissions.md")]
struct GuidePermissions;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/hooks.md")]
struct GuideHooks;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/tools.md")]
struct GuideTools;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/structured-output.md")]
struct GuideStructuredOutput;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/errors.md")]
struct GuideErrors;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/testing.md")]
struct GuideTesting;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/tracing.md")]
struct GuideTracing;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/warm-start.md")]
struct GuideWarmStart;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/history-and-stores.md")]
struct GuideHistoryAndStores;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/many-sessions.md")]
struct GuideManySessions;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/fleets.md")]
struct GuideFleets;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/security.md")]
struct GuideSecurity;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/runtimes.md")]
struct GuideRuntimes;

#[cfg(doctest)]
#[doc = include_str!("../docs/guide/other-sdks.md")]
struct GuideOtherSdks;

#[cfg(test)]
mod tests {
    /// A guide page without its struct above would have its code compiled by nothing.
    #[test]
    fn every_guide_page_is_compiled() {
        let this = include_str!("readme.rs");
        let guide = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/guide");
        let mut pages = 0;
        for entry in std::fs::read_dir(guide).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if name.ends_with(".md") {
                pages += 1;
                let include = format!("include_str!(\"../docs/guide/{name}\")");
                assert!(
                    this.contains(&include),
                    "docs/guide/{name} has no struct in examples/readme.rs: its code is compiled by nothing"
                );
            }
        }
        assert!(pages > 10, "only {pages} guide pages found in {guide}");
    }
}
