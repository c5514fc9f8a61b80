//! ListObjectVersions: every version of every key, by key and newest
//! first, from two walks of the bucket's index merged: the keys' own
//! entries (for objects written while the bucket was never versioned:
//! each its key's only version, `null`) and the versions' entries (named
//! as `model::versioning` says), prefix, delimiter, key and version-id
//! markers and max-keys as S3 has them.

use crate::engine::omap::OmapWalk;
use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::index::IndexEntry;
use crate::model::params::{
    ListParams, VersionCounts, VersionEntry, VersionList, VersionListParams,
};
use crate::model::versioning::{
    NULL_VERSION, VERSIONS, check_version_id, entries_of, entries_under, entry_name,
    parse_entry_name, rank,
};
use crate::ops::gateway::Gateway;
use crate::ops::list::{MergedIndex, past, walk_start};
use crate::rules::authz::{Access, Requester, Target, authorize};

/// The next entry of one walk: its key, version id and entry, and whether
/// it came from the versions' entries.
struct Head {
    key: String,
    version_id: Option<String>,
    entry: IndexEntry,
    versioned: bool,
}

/// The next entry of the keys' own walk that lists a version (a key's
/// entry written in a versioned bucket has a version entry of its own).
async fn next_own(index: &mut MergedIndex<'_>, want: u64) -> GatewayResult<Option<Head>> {
    while let Some((key, value)) = index.next(want).await? {
        let entry: IndexEntry = serde_json::from_slice(&value)?;
        if !entry.versioned {
            return Ok(Some(Head {
                key,
                version_id: entry.version_id.clone(),
                entry,
                versioned: false,
            }));
        }
    }
    Ok(None)
}

/// The next entry of the versions' walk.
async fn next_version(index: &mut MergedIndex<'_>, want: u64) -> GatewayResult<Option<Head>> {
    let Some((name, value)) = index.next(want).await? else {
        return Ok(None);
    };
    let (key, _, id) = parse_entry_name(&name)
        .ok_or_else(|| GatewayError::Corrupt(format!("version entry {name:?}")))?;
    let entry: IndexEntry = serde_json::from_slice(&value)?;
    Ok(Some(Head {
        key,
        version_id: id.map(str::to_string),
        entry,
        versioned: true,
    }))
}

impl Gateway {
    /// Lists a bucket's versions (ListObjectVersions), as `rq` may.
    pub async fn list_object_versions(
        &self,
        rq: &Requester,
        bucket: &str,
        p: &VersionListParams,
    ) -> GatewayResult<VersionList> {
        let info = self.bucket_info(bucket).await?;
        let listing = ListParams {
            prefix: p.prefix.clone(),
            delimiter: p.delimiter.clone(),
            start_after: p.key_marker.clone(),
            max_keys: p.max_keys,
        };
        authorize(
            rq,
            Access::ListBucketVersions,
            &Target::listing(&info, &listing),
        )?;
        self.list_versions(&info, p).await
    }

    /// Where the versions' walk starts: after the version-id marker's
    /// entry, or after every version of the key marker (no version-id
    /// marker, or one that names no version: as radosgw lists).
    async fn versions_after(
        &self,
        info: &BucketInfo,
        p: &VersionListParams,
    ) -> GatewayResult<String> {
        let key = &p.key_marker;
        if key.is_empty() {
            return Ok(String::new());
        }
        let past_key = past(&entries_of(key));
        let Some(v) = p
            .version_marker
            .as_deref()
            .filter(|v| check_version_id(v).is_ok())
        else {
            return Ok(past_key);
        };
        if v != NULL_VERSION {
            return Ok(entry_name(key, &rank(Some(v), 0.0), Some(v)));
        }
        // the null version's rank is its mtime's: found among the key's
        let (shard, prefix) = (info.index_of(key), entries_of(key));
        let mut entries = OmapWalk::new(&*self.store, &shard, "", &prefix);
        while let Some((name, _)) = entries.next().await? {
            if parse_entry_name(&name).is_some_and(|(_, _, id)| id.is_none()) {
                return Ok(name);
            }
        }
        Ok(past_key)
    }

