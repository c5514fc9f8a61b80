//! COSBench workload files: stages of works (`init`, `prepare`, normal
//! `work` with weighted operations, `cleanup`, `dispose`), their selectors
//! `c(N)`, `u(A,B)`, `r(A,B)` and sizes in B/KB/MB.

use quick_xml::events::{BytesStart, Event};

/// A number picker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selector {
    /// Always N.
    Constant(u64),
    /// Uniformly random in A..=B.
    Uniform(u64, u64),
    /// Every number of A..=B in turn (split among workers).
    Range(u64, u64),
    /// Zipf-distributed in A..=B, A the most popular, exponent 0.99 (YCSB's
    /// "zipfian" constant): `z(A,B)`, an rsgw extension of COSBench's
    /// selectors for skewed reads.
    Zipf(u64, u64),
}

impl Selector {
    /// Parses `c(N)`, `u(A,B)`, `r(A,B)` or `z(A,B)`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let bad = || format!("'{s}' is not a selector like c(1), u(1,10), r(1,10) or z(1,10)");
        // an empty selector, or one starting with a multi-byte character,
        // has no one-byte kind (the cosbench fuzz target found the panic)
        let (kind, rest) = s.split_at_checked(1).ok_or_else(bad)?;
        let inner = rest
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .ok_or_else(bad)?;
        let nums: Vec<u64> = inner
            .split(',')
            .map(|n| n.trim().parse::<u64>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        match (kind, nums.as_slice()) {
            ("c", [n]) => Ok(Selector::Constant(*n)),
            ("u", [a, b]) if a <= b => Ok(Selector::Uniform(*a, *b)),
            ("r", [a, b]) if a <= b => Ok(Selector::Range(*a, *b)),
            ("z", [a, b]) if a <= b => Ok(Selector::Zipf(*a, *b)),
            _ => Err(bad()),
        }
    }

    /// Smallest and largest value.
    pub fn bounds(&self) -> (u64, u64) {
        match *self {
            Selector::Constant(n) => (n, n),
            Selector::Uniform(a, b) | Selector::Range(a, b) | Selector::Zipf(a, b) => (a, b),
        }
    }

    /// Every value (for stages that walk all of them).
    pub fn all(&self) -> std::ops::RangeInclusive<u64> {
        let (a, b) = self.bounds();
        a..=b
    }
}

/// An object size selector with its unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    /// The selector, in units.
    pub selector: Selector,
    /// Bytes per unit (1, 1000 for KB, 1000000 for MB, as COSBench counts).
    pub unit: u64,
}

impl Sizes {
    /// Parses `u(4,64)KB`, `c(16)KB`, `c(100)B`, `u(4,10)MB`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let close = s
            .rfind(')')
            .ok_or_else(|| format!("'{s}' is not a size like c(4)KB"))?;
        let unit = match s[close + 1..].trim().to_ascii_uppercase().as_str() {
            "" | "B" => 1,
            "KB" => 1000,
            "MB" => 1_000_000,
            "GB" => 1_000_000_000,
            u => return Err(format!("unit '{u}' in '{s}' is not B, KB, MB or GB")),
        };
        let selector = Selector::parse(&s[..=close])?;
        if matches!(selector, Selector::Zipf(..)) {
            return Err(format!("'{s}': z() picks objects, not sizes"));
        }
        Ok(Sizes { selector, unit })
    }
}

/// Where objects live: containers and objects selected by number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Container name prefix (`cprefix`, default `mycontainers_`).
    pub cprefix: String,
    /// Object name prefix (`oprefix`, default `myobjects_`).
    pub oprefix: String,
    /// `containers=`.
    pub containers: Option<Selector>,
    /// `objects=`.
    pub objects: Option<Selector>,
    /// `sizes=`.
    pub sizes: Option<Sizes>,
}

impl Target {
    /// Parses a `config="k=v;k=v"` string.
    pub fn parse(config: &str) -> Result<Self, String> {
        let mut t = Target {
            cprefix: "mycontainers_".into(),
            oprefix: "myobjects_".into(),
            containers: None,
            objects: None,
            sizes: None,
        };
        for (k, v) in pairs(config) {
            match k.as_str() {
                "cprefix" => t.cprefix = v,
                "oprefix" => t.oprefix = v,
                "containers" => t.containers = Some(Selector::parse(&v)?),
                "objects" => t.objects = Some(Selector::parse(&v)?),
                "sizes" => t.sizes = Some(Sizes::parse(&v)?),
                _ => {}
            }
        }
        Ok(t)
    }

    /// Name of container `n`.
    pub fn container(&self, n: u64) -> String {
        format!("{}{n}", self.cprefix)
    }

    /// Name of object `n`.
    pub fn object(&self, n: u64) -> String {
        format!("{}{n}", self.oprefix)
    }
}

/// `k=v;k=v` pairs.
pub fn pairs(config: &str) -> Vec<(String, String)> {
    config
        .split(';')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// An operation kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    /// GET an object.
    Read,
    /// PUT an object.
    Write,
    /// DELETE an object.
    Delete,
}

