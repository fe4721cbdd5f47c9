//! Every protocol behaviour of the official SDKs maps to a test here, a documented difference or
//! a reason, and every change a release makes to their protocol code has been read.
//!
//! `tests/releases/upstream/behaviour.txt` holds one record per behaviour of the official SDKs'
//! implementations (the Python SDK's query, transport and message parser, the TypeScript SDK's
//! `sdk.mjs`); its header gives the syntax. `<cli-version>/protocol.txt` lists the parts and members
//! of that release's protocol code, and `protocol-changes.txt` the members whose code changed from
//! the release before; `scripts/upstream-diff behaviour` writes both. The test fails, listing
//! every case, when the map is not for the newest release, when a record names upstream code the
//! newest release does not have, a test, doctest or section of docs/PROTOCOL.md that is not there,
//! when a change of the newest release is no record's `at` marked `changed`, or when the header's
//! counts are wrong.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const NA_CATEGORIES: &[&str] = &["typed", "stateless", "internal"];
const KINDS: &[&str] = &["rows", "test", "differs", "na", "gap"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

fn upstream_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/releases/upstream")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The newest release folder (`2.1.332`).
fn newest() -> String {
    let mut found: Vec<(Vec<u32>, String)> = fs::read_dir(upstream_dir())
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let parts: Option<Vec<u32>> = name.split('.').map(|p| p.parse().ok()).collect();
            parts.filter(|p| p.len() == 3).map(|p| (p, name))
        })
        .collect();
    found.sort();
    found.pop().expect("a release folder").1
}

/// The (Python, TypeScript) SDK versions of a release, from the headers of its field extracts.
fn sdk_versions(release: &str) -> (String, String) {
    let dir = upstream_dir().join(release);
    let after = |file: &str, marker: &str| {
        let text = read(&dir.join(file));
        let start = text
            .find(marker)
            .unwrap_or_else(|| panic!("{release}/{file} names no {marker}"))
            + marker.len();
        text[start..]
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .next()
            .unwrap()
            .trim_end_matches('.')
            .to_owned()
    };
    (
        after("python-fields.txt", "claude-agent-sdk=="),
        after("sdk-fields.txt", "@anthropic-ai/claude-agent-sdk@"),
    )
}

#[derive(Default)]
struct Record {
    id: String,
    line: usize,
    at: Vec<String>,
    says: Vec<String>,
    tests: Vec<String>,
    doctests: Vec<String>,
    differs: Vec<String>,
    na: Vec<String>,
    gap: Vec<String>,
    changed: Vec<String>,
}

impl Record {
    /// What the record counts as: the first of test (or doctest), differs, na and gap it has.
    fn kind(&self) -> Option<&'static str> {
        if !self.tests.is_empty() || !self.doctests.is_empty() {
            Some("test")
        } else if !self.differs.is_empty() {
            Some("differs")
        } else if !self.na.is_empty() {
            Some("na")
        } else if !self.gap.is_empty() {
            Some("gap")
        } else {
            None
        }
    }
}

struct Map {
    python: String,
    typescript: String,
    counts: BTreeMap<String, usize>,
    records: Vec<Record>,
}

