//! Users and their access keys (what `rsgw admin user ...` manages and
//! SigV4 / SigV2 verification looks up). The records are
//! `model::user`'s.

use bytes::Bytes;
use rsgw_store::{ReadOp, StoreError, WriteOp};

use crate::cache::meta::Change;
use crate::model::caps::{Caps, Perm};
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::ids::{ALNUM, ALNUM_UPPER, now_secs, random_string};
use crate::model::layout;
use crate::model::limits::{ACCESS_KEY_CHARS, SECRET_KEY_CHARS};
use crate::model::quota::Quota;
use crate::model::user::{
    AccessKey, DEFAULT_MAX_BUCKETS, KeyRecord, NewKey, NewUser, User, UserChange,
};
use crate::ops::gateway::Gateway;
use crate::rules::authz::authorize_caps;
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

    /// The key pair `key` asks for, if any.
    fn key_pair_of(&self, key: &NewKey) -> GatewayResult<Option<(String, String)>> {
        match key {
            NewKey::Generate => self.new_key_pair(None).map(Some),
            NewKey::Given(a, s) => self.new_key_pair(Some((a.clone(), s.clone()))).map(Some),
            NewKey::None => Ok(None),
        }
    }

    async fn claim_key(&self, user: &User, access: &str, secret: &str) -> GatewayResult<()> {
        let rec = serde_json::to_vec(&KeyRecord {
            uid: user.user_id.clone(),
            secret: secret.into(),
            suspended: user.suspended,
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
        self.create_user_as(NewUser {
            uid: uid.into(),
            display_name: display_name.into(),
            key: key.map_or(NewKey::Generate, |(a, s)| NewKey::Given(a, s)),
            ..NewUser::default()
        })
        .await
    }

    /// Creates a user as `new` describes it; nothing of it is left when a
    /// part (its e-mail address, its key) is taken.
    pub async fn create_user_as(&self, new: NewUser) -> GatewayResult<User> {
        validate_uid(&new.uid)?;
        if new.display_name.trim().is_empty() {
            return Err(GatewayError::InvalidArgument(
                "a user needs a display name".into(),
            ));
        }
        let mut caps = Caps::default();
        if let Some(c) = &new.caps {
            caps.add(&Caps::parse_list(c)?);
        }
        let email = new.email.as_deref().map(validate_email).transpose()?;
        let pair = self.key_pair_of(&new.key)?;
        let uid = new.uid.as_str();
        let mut user = User {
            user_id: uid.into(),
            display_name: new.display_name.clone(),
            keys: Vec::new(),
            email: None,
            created: now_secs(),
            user_quota: Quota::default(),
            bucket_quota: Quota::default(),
            caps,
            suspended: new.suspended,
            max_buckets: new.max_buckets.unwrap_or(DEFAULT_MAX_BUCKETS),
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
        let completed = async {
            if email.is_some() {
                user = self.set_email(uid, email.as_deref()).await?;
            }
            if let Some((access, secret)) = pair {
                self.claim_key(&user, &access, &secret).await?;
                user.keys.push(AccessKey {
                    user: uid.into(),
                    access_key: access,
                    secret_key: secret,
                });
                self.save_user(&user).await?;
            }
            Ok::<(), GatewayError>(())
        }
        .await;
        if let Err(e) = completed {
            if let Some(e) = &user.email {
                self.forget_email(e).await?;
            }
            self.store
                .write(&layout::user(uid), WriteOp::new().remove())
                .await?;
            return Err(e);
        }
        Ok(user)
    }

    /// Changes a user as `change` says (radosgw's `user modify`); returns
    /// the user as stored.
    pub async fn modify_user(&self, uid: &str, change: UserChange) -> GatewayResult<User> {
        let mut user = self.user_info(uid).await?;
        if let Some(c) = &change.caps {
            user.caps.add(&Caps::parse_list(c)?);
        }
        if let Some(name) = change.display_name.filter(|n| !n.trim().is_empty()) {
            user.display_name = name;
        }
        if let Some(n) = change.max_buckets {
            user.max_buckets = n;
        }
        let pair = self.key_pair_of(&change.key)?;
        self.save_user(&user).await?;
        if let Some(email) = &change.email {
            user = self
                .set_email(uid, Some(email.as_str()).filter(|e| !e.is_empty()))
                .await?;
        }
        if let Some(s) = change.suspended {
            user = self.set_suspended(uid, s).await?;
        }
        if let Some((access, secret)) = pair {
            user = self.create_key(uid, Some((access, secret))).await?;
        }
        self.announce(Change::User(uid.into())).await?;
        Ok(user)
    }

    /// Suspends a user (or re-enables one): the flag is kept on the user
    /// and on each of their keys, which every instance then reads again.
    pub async fn set_suspended(&self, uid: &str, suspended: bool) -> GatewayResult<User> {
        let mut user = self.user_info(uid).await?;
        user.suspended = suspended;
        self.save_user(&user).await?;
        for k in &user.keys {
            let rec = serde_json::to_vec(&KeyRecord {
                uid: uid.into(),
                secret: k.secret_key.clone(),
                suspended,
            })?;
            self.store
                .write(
                    &layout::key(&k.access_key),
                    WriteOp::new().assert_exists().write_full(rec),
                )
                .await?;
            self.announce(Change::Key(k.access_key.clone())).await?;
        }
        Ok(user)
    }

    /// Adds caps to a user (radosgw's `caps add`, `users=*;buckets=read`).
    pub async fn add_caps(&self, uid: &str, caps: &str) -> GatewayResult<User> {
        self.change_caps(uid, caps, Caps::add).await
    }

    /// Takes caps from a user (radosgw's `caps rm`).
    pub async fn remove_caps(&self, uid: &str, caps: &str) -> GatewayResult<User> {
        self.change_caps(uid, caps, Caps::remove).await
    }

    /// Parses `caps` and applies `change` with them to the user's caps.
    async fn change_caps(
        &self,
        uid: &str,
        caps: &str,
        change: fn(&mut Caps, &[(String, Perm)]),
    ) -> GatewayResult<User> {
        let caps = Caps::parse_list(caps)?;
        let mut user = self.user_info(uid).await?;
        change(&mut user.caps, &caps);
        self.save_user(&user).await?;
        Ok(user)
    }

    /// The user `uid`, if their caps allow `need` on the Admin Ops API's
    /// part `part` (the decision is `rules::authz`'s).
    pub async fn admin_user(&self, uid: &str, part: &str, need: Perm) -> GatewayResult<User> {
        let user = match self.user_info(uid).await {
            Err(GatewayError::NoSuchUser(_)) => return Err(GatewayError::AccessDenied),
            r => r?,
        };
        authorize_caps(&user, part, need)?;
        Ok(user)
    }

    /// A user by id; an id no user can have (see `validate_uid`) is
    /// [`GatewayError::NoSuchUser`].
    pub async fn user_info(&self, uid: &str) -> GatewayResult<User> {
        // a grant to 'a\0lice' answered 500 before, the store refusing the
        // name (found by the xml_bodies fuzz target)
        if validate_uid(uid).is_err() {
            return Err(GatewayError::NoSuchUser(uid.into()));
        }
        if let Some(zone) = self.zone() {
            return Self::zone_user_info(zone, uid).await;
        }
        match self.read_whole(&layout::user(uid), ReadOp::new()).await {
            Err(GatewayError::Store(StoreError::NotFound)) => {
                Err(GatewayError::NoSuchUser(uid.into()))
            }
            Err(e) => Err(e),
            // a bucket list (the record's omap) without a record: buckets
            // made for an id no user has (the embedded tools')
            Ok(r) if r.data.as_ref().is_none_or(bytes::Bytes::is_empty) => {
                Err(GatewayError::NoSuchUser(uid.into()))
            }
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
        self.claim_key(&user, &access, &secret).await?;
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
    /// An unknown key is [`GatewayError::AccessDenied`]; a suspended
    /// user's, [`GatewayError::UserSuspended`].
    pub async fn lookup_key(&self, access_key: &str) -> GatewayResult<(String, String)> {
        if let Some(zone) = self.zone() {
            return Self::zone_lookup_key(zone, access_key).await;
        }
        let rec = self.key_record(access_key).await?;
        if rec.suspended {
            return Err(GatewayError::UserSuspended);
        }
        Ok((rec.uid, rec.secret))
    }

    /// Every user id, in order.
    pub async fn all_users(&self) -> GatewayResult<Vec<String>> {
        self.meta_names("users").await
    }

    /// The user an access key belongs to, suspended or not; an unknown key
    /// is [`GatewayError::NoSuchUser`].
    pub async fn key_owner(&self, access_key: &str) -> GatewayResult<String> {
        if let Some(zone) = self.zone() {
            return match Self::zone_lookup_key(zone, access_key).await {
                Err(GatewayError::AccessDenied) => Err(GatewayError::NoSuchUser(access_key.into())),
                r => r.map(|(uid, _)| uid),
            };
        }
        match self.key_record(access_key).await {
            Err(GatewayError::AccessDenied) => Err(GatewayError::NoSuchUser(access_key.into())),
            r => r.map(|rec| rec.uid),
        }
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

    /// A suspended user's keys are refused until the user is enabled
    /// again; caps are added, taken and decide the Admin Ops API.
    #[tokio::test]
    async fn suspension_and_caps() {
        let f = Fixture::new(small_opts()).await;
        f.gw.create_user_as(NewUser {
            uid: "sam".into(),
            display_name: "Sam".into(),
            key: NewKey::Given("SAMKEY".into(), "SAMSECRET".into()),
            caps: Some("users=read".into()),
            ..NewUser::default()
        })
        .await
        .expect("user");
        assert!(f.gw.lookup_key("SAMKEY").await.is_ok());
        f.gw.set_suspended("sam", true).await.expect("suspend");
        assert!(matches!(
            f.gw.lookup_key("SAMKEY").await,
            Err(GatewayError::UserSuspended)
        ));
        assert_eq!(f.gw.key_owner("SAMKEY").await.expect("owner"), "sam");
        f.gw.set_suspended("sam", false).await.expect("enable");
        assert!(f.gw.lookup_key("SAMKEY").await.is_ok());
        // a key added while suspended is suspended too
        f.gw.set_suspended("sam", true).await.expect("suspend");
        f.gw.create_key("sam", Some(("SAM2".into(), "S2".into())))
            .await
            .expect("key");
        assert!(matches!(
            f.gw.lookup_key("SAM2").await,
            Err(GatewayError::UserSuspended)
        ));
        assert!(f.gw.admin_user("sam", "users", Perm::READ).await.is_ok());
        assert!(matches!(
            f.gw.admin_user("sam", "users", Perm::WRITE).await,
            Err(GatewayError::AccessDenied)
        ));
        f.gw.add_caps("sam", "users=write;buckets=read")
            .await
            .expect("caps");
        assert!(f.gw.admin_user("sam", "users", Perm::WRITE).await.is_ok());
        f.gw.remove_caps("sam", "users=*").await.expect("caps");
        assert!(matches!(
            f.gw.admin_user("sam", "users", Perm::READ).await,
            Err(GatewayError::AccessDenied)
        ));
        assert!(matches!(
            f.gw.admin_user("nobody", "users", Perm::READ).await,
            Err(GatewayError::AccessDenied)
        ));
        assert!(matches!(
            f.gw.add_caps("sam", "bogus=*").await,
            Err(GatewayError::InvalidCap(_))
        ));
        // a taken e-mail address leaves no user behind
        f.gw.set_email("sam", Some("sam@example.com"))
            .await
            .expect("email");
        assert!(matches!(
            f.gw.create_user_as(NewUser {
                uid: "other".into(),
                display_name: "Other".into(),
                email: Some("sam@example.com".into()),
                ..NewUser::default()
            })
            .await,
            Err(GatewayError::EmailExists(_))
        ));
        assert!(matches!(
            f.gw.user_info("other").await,
            Err(GatewayError::NoSuchUser(_))
        ));
    }

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