impl OpKind {
    /// The name COSBench uses.
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Write => "write",
            OpKind::Delete => "delete",
        }
    }
}

/// One weighted operation of a normal work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// Kind.
    pub kind: OpKind,
    /// Percent of the work's operations.
    pub ratio: u32,
    /// What it works on.
    pub target: Target,
}

/// What a work does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkKind {
    /// Create the containers.
    Init(Target),
    /// Write every object of every container.
    Prepare(Target),
    /// Weighted operations for a time or a count.
    Normal(Vec<Operation>),
    /// Delete every object of every container.
    Cleanup(Target),
    /// Delete the containers.
    Dispose(Target),
}

/// A work: workers doing one thing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Work {
    /// Its name (the stage's if it has none).
    pub name: String,
    /// Concurrent workers.
    pub workers: usize,
    /// Seconds to run (normal works).
    pub runtime: Option<u64>,
    /// Operations to run (normal works).
    pub total_ops: Option<u64>,
    /// What it does.
    pub kind: WorkKind,
}

/// A stage: works run one after another (COSBench runs a stage's works in
/// parallel; the sample workloads have one work per stage).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    /// Its name.
    pub name: String,
    /// Its works.
    pub works: Vec<Work>,
}

/// A whole workload file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    /// `name=`.
    pub name: String,
    /// The `storage` element's `config` pairs (endpoint, accesskey, secretkey...).
    pub storage: Vec<(String, String)>,
    /// The stages, in order.
    pub stages: Vec<Stage>,
}

fn attrs(e: &BytesStart<'_>) -> Result<Vec<(String, String)>, String> {
    e.attributes()
        .map(|a| {
            let a = a.map_err(|err| format!("bad attribute: {err}"))?;
            let v = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|err| format!("bad attribute value: {err}"))?;
            Ok((
                String::from_utf8_lossy(a.key.as_ref()).into_owned(),
                v.into_owned(),
            ))
        })
        .collect()
}

fn get<'a>(a: &'a [(String, String)], k: &str) -> Option<&'a str> {
    a.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
}

fn num<T: std::str::FromStr>(a: &[(String, String)], k: &str) -> Result<Option<T>, String> {
    get(a, k)
        .map(|v| {
            v.trim()
                .parse::<T>()
                .map_err(|_| format!("{k}=\"{v}\" is not a number"))
        })
        .transpose()
}

impl Workload {
    /// Parses a COSBench workload XML document.
    pub fn parse(xml: &str) -> Result<Self, String> {
        let mut reader = quick_xml::Reader::from_str(xml);
        reader.config_mut().trim_text(true);
        let mut w = Workload {
            name: String::new(),
            storage: Vec::new(),
            stages: Vec::new(),
        };
        let mut work: Option<(Work, Vec<Operation>)> = None;
        loop {
            let ev = reader
                .read_event()
                .map_err(|e| format!("XML error at byte {}: {e}", reader.buffer_position()))?;
            let (e, empty) = match &ev {
                Event::Start(e) => (e.clone(), false),
                Event::Empty(e) => (e.clone(), true),
                Event::End(e) => {
                    if e.name().as_ref() == b"work"
                        && let Some(done) = work.take()
                    {
                        finish_work(&mut w, done)?;
                    }
                    continue;
                }
                Event::Eof => break,
                _ => continue,
            };
            let a = attrs(&e)?;
            match e.name().as_ref() {
                b"workload" => w.name = get(&a, "name").unwrap_or("workload").to_string(),
                b"storage" => {
                    if let Some(t) = get(&a, "type")
                        && t != "s3"
                    {
                        return Err(format!("storage type '{t}' is not supported, only s3"));
                    }
                    w.storage = pairs(get(&a, "config").unwrap_or(""));
                }
                b"workstage" => w.stages.push(Stage {
                    name: get(&a, "name").unwrap_or("stage").to_string(),
                    works: Vec::new(),
                }),
                b"work" => {
                    let stage = w
                        .stages
                        .last()
                        .map(|s| s.name.clone())
                        .ok_or("work outside a workstage")?;
                    let target = Target::parse(get(&a, "config").unwrap_or(""))?;
                    let kind = match get(&a, "type").unwrap_or("normal") {
                        "init" => WorkKind::Init(target),
                        "prepare" => WorkKind::Prepare(target),
                        "cleanup" => WorkKind::Cleanup(target),
                        "dispose" => WorkKind::Dispose(target),
                        "normal" => WorkKind::Normal(Vec::new()),
                        t => return Err(format!("work type '{t}' is not supported")),
                    };
                    let new = Work {
                        name: get(&a, "name").unwrap_or(&stage).to_string(),
                        workers: num(&a, "workers")?.unwrap_or(1).max(1),
                        runtime: num(&a, "runtime")?,
                        total_ops: num(&a, "totalOps")?,
                        kind,
                    };
                    if empty {
                        finish_work(&mut w, (new, Vec::new()))?;
                    } else {
                        work = Some((new, Vec::new()));
                    }
                }
                b"operation" => {
                    let (_, ops) = work.as_mut().ok_or("operation outside a work")?;
                    let kind = match get(&a, "type").unwrap_or("") {
                        "read" => OpKind::Read,
                        "write" => OpKind::Write,
                        "delete" => OpKind::Delete,
                        t => return Err(format!("operation type '{t}' is not supported")),
                    };
                    ops.push(Operation {
                        kind,
                        ratio: num(&a, "ratio")?.unwrap_or(100),
                        target: Target::parse(get(&a, "config").unwrap_or(""))?,
                    });
                }
                _ => {}
            }
        }
        if w.stages.is_empty() {
            return Err("no workstage in the workload".into());
        }
        Ok(w)
    }