    async fn list_versions(
        &self,
        info: &BucketInfo,
        p: &VersionListParams,
    ) -> GatewayResult<VersionList> {
        let mut out = VersionList::default();
        if p.max_keys == 0 {
            return Ok(out);
        }
        if p.prefix.starts_with(VERSIONS) {
            return Ok(out);
        }
        let own_after = walk_start(&p.prefix, &p.key_marker);
        let versions_prefix = entries_under(&p.prefix);
        let mut own = MergedIndex::new(&*self.store, info.index_shards(), &p.prefix, own_after);
        let mut versions = MergedIndex::new(
            &*self.store,
            info.index_shards(),
            &versions_prefix,
            self.versions_after(info, p).await?,
        );
        // within the key marker's versions, none after the marker is latest
        let mut last_key = p
            .version_marker
            .as_ref()
            .filter(|_| !p.key_marker.is_empty())
            .map(|_| p.key_marker.clone());
        let delim = p.delimiter.as_deref().filter(|d| !d.is_empty());
        let (mut own_head, mut version_head) = (None::<Head>, None::<Head>);
        loop {
            let taken = out.versions.len() + out.common_prefixes.len();
            let want = (p.max_keys.saturating_sub(taken)) as u64 + 1;
            if own_head.is_none() {
                own_head = next_own(&mut own, want).await?;
            }
            if version_head.is_none() {
                version_head = next_version(&mut versions, want).await?;
            }
            let from_own = match (&own_head, &version_head) {
                (None, None) => break,
                (Some(o), Some(v)) => o.key <= v.key,
                (o, _) => o.is_some(),
            };
            if taken >= p.max_keys {
                out.is_truncated = true;
                break;
            }
            let head = if from_own {
                own_head.take()
            } else {
                version_head.take()
            };
            let Some(head) = head else { break };
            if let Some(d) = delim
                && let Some(pos) = head.key[p.prefix.len()..].find(d)
            {
                let cp = head.key[..p.prefix.len() + pos + d.len()].to_string();
                own.seek(past(&cp));
                versions.seek(past(&entries_under(&cp)));
                for h in [&mut own_head, &mut version_head] {
                    if h.as_ref().is_some_and(|h| h.key.starts_with(&cp)) {
                        *h = None;
                    }
                }
                if cp.as_str() > p.key_marker.as_str() && out.common_prefixes.last() != Some(&cp) {
                    out.next = Some((cp.clone(), None));
                    out.common_prefixes.push(cp);
                }
                continue;
            }
            let latest = !head.versioned || last_key.as_deref() != Some(head.key.as_str());
            last_key = Some(head.key.clone());
            let e = head.entry;
            out.next = Some((
                head.key.clone(),
                Some(
                    head.version_id
                        .as_deref()
                        .unwrap_or(NULL_VERSION)
                        .to_string(),
                ),
            ));
            out.versions.push(VersionEntry {
                key: head.key,
                version_id: head.version_id,
                latest,
                delete_marker: e.marker,
                size: e.size,
                etag: e.etag,
                mtime: e.mtime,
                owner: e.owner,
            });
        }
        if !out.is_truncated {
            out.next = None;
        }
        Ok(out)
    }

    /// How many versions and delete markers a bucket holds, and how many
    /// keys' current versions are not markers: a walk of its versions, as
    /// its owner lists them (one index read per 1000 versions per shard;
    /// `rsgw admin bucket stats` of a bucket whose versioning was set).
    pub async fn count_versions(&self, bucket: &str) -> GatewayResult<VersionCounts> {
        let info = self.bucket_info(bucket).await?;
        let rq = Requester::user(&info.owner);
        let mut p = VersionListParams {
            max_keys: 1000,
            ..VersionListParams::default()
        };
        let mut n = VersionCounts::default();
        loop {
            let page = self.list_object_versions(&rq, bucket, &p).await?;
            for v in &page.versions {
                match (v.delete_marker, v.latest) {
                    (true, _) => n.delete_markers += 1,
                    (false, true) => {
                        n.versions += 1;
                        n.current += 1;
                    }
                    (false, false) => n.versions += 1,
                }
            }
            match page.next {
                Some((key, version)) if page.is_truncated => {
                    p.key_marker = key;
                    p.version_marker = version;
                }
                _ => return Ok(n),
            }
        }
    }
}