fn parse(text: &str) -> Result<Map, String> {
    let mut map = Map {
        python: String::new(),
        typescript: String::new(),
        counts: BTreeMap::new(),
        records: Vec::new(),
    };
    for (index, line) in text.lines().enumerate() {
        let at = index + 1;
        if let Some(rest) = line.strip_prefix("# python ") {
            // `# python 0.2.189 typescript 0.3.332`
            let words: Vec<&str> = rest.split_whitespace().collect();
            let [python, "typescript", typescript] = words[..] else {
                return Err(format!("behaviour.txt:{at}: `# python X typescript Y`"));
            };
            (map.python, map.typescript) = (python.to_owned(), typescript.to_owned());
        } else if let Some(rest) = line.strip_prefix("# rows ") {
            // `# rows 194: test 142, differs 27, na 10, gap 15`
            let bad = || format!("behaviour.txt:{at}: `# rows N: test a, differs b, na c, gap d`");
            let (total, kinds) = rest.split_once(": ").ok_or_else(bad)?;
            map.counts
                .insert("rows".to_owned(), total.parse().map_err(|_| bad())?);
            for kind in kinds.split(", ") {
                let (name, n) = kind.split_once(' ').ok_or_else(bad)?;
                map.counts
                    .insert(name.to_owned(), n.parse().map_err(|_| bad())?);
            }
        } else if line.starts_with('#') || line.trim().is_empty() {
            continue;
        } else if !line.starts_with(' ') {
            map.records.push(Record {
                id: line.trim().to_owned(),
                line: at,
                ..Record::default()
            });
        } else {
            let record = map
                .records
                .last_mut()
                .ok_or_else(|| format!("behaviour.txt:{at}: a field before any id"))?;
            let (key, value) = line.trim().split_once(' ').unwrap_or((line.trim(), ""));
            let list = match key {
                "at" => &mut record.at,
                "says" => &mut record.says,
                "test" => &mut record.tests,
                "doctest" => &mut record.doctests,
                "differs" => &mut record.differs,
                "na" => &mut record.na,
                "gap" => &mut record.gap,
                "changed" => &mut record.changed,
                "note" => continue,
                other => return Err(format!("behaviour.txt:{at}: unknown field `{other}`")),
            };
            list.push(value.to_owned());
        }
    }
    Ok(map)
}

/// docs/PROTOCOL.md's `## ` sections by their GitHub anchor (`#run-end-when-stdin-is-closed`),
/// each as one line of text.
fn protocol_sections() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in read(&workspace().join("docs/PROTOCOL.md")).lines() {
        if let Some(title) = line.strip_prefix("## ") {
            out.extend(current.take());
            let anchor: String = title
                .trim()
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
                .map(|c| if c == ' ' { '-' } else { c })
                .collect();
            current = Some((format!("#{anchor}"), String::new()));
        } else if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
            body.push(' ');
        }
    }
    out.extend(current);
    out
}

fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `path` declares `name` as a test: `fn name` with `#[test]` (or `#[tokio::test]`, …)
/// at most three lines above; under conformance/, a test or real-CLI scenario
/// (`pub fn name<H: Harness>`, `pub async fn name<R: Runtime>`), which conformance's own tests
/// hold to being run; or a `golden!` stamp `name => "file"`.
fn declares_test(path: &str, name: &str) -> Result<(), String> {
    let text = fs::read_to_string(workspace().join(path)).map_err(|e| format!("{path}: {e}"))?;
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim_start();
        let head = line.trim_start_matches("pub ").trim_start_matches("async ");
        if head.starts_with(&format!("fn {name}(")) || head.starts_with(&format!("fn {name}<")) {
            let attributed = lines[i.saturating_sub(3)..i]
                .iter()
                .any(|l| l.contains("#[test]") || l.contains("::test]") || l.contains("::test("));
            let signature = format!("{line} {}", lines.get(i + 1).unwrap_or(&""));
            let scenario = path.starts_with("conformance/")
                && (signature.contains("H: Harness") || signature.contains("R: Runtime"));
            return if attributed || scenario {
                Ok(())
            } else {
                Err(format!("`fn {name}` in {path} is not a test"))
            };
        }
        if line.starts_with(&format!("{name} => \"")) {
            return Ok(());
        }
    }
    Err(format!("no test `{name}` in {path}"))
}