    /// A storage setting (`endpoint`, `accesskey`, `secretkey`).
    pub fn storage(&self, key: &str) -> Option<&str> {
        self.storage
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }
}

impl Work {
    /// Checks a normal work's operations: some, with ratios adding up to
    /// 100, and a runtime or an operation count.
    pub fn validate(&self) -> Result<(), String> {
        if let WorkKind::Normal(ops) = &self.kind {
            if ops.is_empty() {
                return Err(format!("work '{}' has no operation", self.name));
            }
            let total: u32 = ops.iter().map(|o| o.ratio).sum();
            if total != 100 {
                return Err(format!(
                    "the ratios of work '{}' add up to {total}, not 100",
                    self.name
                ));
            }
            if self.runtime.is_none() && self.total_ops.is_none() {
                return Err(format!("work '{}' needs runtime or totalOps", self.name));
            }
        }
        Ok(())
    }
}

impl Workload {
    /// Checks every work.
    pub fn validate(&self) -> Result<(), String> {
        self.stages
            .iter()
            .flat_map(|s| &s.works)
            .try_for_each(Work::validate)
    }
}

fn finish_work(w: &mut Workload, (mut work, ops): (Work, Vec<Operation>)) -> Result<(), String> {
    if let WorkKind::Normal(list) = &mut work.kind {
        *list = ops;
    }
    work.validate()?;
    w.stages
        .last_mut()
        .ok_or("work outside a workstage")?
        .works
        .push(work);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_and_sizes() {
        assert_eq!(Selector::parse("c(3)"), Ok(Selector::Constant(3)));
        assert_eq!(Selector::parse("u(1, 10)"), Ok(Selector::Uniform(1, 10)));
        assert_eq!(Selector::parse("r(5,5)"), Ok(Selector::Range(5, 5)));
        assert_eq!(Selector::parse("z(1,100)"), Ok(Selector::Zipf(1, 100)));
        assert!(Selector::parse("u(10,1)").is_err());
        assert!(Selector::parse("x(1)").is_err());
        assert!(Selector::parse("").is_err());
        assert!(Selector::parse("é(1)").is_err());
        let s = Sizes::parse("u(4,64)KB").expect("sizes");
        assert_eq!((s.selector, s.unit), (Selector::Uniform(4, 64), 1000));
        assert_eq!(Sizes::parse("c(100)B").expect("bytes").unit, 1);
        assert!(Sizes::parse("c(1)PB").is_err());
    }

    #[test]
    fn parses_the_sample_workloads() {
        let w = Workload::parse(include_str!(
            "../../../benches/workloads/cosbench-mix-small.xml"
        ))
        .expect("mix-small");
        assert_eq!(w.storage("endpoint"), Some("http://127.0.0.1:7480"));
        let names: Vec<_> = w.stages.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            ["init", "prepare", "main", "smoke", "cleanup", "dispose"]
        );
        let main = &w.stages[2].works[0];
        assert_eq!((main.workers, main.runtime), (32, Some(30)));
        let WorkKind::Normal(ops) = &main.kind else {
            panic!("main is a normal work")
        };
        assert_eq!(ops.len(), 3);
        assert_eq!(ops[2].kind, OpKind::Delete);
        assert_eq!(w.stages[3].works[0].total_ops, Some(400));
        let w = Workload::parse(include_str!(
            "../../../benches/workloads/cosbench-read99.xml"
        ))
        .expect("read99");
        let WorkKind::Prepare(t) = &w.stages[1].works[0].kind else {
            panic!("prepare")
        };
        assert_eq!(t.sizes.map(|s| s.unit), Some(1_000_000));
        assert_eq!(t.container(1), "s3testqwer1");
    }

    #[test]
    fn rejects_bad_ratios() {
        let xml = r#"<workload name="x"><workflow><workstage name="m">
            <work name="m" workers="1" runtime="1">
              <operation type="read" ratio="60" config="containers=c(1);objects=c(1)"/>
            </work></workstage></workflow></workload>"#;
        assert!(Workload::parse(xml).unwrap_err().contains("add up to 60"));
    }
}
