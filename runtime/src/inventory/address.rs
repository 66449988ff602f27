//! How a host is reached: `local`, `sim:MODEL?key=value&...` or `ssh://[user@]host[:port]`.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use super::AddressError;

/// The placeholder that expands to the host's name in an inventory address.
pub(crate) const NAME_PLACEHOLDER: &str = "{name}";

/// The forms an address takes, for help texts.
pub(crate) const ADDRESS_FORMS: &str =
    "addresses are `local`, `sim:MODEL?key=value&...` or `ssh://[user@]host[:port]`";

/// How a host is reached. `Display` writes the form that `FromStr` reads back.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Address {
    /// The machine cairn runs on.
    Local,
    /// A simulated host of a model (`sim:linux?reboot_secs=2`).
    Sim {
        /// The simulator model.
        model: String,
        /// Simulator and tool options (`reboot_secs`, `clock`, faults, ...).
        options: BTreeMap<String, String>,
    },
    /// A host reached over SSH.
    Ssh {
        /// The host name or IP address.
        host: String,
        /// The port, when not the default.
        port: Option<u16>,
        /// The user, when given.
        user: Option<String>,
    },
}

impl Address {
    /// `ssh://HOST`, the address of a host whose inventory entry gives none.
    pub fn ssh(host: impl Into<String>) -> Self {
        Self::Ssh {
            host: host.into(),
            port: None,
            user: None,
        }
    }

    /// Parses `text`, expanding `{name}` to `name` (an inventory host's name) when given; without
    /// a name, `{name}` is an error.
    pub(crate) fn parse_for(text: &str, name: Option<&str>) -> Result<Self, AddressError> {
        Parser { text, name }.parse()
    }
}

impl FromStr for Address {
    type Err = AddressError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse_for(text, None)
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Local => f.write_str("local"),
            Self::Sim { model, options } => {
                write!(f, "sim:{model}")?;
                for (index, (key, value)) in options.iter().enumerate() {
                    write!(f, "{}{key}={value}", if index == 0 { '?' } else { '&' })?;
                }
                Ok(())
            }
            Self::Ssh { host, port, user } => {
                f.write_str("ssh://")?;
                if let Some(user) = user {
                    write!(f, "{user}@")?;
                }
                if host.contains(':') {
                    write!(f, "[{host}]")?;
                } else {
                    f.write_str(host)?;
                }
                if let Some(port) = port {
                    write!(f, ":{port}")?;
                }
                Ok(())
            }
        }
    }
}

impl serde::Serialize for Address {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Address {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// One parse of one address; offsets are byte offsets into `text`.
struct Parser<'a> {
    name: Option<&'a str>,
    text: &'a str,
}

impl Parser<'_> {
    fn parse(&self) -> Result<Address, AddressError> {
        self.check_placeholders()?;
        let text = self.text;
        if text == "local" {
            return Ok(Address::Local);
        }
        if let Some(rest) = text.strip_prefix("sim:") {
            return self.sim(rest, 4);
        }
        if let Some(rest) = text.strip_prefix("ssh://") {
            return self.ssh(rest, 6);
        }
        let (scheme, help) = match (text.find("://"), text.find(':')) {
            (Some(end), _) | (None, Some(end)) => {
                (text.get(..end).unwrap_or(text), ADDRESS_FORMS.to_owned())
            }
            (None, None) => (
                text,
                format!("to reach `{text}` over SSH, write `ssh://{text}`; {ADDRESS_FORMS}"),
            ),
        };
        Err(AddressError::UnknownScheme {
            address: text.into(),
            help,
            scheme: scheme.into(),
            span: (0..scheme.len()).into(),
        })
    }

    /// Every `{` opens `{name}`, and `{name}` appears only where a name is known.
    fn check_placeholders(&self) -> Result<(), AddressError> {
        let mut skip_until = 0;
        for (at, c) in self.text.char_indices() {
            if at < skip_until {
                continue;
            }
            let rest = self.text.get(at..).unwrap_or_default();
            if rest.starts_with(NAME_PLACEHOLDER) {
                if self.name.is_none() {
                    let reason = "`{name}` expands only in an inventory".into();
                    return Err(self.invalid(reason, at..at + NAME_PLACEHOLDER.len()));
                }
                skip_until = at + NAME_PLACEHOLDER.len();
            } else if c == '{' || c == '}' {
                let end = if c == '{' {
                    rest.find('}').map_or(at + 1, |close| at + close + 1)
                } else {
                    at + 1
                };
                let reason = "the only placeholder is `{name}`, the host's name".into();
                return Err(self.invalid(reason, at..end));
            }
        }
        Ok(())
    }

