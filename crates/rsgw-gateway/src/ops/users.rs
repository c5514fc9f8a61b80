//! Users and their access keys (what `rsgw admin user ...` manages and
//! SigV4 / SigV2 verification looks up). The records are
//! `model::user`'s.

use bytes::Bytes;
use rsgw_store::{ReadOp, StoreError, WriteOp};

use crate::cache::meta::Change;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::ids::{ALNUM, ALNUM_UPPER, now_secs, random_string};
use crate::model::layout;
use crate::model::limits::{ACCESS_KEY_CHARS, SECRET_KEY_CHARS};
use crate::model::quota::Quota;
use crate::model::user::{AccessKey, KeyRecord, User};
use crate::ops::gateway::Gateway;
use crate::rules::names::{validate_email, validate_key_pair, validate_uid};

impl Gateway {
    fn new_key_pair(&self, given: Option<(String, String)>) -> GatewayResult<(String, String)> {
        match given {
            Some((a, s)) => {
                validate_key_pair(&a, &s)?;
                Ok((a, s))
            }
            None => Ok((
                random_string(ALNUM_UPPER, ACCESS_KEY_CHARS)?,
                random_string(ALNUM, SECRET_KEY_CHARS)?,
            )),
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

    pub(crate) async fn save_user(&self, user: &User) -> GatewayResult<()> {
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
            email: None,
            created: now_secs(),
            user_quota: Quota::default(),
            bucket_quota: Quota::default(),
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
        match self.read_whole(&layout::user(uid), ReadOp::new()).await {
            Err(GatewayError::Store(StoreError::NotFound)) => {
                Err(GatewayError::NoSuchUser(uid.into()))
            }
            Err(e) => Err(e),
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
        self.announce(Change::Key(access_key.into())).await?;
        Ok(user)
    }

    /// Gives a user an e-mail address (`None` takes it away): unique across
    /// users, as radosgw's, and kept lowercase. ACL grants by e-mail
    /// resolve to the user through it.
    pub async fn set_email(&self, uid: &str, email: Option<&str>) -> GatewayResult<User> {
        let mut user = self.user_info(uid).await?;
        let email = email.map(validate_email).transpose()?;
        if user.email == email {
            return Ok(user);
        }
        if let Some(e) = &email {
            let claimed = self
                .store
                .write(
                    &layout::email(e),
                    WriteOp::new()
                        .create_exclusive()
                        .write_full(Bytes::from(uid.to_string())),
                )
                .await;
            match claimed {
                Err(StoreError::Exists) if self.email_user(e).await?.as_deref() != Some(uid) => {
                    return Err(GatewayError::EmailExists(e.clone()));
                }
                Err(StoreError::Exists) | Ok(_) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let old = std::mem::replace(&mut user.email, email);
        self.save_user(&user).await?;
        if let Some(old) = old {
            self.forget_email(&old).await?;
        }
        Ok(user)
    }

    /// The user an e-mail address (lowercase) names, if any.
    pub(crate) async fn email_user(&self, email: &str) -> GatewayResult<Option<String>> {
        match self.read_whole(&layout::email(email), ReadOp::new()).await {
            Ok(r) => Ok(Some(
                String::from_utf8_lossy(&r.data.unwrap_or_default()).into_owned(),
            )),
            Err(GatewayError::Store(StoreError::NotFound | StoreError::InvalidArgument(_))) => {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    async fn forget_email(&self, email: &str) -> GatewayResult<()> {
        match self
            .store
            .write(&layout::email(email), WriteOp::new().remove())
            .await
        {
            Ok(_) | Err(StoreError::NotFound) => Ok(()),
            Err(e) => Err(e.into()),
        }
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
            self.announce(Change::Key(k.access_key.clone())).await?;
        }
        if let Some(email) = &user.email {
            self.forget_email(email).await?;
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
        let ticket = self.cache.ticket();
        let r = match self
            .read_whole(&layout::key(access_key), ReadOp::new())
            .await
        {
            Err(GatewayError::Store(StoreError::NotFound | StoreError::InvalidArgument(_))) => {
                return Err(GatewayError::AccessDenied);
            }
            r => r?,
        };
        let rec: KeyRecord = serde_json::from_slice(&r.data.unwrap_or_default())?;
        self.cache.put_key(ticket, access_key, &rec);
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
            .map_or_else(|_| uid.to_string(), |u| u.display_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{Fixture, small_opts};

    /// Users and keys: creation, lookup, removal, and the refusals.
    #[tokio::test]
    async fn users_and_keys() {
        let f = Fixture::new(small_opts()).await;
        let u =
            f.gw.create_user("alice", "Alice", Some(("AK1".into(), "SK1".into())))
                .await
                .expect("create");
        assert_eq!(u.keys.len(), 1);
        assert_eq!(
            f.gw.lookup_key("AK1").await.expect("lookup"),
            ("alice".to_string(), "SK1".to_string())
        );
        assert!(matches!(
            f.gw.create_user("alice", "Again", None).await,
            Err(GatewayError::UserExists(..))
        ));
        // a taken access key leaves no user behind
        assert!(matches!(
            f.gw.create_user("bob", "Bob", Some(("AK1".into(), "x".into())))
                .await,
            Err(GatewayError::KeyExists(..))
        ));
        assert!(matches!(
            f.gw.user_info("bob").await,
            Err(GatewayError::NoSuchUser(..))
        ));
        let generated = f.gw.create_key("alice", None).await.expect("create key");
        let k = &generated.keys[1];
        assert_eq!(k.access_key.len(), 20);
        assert_eq!(k.secret_key.len(), 40);
        assert_eq!(
            f.gw.lookup_key(&k.access_key).await.expect("lookup"),
            ("alice".to_string(), k.secret_key.clone())
        );
        // unknown and unnameable keys are refused alike
        for unknown in ["AK2", "", "a\0b", &"K".repeat(300)] {
            assert!(
                matches!(
                    f.gw.lookup_key(unknown).await,
                    Err(GatewayError::AccessDenied)
                ),
                "{unknown:?}"
            );
        }
        let left = f.gw.remove_key("AK1").await.expect("remove key");
        assert_eq!(left.keys.len(), 1);
        assert!(matches!(
            f.gw.lookup_key("AK1").await,
            Err(GatewayError::AccessDenied)
        ));
        // a user with buckets stays
        f.gw.create_bucket("alice", "abucket", crate::CannedAcl::Private)
            .await
            .expect("bucket");
        assert!(matches!(
            f.gw.remove_user("alice").await,
            Err(GatewayError::UserHasBuckets(..))
        ));
        f.gw.delete_bucket(&crate::Requester::user("alice"), "abucket")
            .await
            .expect("delete bucket");
        f.gw.remove_user("alice").await.expect("remove user");
        assert!(matches!(
            f.gw.lookup_key(&k.access_key).await,
            Err(GatewayError::AccessDenied)
        ));
        assert!(matches!(
            f.gw.user_info("alice").await,
            Err(GatewayError::NoSuchUser(..))
        ));
        assert_eq!(f.gw.display_name("alice").await, "alice");
    }
}
