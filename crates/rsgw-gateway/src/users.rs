//! Users and their access keys (what `rsgw admin user ...` manages and
//! SigV4 / SigV2 verification looks up).

use bytes::Bytes;
use rsgw_store::{ReadOp, StoreError, WriteOp};
use serde::{Deserialize, Serialize};

use crate::ids::{now_secs, random_bytes};
use crate::{Gateway, GatewayError, GatewayResult, layout};

/// An S3 user, as `rsgw admin user info` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct User {
    /// The user id (`--uid`).
    pub user_id: String,
    /// Display name, shown as the owner's name in listings.
    pub display_name: String,
    /// The user's S3 keys.
    pub keys: Vec<AccessKey>,
    /// Creation time, seconds since the epoch.
    pub created: f64,
}

/// One S3 key pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessKey {
    /// The owning user id.
    pub user: String,
    /// Access key id.
    pub access_key: String,
    /// Secret key.
    pub secret_key: String,
}

/// What an access key object stores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct KeyRecord {
    pub(crate) uid: String,
    pub(crate) secret: String,
}

const ALNUM_UPPER: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

fn random_string(alphabet: &[u8], len: usize) -> GatewayResult<String> {
    let bytes = random_bytes(len)
        .map_err(|e| GatewayError::InvalidArgument(format!("no randomness: {e}")))?;
    Ok(bytes
        .iter()
        .map(|b| alphabet[*b as usize % alphabet.len()] as char)
        .collect())
}

fn validate_uid(uid: &str) -> GatewayResult<()> {
    if uid.is_empty() || uid.len() > 255 || uid.chars().any(|c| c.is_control() || c == '/') {
        return Err(GatewayError::InvalidArgument(
            "user id must be 1-255 characters, without '/' or control characters".into(),
        ));
    }
    Ok(())
}

fn validate_key_pair(access: &str, secret: &str) -> GatewayResult<()> {
    let ok = |s: &str| !s.is_empty() && s.len() <= 128 && s.chars().all(|c| c.is_ascii_graphic());
    if !ok(access) || !ok(secret) {
        return Err(GatewayError::InvalidArgument(
            "access and secret keys must be 1-128 printable ASCII characters".into(),
        ));
    }
    Ok(())
}

impl Gateway {
    fn new_key_pair(&self, given: Option<(String, String)>) -> GatewayResult<(String, String)> {
        match given {
            Some((a, s)) => {
                validate_key_pair(&a, &s)?;
                Ok((a, s))
            }
            None => Ok((random_string(ALNUM_UPPER, 20)?, random_string(ALNUM, 40)?)),
        }
    }

    async fn claim_key(&self, uid: &str, access: &str, secret: &str) -> GatewayResult<()> {
        let rec = serde_json::to_vec(&KeyRecord {
            uid: uid.into(),
            secret: secret.into(),
        })?;
        match self
            .store
            .write(
                &layout::key(access),
                WriteOp::new().create_exclusive().write_full(rec),
            )
            .await
        {
            Err(StoreError::Exists) => Err(GatewayError::KeyExists(access.into())),
            r => r.map(drop).map_err(Into::into),
        }
    }

    async fn save_user(&self, user: &User) -> GatewayResult<()> {
        let data = Bytes::from(serde_json::to_vec_pretty(user)?);
        self.store
            .write(
                &layout::user(&user.user_id),
                WriteOp::new().assert_exists().write_full(data),
            )
            .await?;
        Ok(())
    }

    /// Creates a user with one key pair (generated unless given).
    pub async fn create_user(
        &self,
        uid: &str,
        display_name: &str,
        key: Option<(String, String)>,
    ) -> GatewayResult<User> {
        validate_uid(uid)?;
        let (access, secret) = self.new_key_pair(key)?;
        let user = User {
            user_id: uid.into(),
            display_name: display_name.into(),
            keys: vec![AccessKey {
                user: uid.into(),
                access_key: access.clone(),
                secret_key: secret.clone(),
            }],
            created: now_secs(),
        };
        let data = Bytes::from(serde_json::to_vec_pretty(&user)?);
        match self
            .store
            .write(
                &layout::user(uid),
                WriteOp::new().create_exclusive().write_full(data),
            )
            .await
        {
            Err(StoreError::Exists) => return Err(GatewayError::UserExists(uid.into())),
            r => r?,
        };
        if let Err(e) = self.claim_key(uid, &access, &secret).await {
            self.store
                .write(&layout::user(uid), WriteOp::new().remove())
                .await?;
            return Err(e);
        }
        Ok(user)
    }

