//! Website configurations: the checks S3 makes of one put, and which
//! routing rule sends a request where.

use crate::model::error::{GatewayError, GatewayResult};
use crate::model::limits::MAX_ROUTING_RULES;
use crate::model::website::{RoutingRule, WebsiteConfig, WebsiteRedirect};

fn invalid<T>(m: &str) -> GatewayResult<T> {
    Err(GatewayError::InvalidArgument(m.to_string()))
}

fn check_protocol(p: Option<&String>) -> GatewayResult<()> {
    match p.map(String::as_str) {
        None | Some("http" | "https") => Ok(()),
        Some(_) => invalid("Invalid protocol, protocol can be http or https"),
    }
}

impl WebsiteConfig {
    /// Checks a configuration as S3 does when it is put.
    pub fn check(&self) -> GatewayResult<()> {
        if let Some(all) = &self.redirect_all {
            if self.index_suffix.is_some()
                || self.error_key.is_some()
                || !self.routing_rules.is_empty()
            {
                return invalid(
                    "RedirectAllRequestsTo cannot be provided in conjunction with other Routing/Redirection elements",
                );
            }
            if all.host.is_empty() {
                return invalid("RedirectAllRequestsTo needs a HostName");
            }
            return check_protocol(all.protocol.as_ref());
        }
        match self.index_suffix.as_deref() {
            None => {
                return invalid(
                    "A value for IndexDocument Suffix must be provided if RedirectAllRequestsTo is empty",
                );
            }
            Some(s) if s.is_empty() || s.contains('/') => {
                return invalid("The IndexDocument Suffix is not well formed");
            }
            Some(_) => {}
        }
        if self.error_key.as_deref() == Some("") {
            return invalid("The ErrorDocument Key is not well formed");
        }
        if self.routing_rules.len() > MAX_ROUTING_RULES {
            return Err(GatewayError::InvalidRequest(format!(
                "{} routing rules provided, the number of routing rules in a website \
                 configuration is limited to {MAX_ROUTING_RULES}.",
                self.routing_rules.len()
            )));
        }
        for r in &self.routing_rules {
            let d = &r.redirect;
            if d.replace_key.is_some() && d.replace_key_prefix.is_some() {
                return invalid("You can only define ReplaceKeyPrefix or ReplaceKey but not both.");
            }
            if d.host.is_none()
                && d.protocol.is_none()
                && d.replace_key.is_none()
                && d.replace_key_prefix.is_none()
                && d.code.is_none()
            {
                return invalid("A Redirect must name at least one of its elements");
            }
            check_protocol(d.protocol.as_ref())?;
            if let Some(c) = d.code.filter(|c| !(301..400).contains(c)) {
                return invalid(&format!(
                    "The provided HTTP redirect code ({c}) is not valid. Valid codes are 3XX \
                     except 300"
                ));
            }
            if r.error_code.is_some_and(|c| !(400..600).contains(&c)) {
                return invalid(
                    "The provided HTTP error code is not valid. Valid codes are 4XX or 5XX",
                );
            }
        }
        Ok(())
    }

    /// The first routing rule for `key` that applies: before the object
    /// is read (`failed` is `None`) only rules without an error code, after
    /// a failure with that status only rules naming it.
    pub(crate) fn rule_for(&self, key: &str, failed: Option<u16>) -> Option<&RoutingRule> {
        self.routing_rules.iter().find(|r| {
            r.error_code == failed && r.key_prefix.as_deref().is_none_or(|p| key.starts_with(p))
        })
    }
}

