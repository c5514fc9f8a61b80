//! CPU lists like `"0-3,8"`, as `cpuset`, taskset and `/proc` write them.

use std::fmt;

/// A set of CPU numbers, kept sorted and without duplicates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CpuSet(Vec<usize>);

/// The highest CPU number accepted (the kernel's `CPU_SETSIZE` is 1024).
pub const MAX_CPU: usize = 1023;

impl CpuSet {
    /// Parses a list such as `"0-3,8"`; the empty string is the empty set.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut cpus = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (lo, hi) = match part.split_once('-') {
                Some((a, b)) => (num(a, text)?, num(b, text)?),
                None => {
                    let n = num(part, text)?;
                    (n, n)
                }
            };
            if lo > hi {
                return Err(format!(
                    "'{part}' in '{text}' is a range that runs backwards"
                ));
            }
            cpus.extend(lo..=hi);
        }
        Ok(CpuSet::from_cpus(cpus))
    }

    /// A set of the given CPUs.
    pub fn from_cpus(mut cpus: Vec<usize>) -> Self {
        cpus.sort_unstable();
        cpus.dedup();
        CpuSet(cpus)
    }

    /// The CPU numbers, ascending.
    pub fn cpus(&self) -> &[usize] {
        &self.0
    }

    /// Number of CPUs.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the set is empty (no pinning).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Splits the set into `n` disjoint slices of consecutive members, as
    /// equal as possible (the first slices get one more when it does not
    /// divide). `None` when there are fewer CPUs than slices.
    pub fn split(&self, n: usize) -> Option<Vec<CpuSet>> {
        if n == 0 || self.0.len() < n {
            return None;
        }
        let base = self.0.len() / n;
        let extra = self.0.len() % n;
        let mut out = Vec::with_capacity(n);
        let mut at = 0;
        for i in 0..n {
            let take = base + usize::from(i < extra);
            out.push(CpuSet(self.0[at..at + take].to_vec()));
            at += take;
        }
        Some(out)
    }
}

fn num(s: &str, whole: &str) -> Result<usize, String> {
    let n: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("'{whole}' is not a CPU list like \"0-3,8\""))?;
    if n > MAX_CPU {
        return Err(format!("CPU {n} in '{whole}' is above {MAX_CPU}"));
    }
    Ok(n)
}

impl fmt::Display for CpuSet {
    /// Writes the set as ranges, like `/proc`'s `Cpus_allowed_list`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut i = 0;
        let mut first = true;
        while i < self.0.len() {
            let mut j = i;
            while j + 1 < self.0.len() && self.0[j + 1] == self.0[j] + 1 {
                j += 1;
            }
            if !first {
                f.write_str(",")?;
            }
            first = false;
            if i == j {
                write!(f, "{}", self.0[i])?;
            } else {
                write!(f, "{}-{}", self.0[i], self.0[j])?;
            }
            i = j + 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_lists() {
        let s = CpuSet::parse("8, 0-3,2").expect("parse");
        assert_eq!(s.cpus(), &[0, 1, 2, 3, 8]);
        assert_eq!(s.to_string(), "0-3,8");
        assert!(CpuSet::parse("").expect("empty").is_empty());
        assert!(CpuSet::parse("3-1").is_err());
        assert!(CpuSet::parse("a").is_err());
        assert!(CpuSet::parse("4096").is_err());
    }

    #[test]
    fn splits_into_disjoint_slices() {
        let s = CpuSet::parse("0-4").expect("parse");
        let parts = s.split(2).expect("split");
        assert_eq!(parts[0].to_string(), "0-2");
        assert_eq!(parts[1].to_string(), "3-4");
        assert!(s.split(6).is_none());
    }
}
