//! What a quota admits.

use crate::model::error::{GatewayError, GatewayResult};
use crate::model::index::Usage;
use crate::model::quota::Quota;

impl Quota {
    /// Whether it limits anything.
    pub(crate) fn active(&self) -> bool {
        self.enabled && (self.max_size >= 0 || self.max_objects >= 0)
    }

    /// Whether `usage` may grow by `add`.
    pub(crate) fn admits(&self, usage: Usage, add: Usage) -> bool {
        let within = |max: i64, now: u64, more: u64| {
            max < 0 || now.saturating_add(more) <= u64::try_from(max).unwrap_or(0)
        };
        within(self.max_objects, usage.objects, add.objects)
            && within(self.max_size, usage.bytes, add.bytes)
    }

    /// Checks a quota an admin sets: each maximum a number, or -1.
    pub(crate) fn check(&self) -> GatewayResult<()> {
        if self.max_size < -1 || self.max_objects < -1 {
            return Err(GatewayError::InvalidArgument(
                "a quota's maximum is a number of objects or bytes, or -1 for no limit".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotas_admit_up_to_their_maximum() {
        let u = |objects, bytes| Usage { objects, bytes };
        let q = |max_objects, max_size| Quota {
            enabled: true,
            max_size,
            max_objects,
        };
        // (quota, usage, added, admitted)
        let cases = [
            (q(-1, -1), u(1 << 40, 1 << 50), u(1, 1 << 30), true),
            (q(3, -1), u(2, 0), u(1, 0), true),
            (q(3, -1), u(3, 0), u(1, 0), false),
            (q(3, -1), u(3, 0), u(0, 100), true),
            (q(0, -1), u(0, 0), u(1, 0), false),
            (q(-1, 100), u(0, 60), u(1, 40), true),
            (q(-1, 100), u(0, 60), u(1, 41), false),
            (q(-1, 0), u(0, 0), u(1, 0), true),
            (q(-1, 0), u(0, 0), u(1, 1), false),
            (q(5, 100), u(4, 100), u(1, 1), false),
            (q(-1, 100), u(0, u64::MAX), u(1, 1), false),
        ];
        for (quota, usage, add, admitted) in cases {
            assert_eq!(
                quota.admits(usage, add),
                admitted,
                "{quota:?} {usage:?} + {add:?}"
            );
        }
        assert!(!Quota::default().active());
        assert!(
            !Quota {
                enabled: true,
                ..Quota::default()
            }
            .active()
        );
        assert!(
            !Quota {
                enabled: false,
                ..q(1, 1)
            }
            .active()
        );
        assert!(q(0, -1).active());
    }
}