    fn sim(&self, rest: &str, offset: usize) -> Result<Address, AddressError> {
        let (model, query) = match rest.split_once('?') {
            Some((model, query)) => (model, Some(query)),
            None => (rest, None),
        };
        if model.is_empty() {
            return Err(self.invalid(
                "the model is missing, as in `sim:linux`".into(),
                offset..offset,
            ));
        }
        self.check_chars(model, offset, is_name_char, "a model name")?;
        let mut options = BTreeMap::new();
        let mut at = offset + model.len() + 1;
        for option in query.map(|query| query.split('&')).into_iter().flatten() {
            let (key, value) = option.split_once('=').unwrap_or((option, "true"));
            if key.is_empty() {
                let reason = "an option needs a name, as in `reboot_secs=2`".into();
                return Err(self.invalid(reason, at..at + option.len()));
            }
            self.check_chars(
                key,
                at,
                |c| c.is_ascii_alphanumeric() || c == '_',
                "an option name",
            )?;
            if options
                .insert(self.expand(key), self.expand(value))
                .is_some()
            {
                return Err(
                    self.invalid(format!("option `{key}` is given twice"), at..at + key.len())
                );
            }
            at += option.len() + 1;
        }
        Ok(Address::Sim {
            model: self.expand(model),
            options,
        })
    }

    fn ssh(&self, rest: &str, offset: usize) -> Result<Address, AddressError> {
        if let Some(at) = rest.find(['/', '?', '#']) {
            let reason = "an SSH address has no path or query: `ssh://[user@]host[:port]`".into();
            return Err(self.invalid(reason, offset + at..offset + rest.len()));
        }
        let (user, host_port, host_offset) = match rest.rsplit_once('@') {
            Some((user, host_port)) => (Some(user), host_port, offset + user.len() + 1),
            None => (None, rest, offset),
        };
        if let Some(user) = user {
            if user.is_empty() {
                return Err(self.invalid("the user before `@` is empty".into(), offset..offset + 1));
            }
            self.check_chars(user, offset, is_name_char, "a user name")?;
        }
        let (host, port, port_offset) = if let Some(bracketed) = host_port.strip_prefix('[') {
            let Some((host, after)) = bracketed.split_once(']') else {
                let reason = "`[` opens an IPv6 address but no `]` closes it".into();
                return Err(self.invalid(reason, host_offset..host_offset + host_port.len()));
            };
            let port_offset = host_offset + host.len() + 3;
            let port = match after.strip_prefix(':') {
                Some(port) => Some(port),
                None if after.is_empty() => None,
                None => {
                    let reason = "only `:PORT` may follow `]`".into();
                    return Err(
                        self.invalid(reason, port_offset - 1..host_offset + host_port.len())
                    );
                }
            };
            self.check_chars(
                host,
                host_offset + 1,
                |c| c.is_ascii_hexdigit() || ":.%".contains(c),
                "an IPv6 address",
            )?;
            (host, port, port_offset)
        } else {
            let (host, port) = match host_port.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (host_port, None),
            };
            if port.is_some_and(|port| port.contains(':')) {
                let reason = "write an IPv6 address in brackets, as in `ssh://[fe80::1]:22`".into();
                return Err(self.invalid(reason, host_offset..host_offset + host_port.len()));
            }
            self.check_chars(host, host_offset, is_name_char, "a host name")?;
            (host, port, host_offset + host.len() + 1)
        };
        if host.is_empty() {
            return Err(self.invalid("the host is missing".into(), host_offset..host_offset));
        }
        let port = port
            .map(|port| match port.parse::<u16>() {
                Ok(number) if number > 0 && port.bytes().all(|b| b.is_ascii_digit()) => Ok(number),
                _ => Err(AddressError::BadPort {
                    address: self.text.into(),
                    port: port.into(),
                    span: (port_offset..port_offset + port.len()).into(),
                }),
            })
            .transpose()?;
        Ok(Address::Ssh {
            host: self.expand(host),
            port,
            user: user.map(|user| self.expand(user)),
        })
    }

    /// Checks every character of `part` (at `offset` in the address) except `{name}`.
    fn check_chars(
        &self,
        part: &str,
        offset: usize,
        allowed: impl Fn(char) -> bool,
        what: &str,
    ) -> Result<(), AddressError> {
        let mut skip_until = 0;
        for (at, c) in part.char_indices() {
            if at < skip_until {
                continue;
            }
            if part
                .get(at..)
                .is_some_and(|rest| rest.starts_with(NAME_PLACEHOLDER))
            {
                skip_until = at + NAME_PLACEHOLDER.len();
            } else if !allowed(c) {
                let span = offset + at..offset + at + c.len_utf8();
                return Err(self.invalid(format!("{c:?} cannot appear in {what}"), span));
            }
        }
        Ok(())
    }

    fn expand(&self, part: &str) -> String {
        match self.name {
            Some(name) => part.replace(NAME_PLACEHOLDER, name),
            None => part.to_owned(),
        }
    }

    fn invalid(&self, reason: String, span: Range<usize>) -> AddressError {
        AddressError::Invalid {
            address: self.text.into(),
            reason,
            span: span.into(),
        }
    }
}