impl RoutingRule {
    /// Where the rule sends a request for `key`.
    pub(crate) fn redirect(&self, key: &str) -> WebsiteRedirect {
        let d = &self.redirect;
        let key = if let Some(k) = &d.replace_key {
            k.clone()
        } else if let Some(with) = &d.replace_key_prefix {
            let prefix = self.key_prefix.as_deref().unwrap_or("");
            format!("{with}{}", key.strip_prefix(prefix).unwrap_or(key))
        } else {
            key.to_string()
        };
        WebsiteRedirect {
            status: d.code.unwrap_or(301),
            protocol: d.protocol.clone(),
            host: d.host.clone(),
            key,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::website::{Redirect, RedirectAll};
    use crate::testutil::website as site;

    fn rule(prefix: Option<&str>, error: Option<u16>, redirect: Redirect) -> RoutingRule {
        RoutingRule {
            key_prefix: prefix.map(str::to_string),
            error_code: error,
            redirect,
        }
    }

    #[test]
    fn configurations_are_checked_as_s3_does() {
        assert!(site().check().is_ok());
        let all = WebsiteConfig {
            redirect_all: Some(RedirectAll {
                host: "example.com".into(),
                protocol: Some("https".into()),
            }),
            ..Default::default()
        };
        assert!(all.check().is_ok());
        let to = |host: &str| Redirect {
            host: Some(host.into()),
            ..Default::default()
        };
        let bad = [
            (
                WebsiteConfig::default(),
                "IndexDocument Suffix must be provided",
            ),
            (
                WebsiteConfig {
                    index_suffix: Some(String::new()),
                    ..Default::default()
                },
                "not well formed",
            ),
            (
                WebsiteConfig {
                    index_suffix: Some("a/index.html".into()),
                    ..Default::default()
                },
                "not well formed",
            ),
            (
                WebsiteConfig {
                    index_suffix: Some("index.html".into()),
                    ..all.clone()
                },
                "in conjunction",
            ),
            (
                WebsiteConfig {
                    redirect_all: Some(RedirectAll {
                        host: "example.com".into(),
                        protocol: Some("ftp".into()),
                    }),
                    ..Default::default()
                },
                "protocol",
            ),
            (
                WebsiteConfig {
                    routing_rules: vec![rule(
                        None,
                        None,
                        Redirect {
                            replace_key: Some("a".into()),
                            replace_key_prefix: Some("b".into()),
                            ..Default::default()
                        },
                    )],
                    ..site()
                },
                "not both",
            ),
            (
                WebsiteConfig {
                    routing_rules: vec![rule(Some("a"), None, Redirect::default())],
                    ..site()
                },
                "at least one",
            ),
            (
                WebsiteConfig {
                    routing_rules: vec![rule(
                        None,
                        None,
                        Redirect {
                            code: Some(200),
                            ..Default::default()
                        },
                    )],
                    ..site()
                },
                "(200) is not valid",
            ),
            (
                WebsiteConfig {
                    routing_rules: vec![rule(
                        None,
                        None,
                        Redirect {
                            code: Some(300),
                            ..Default::default()
                        },
                    )],
                    ..site()
                },
                "3XX except 300",
            ),
            (
                WebsiteConfig {
                    routing_rules: vec![rule(None, Some(302), to("x"))],
                    ..site()
                },
                "4XX or 5XX",
            ),
            (
                WebsiteConfig {
                    routing_rules: vec![rule(None, None, to("x")); 51],
                    ..site()
                },
                "51 routing rules provided",
            ),
        ];
        for (cfg, why) in bad {
            let e = cfg.check().expect_err(why);
            assert!(
                matches!(&e, GatewayError::InvalidArgument(m) | GatewayError::InvalidRequest(m)
                    if m.contains(why)),
                "{why}: {e}"
            );
        }
    }

    #[test]
    fn routing_rules_match_in_order_and_rewrite_the_key() {
        let cfg = WebsiteConfig {
            routing_rules: vec![
                rule(
                    Some("docs/"),
                    None,
                    Redirect {
                        replace_key_prefix: Some("documents/".into()),
                        ..Default::default()
                    },
                ),
                rule(
                    Some("docs/"),
                    None,
                    Redirect {
                        replace_key: Some("never.html".into()),
                        ..Default::default()
                    },
                ),
                rule(
                    None,
                    Some(404),
                    Redirect {
                        host: Some("example.com".into()),
                        protocol: Some("https".into()),
                        code: Some(302),
                        ..Default::default()
                    },
                ),
                rule(
                    Some("old"),
                    Some(403),
                    Redirect {
                        replace_key: Some("gone.html".into()),
                        ..Default::default()
                    },
                ),
            ],
            ..site()
        };
        let r = cfg.rule_for("docs/a/b.html", None).expect("prefix rule");
        assert_eq!(
            r.redirect("docs/a/b.html"),
            WebsiteRedirect {
                status: 301,
                protocol: None,
                host: None,
                key: "documents/a/b.html".into()
            }
        );
        assert!(cfg.rule_for("img/a.png", None).is_none());
        let r = cfg.rule_for("img/a.png", Some(404)).expect("error rule");
        assert_eq!(
            r.redirect("img/a.png"),
            WebsiteRedirect {
                status: 302,
                protocol: Some("https".into()),
                host: Some("example.com".into()),
                key: "img/a.png".into()
            }
        );
        assert!(cfg.rule_for("img/a.png", Some(403)).is_none());
        let r = cfg
            .rule_for("older.html", Some(403))
            .expect("prefix and code");
        assert_eq!(r.redirect("older.html").key, "gone.html");
    }
}