    /// A user by id.
    pub async fn user_info(&self, uid: &str) -> GatewayResult<User> {
        match self
            .store
            .read(&layout::user(uid), ReadOp::new().read(0, 1 << 20))
            .await
        {
            Err(StoreError::NotFound) => Err(GatewayError::NoSuchUser(uid.into())),
            Err(e) => Err(e.into()),
            Ok(r) => Ok(serde_json::from_slice(&r.data.unwrap_or_default())?),
        }
    }

    /// Adds a key pair (generated unless given) to a user.
    pub async fn create_key(
        &self,
        uid: &str,
        key: Option<(String, String)>,
    ) -> GatewayResult<User> {
        let mut user = self.user_info(uid).await?;
        let (access, secret) = self.new_key_pair(key)?;
        self.claim_key(uid, &access, &secret).await?;
        user.keys.push(AccessKey {
            user: uid.into(),
            access_key: access,
            secret_key: secret,
        });
        self.save_user(&user).await?;
        Ok(user)
    }

    /// Removes an access key; returns the user as it is afterwards.
    pub async fn remove_key(&self, access_key: &str) -> GatewayResult<User> {
        let rec = self.key_record(access_key).await?;
        let mut user = self.user_info(&rec.uid).await?;
        user.keys.retain(|k| k.access_key != access_key);
        self.save_user(&user).await?;
        self.store
            .write(&layout::key(access_key), WriteOp::new().remove())
            .await?;
        self.cache.forget_key(access_key);
        Ok(user)
    }

    /// Removes a user that owns no buckets, with its keys.
    pub async fn remove_user(&self, uid: &str) -> GatewayResult<()> {
        let user = self.user_info(uid).await?;
        if !self.user_buckets(uid).await?.is_empty() {
            return Err(GatewayError::UserHasBuckets(uid.into()));
        }
        for k in &user.keys {
            match self
                .store
                .write(&layout::key(&k.access_key), WriteOp::new().remove())
                .await
            {
                Ok(_) | Err(StoreError::NotFound) => {}
                Err(e) => return Err(e.into()),
            }
            self.cache.forget_key(&k.access_key);
        }
        self.store
            .write(&layout::user(uid), WriteOp::new().remove())
            .await?;
        Ok(())
    }

    async fn key_record(&self, access_key: &str) -> GatewayResult<KeyRecord> {
        // a key no store object can be named after is simply unknown (an
        // empty one from 'Authorization: AWS :sig' answered 500 before;
        // found by the forged_auth fuzz target)
        if access_key.is_empty() || access_key.len() > 256 || access_key.contains('\0') {
            return Err(GatewayError::AccessDenied);
        }
        if let Some(rec) = self.cache.key(access_key) {
            return Ok(rec);
        }
        let r = match self
            .store
            .read(&layout::key(access_key), ReadOp::new().read(0, 1 << 16))
            .await
        {
            Err(StoreError::NotFound | StoreError::InvalidArgument(_)) => {
                return Err(GatewayError::AccessDenied);
            }
            r => r?,
        };
        let rec: KeyRecord = serde_json::from_slice(&r.data.unwrap_or_default())?;
        self.cache.put_key(access_key, &rec);
        Ok(rec)
    }

    /// The (user id, secret key) of an access key, for signature checks.
    /// An unknown key is [`GatewayError::AccessDenied`].
    pub async fn lookup_key(&self, access_key: &str) -> GatewayResult<(String, String)> {
        let rec = self.key_record(access_key).await?;
        Ok((rec.uid, rec.secret))
    }

    /// The display name of a user, or the id itself if the user is gone.
    pub async fn display_name(&self, uid: &str) -> String {
        self.user_info(uid)
            .await
            .map(|u| u.display_name)
            .unwrap_or_else(|_| uid.to_string())
    }
}