/// Letters, digits, `-`, `_` and `.`: what host, user, model and group names are made of.
pub(crate) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Address, AddressError> {
        text.parse()
    }

    #[test]
    fn parses_every_form_and_round_trips() {
        let sim = Address::Sim {
            model: "linux".into(),
            options: [("clock", "virtual"), ("reboot_secs", "2")]
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .into(),
        };
        let cases = [
            ("local", Address::Local),
            ("sim:linux?reboot_secs=2&clock=virtual", sim),
            ("ssh://node01", Address::ssh("node01")),
            (
                "ssh://root@node01.lab:2222",
                Address::Ssh {
                    host: "node01.lab".into(),
                    port: Some(2222),
                    user: Some("root".into()),
                },
            ),
            (
                "ssh://[fe80::1]:22",
                Address::Ssh {
                    host: "fe80::1".into(),
                    port: Some(22),
                    user: None,
                },
            ),
        ];
        for (text, expected) in cases {
            let parsed = parse(text);
            assert_eq!(parsed.as_ref(), Ok(&expected), "{text}");
            assert_eq!(parse(&expected.to_string()), Ok(expected), "{text}");
        }
        assert_eq!(
            parse("sim:esxi?fault_reboot_hang").map(|a| a.to_string()),
            Ok("sim:esxi?fault_reboot_hang=true".into())
        );
    }

    #[test]
    fn expands_the_host_name() {
        let address = Address::parse_for("ssh://root@{name}.lab", Some("node07"));
        assert_eq!(
            address.map(|a| a.to_string()),
            Ok("ssh://root@node07.lab".into())
        );
        assert!(matches!(
            parse("ssh://{name}"),
            Err(AddressError::Invalid { .. })
        ));
    }

    #[test]
    fn points_at_the_offending_part() {
        let cases = [
            ("telnet://node01", "telnet"),
            ("node01", "node01"),
            ("ssh://node01:99999", "99999"),
            ("ssh://node01:", ""),
            ("ssh://node01:22x", "22x"),
            ("ssh://no de", " "),
            ("ssh://root@", ""),
            ("ssh://node01/path", "/path"),
            ("sim:?clock=virtual", ""),
            ("sim:linux?clock=real&clock=virtual", "clock"),
            ("sim:linux?&x=1", ""),
            ("ssh://{host}", "{host}"),
            ("ssh://[fe80::1", "[fe80::1"),
        ];
        for (text, pointed) in cases {
            let error = parse(text).err();
            let range = error.as_ref().map(AddressError::range);
            assert_eq!(
                range.and_then(|r| text.get(r)),
                Some(pointed),
                "{text}: {error:?}"
            );
        }
        assert!(matches!(
            parse("ssh://node01:0"),
            Err(AddressError::BadPort { .. })
        ));
        assert!(matches!(
            parse("ftp://x"),
            Err(AddressError::UnknownScheme { .. })
        ));
    }
}
