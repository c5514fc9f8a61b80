//! The store's layout format (docs/layout.md#format): a number that a
//! change of the layout older rsgw releases could not read raises, kept
//! in one record that every gateway and admin tool checks when it opens
//! the store.

use serde::{Deserialize, Serialize};

/// The layout format this rsgw writes, and the newest it reads. Format 1
/// is the layout of docs/layout.md as of the first release that recorded
/// it; a store without the record was written before and is format 1.
pub const LAYOUT_FORMAT: u32 = 1;

/// The format record (`layout::format()`, JSON data).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FormatRecord {
    /// The store's layout format.
    pub(crate) format: u32,
    /// The rsgw that wrote the record (`rsgw <version>`), for messages.
    pub(crate) written_by: String,
}

impl FormatRecord {
    /// The record this rsgw writes into a store that has none.
    pub(crate) fn ours() -> Self {
        FormatRecord {
            format: LAYOUT_FORMAT,
            written_by: format!("rsgw {}", env!("CARGO_PKG_VERSION")),
        }
    }
}