/// Whether `path` declares `item`'s last segment (`Options::tools_never_asked`:
/// `fn tools_never_asked`) as a fn, struct or enum with a code block in its doc comment.
fn declares_doctest(path: &str, item: &str) -> Result<(), String> {
    let text = fs::read_to_string(workspace().join(path)).map_err(|e| format!("{path}: {e}"))?;
    let name = item.rsplit("::").next().unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let words: Vec<&str> = line
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .collect();
        let declares = words
            .windows(2)
            .any(|w| matches!(w[0], "fn" | "struct" | "enum") && w[1] == name);
        if declares {
            let documented = lines[..i]
                .iter()
                .rev()
                .map(|l| l.trim_start())
                .skip_while(|l| l.starts_with("#["))
                .take_while(|l| l.starts_with("///"))
                .any(|l| l.contains("```"));
            return if documented {
                Ok(())
            } else {
                Err(format!("`{item}` in {path} has no doctest"))
            };
        }
    }
    Err(format!("no `{item}` in {path}"))
}

/// `<py|ts> <part> <member>` of an `at` value or of a protocol.txt or protocol-changes.txt line.
fn location(line: &str) -> String {
    let line = line.split(':').next().unwrap();
    line.split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn every_official_behaviour_maps_to_a_test_a_difference_or_a_reason() {
    let map = parse(&read(&upstream_dir().join("behaviour.txt"))).unwrap_or_else(|e| panic!("{e}"));
    let release = newest();
    let (python, typescript) = sdk_versions(&release);
    let mut problems = Vec::new();
    if (&map.python, &map.typescript) != (&python, &typescript) {
        problems.push(format!(
            "behaviour.txt is for python {} typescript {}, the newest release {release} has \
             python {python} and typescript {typescript}: run `scripts/upstream-diff behaviour \
             <the release before> {release} --diff --write`, read each change and map it \
             (CONTRIBUTING.md, \"Following a new CLI release\")",
            map.python, map.typescript
        ));
    }
    let release_file = |name: &str| {
        let path = upstream_dir().join(&release).join(name);
        fs::read_to_string(&path).unwrap_or_else(|_| {
            panic!(
                "no {release}/{name}: run `scripts/upstream-diff behaviour <the release before> \
                 {release} --write`"
            )
        })
    };
    let manifest: BTreeSet<String> = release_file("protocol.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(location)
        .collect();
    let sections = protocol_sections();

    let mut seen = BTreeSet::new();
    let mut counted: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &map.records {
        let at = format!("behaviour.txt:{} {}", r.line, r.id);
        let well_formed = (r.id.starts_with("py.") || r.id.starts_with("ts."))
            && r.id.split('.').count() == 3
            && r.id.split('.').all(|p| !p.is_empty())
            && r.id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-');
        if !well_formed {
            problems.push(format!(
                "{at}: an id is py.<area>.<name> or ts.<area>.<name>, lower-case kebab"
            ));
        }
        if !seen.insert(r.id.as_str()) {
            problems.push(format!("{at}: the id is given twice"));
        }
        if r.at.is_empty() || r.says.len() != 1 {
            problems.push(format!(
                "{at}: a record has one or more `at` and exactly one `says`"
            ));
        }
        for place in &r.at {
            if !manifest.contains(&location(place)) {
                problems.push(format!(
                    "{at}: `at {place}`: {release}/protocol.txt has no such part and member \
                     (the code moved or went)"
                ));
            }
        }
        for test in &r.tests {
            let (path, name) = test.split_once("::").unwrap_or((test, ""));
            if let Err(e) = declares_test(path, name) {
                problems.push(format!("{at}: {e}"));
            }
        }
        for doctest in &r.doctests {
            let (path, item) = doctest.split_once("::").unwrap_or((doctest, ""));
            if let Err(e) = declares_doctest(path, item) {
                problems.push(format!("{at}: {e}"));
            }
        }
        for differs in &r.differs {
            let (anchor, quote) = differs.split_once(' ').unwrap_or((differs, ""));
            let quote = quote.trim();
            let quote = quote
                .strip_prefix('"')
                .and_then(|q| q.strip_suffix('"'))
                .unwrap_or("");
            match sections.get(anchor) {
                None => problems.push(format!("{at}: docs/PROTOCOL.md has no section {anchor}")),
                Some(body)
                    if quote.chars().count() < 20 || !squeeze(body).contains(&squeeze(quote)) =>
                {
                    problems.push(format!(
                        "{at}: section {anchor} of docs/PROTOCOL.md does not say \"{quote}\" \
                         (a quote in double quotes, 20 characters or more)"
                    ))
                }
                Some(_) => {}
            }
        }
        for na in &r.na {
            let category = na.split(':').next().unwrap_or("");
            if !NA_CATEGORIES.contains(&category) || !na.contains(": ") {
                problems.push(format!(
                    "{at}: `na {na}`: na is one of {NA_CATEGORIES:?}, then `: ` and a reason"
                ));
            }
        }
        let Some(kind) = r.kind() else {
            problems.push(format!(
                "{at}: maps to nothing (test, doctest, differs, na or gap)"
            ));
            continue;
        };
        if kind != "gap" && !r.gap.is_empty() {
            problems.push(format!("{at}: a `gap` beside a mapping: drop one"));
        }
        if kind == "gap" && r.changed.iter().any(|v| *v == python || *v == typescript) {
            problems.push(format!(
                "{at}: changed in the newest release, so not a gap: map it to a test, a \
                 documented difference or an na reason"
            ));
        }
        *counted.entry(kind).or_default() += 1;
    }
    counted.insert("rows", map.records.len());
    for kind in KINDS {
        let said = map.counts.get(*kind).copied().unwrap_or(0);
        let is = counted.get(kind).copied().unwrap_or(0);
        if said != is {
            problems.push(format!(
                "behaviour.txt's header says {kind} {said}, the records give {is}"
            ));
        }
    }

    // Every change of the newest release was read: it is the `at` of a record marked `changed`
    // with the new version of its SDK.
    for change in release_file("protocol-changes.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let version = if change.starts_with("py ") {
            &python
        } else {
            &typescript
        };
        let read = map.records.iter().any(|r| {
            r.changed.contains(version) && r.at.iter().any(|p| location(p) == location(change))
        });
        if !read {
            problems.push(format!(
                "{release}/protocol-changes.txt: `{change}` is the `at` of no record marked \
                 `changed {version}`: read the change (`scripts/upstream-diff behaviour … --diff`), \
                 then map it"
            ));
        }
    }

    assert!(
        problems.is_empty(),
        "{} problem(s) with tests/releases/upstream/behaviour.txt:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The reader of behaviour.txt: the header, what each record counts as, `at` locations, and an
/// unknown field refused.
#[test]
fn the_map_reader_sees_what_each_record_counts_as() {
    let map = parse(concat!(
        "# python 0.2.1 typescript 0.3.1\n",
        "# rows 3: test 1, differs 0, na 0, gap 1\n",
        "\n",
        "py.query.a\n",
        "    at py _internal/query.py Query.initialize:339-417\n",
        "    says One.\n",
        "    test core/src/session/tests.rs::x\n",
        "    gap y\n",
        "\n",
        "ts.query.b\n",
        "    at ts query-class setPermissionMode\n",
        "    says Two.\n",
        "    gap not yet\n",
        "    note whatever\n",
        "    changed 0.3.1\n",
        "\n",
        "py.query.c\n",
        "    at py _internal/query.py *\n",
        "    says Three.\n",
    ))
    .unwrap();
    assert_eq!(
        (map.python.as_str(), map.typescript.as_str()),
        ("0.2.1", "0.3.1")
    );
    assert_eq!(map.counts["rows"], 3);
    let kinds: Vec<_> = map.records.iter().map(Record::kind).collect();
    assert_eq!(kinds, [Some("test"), Some("gap"), None]);
    assert_eq!(map.records[1].changed, ["0.3.1"]);
    assert_eq!(
        location("py _internal/query.py Query.initialize:339-417"),
        "py _internal/query.py Query.initialize"
    );
    assert_eq!(
        location("py _errors.py _normalize_result_errors sha256:e34ce002e923f869 12 lines"),
        "py _errors.py _normalize_result_errors"
    );
    assert!(parse("py.query.a\n    bogus field\n").is_err());
}
