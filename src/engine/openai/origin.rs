//! The origin (`scheme://host:port`) of a base URL, parsed by hand: what an API key is bound
//! to, and what provider detection compares, host against host, exactly.
//!
//! Architecture invariant: a key typed for one origin is never sent to another, so everything
//! that decides where a key may go compares [`Origin`]s, never substrings of a URL. A
//! look-alike such as `https://api.openai.com.evil.example` or
//! `https://evil.example/api.openai.com` has another host and therefore another origin.

use std::fmt;

/// The scheme, host and port of a URL, lower-cased, with the scheme's default port filled in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Origin {
    /// `http` or `https`.
    pub scheme: String,
    /// Lower-cased; an IPv6 address keeps its brackets (`[::1]`).
    pub host: String,
    pub port: u16,
}

impl Origin {
    /// Parses the origin of an `http://` or `https://` URL. Userinfo (`user:pass@`) is skipped,
    /// so the host is what the browser would connect to. `None` for anything else.
    pub fn parse(url: &str) -> Option<Origin> {
        let url = url.trim();
        let (scheme, rest) = url.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        let default_port = match scheme.as_str() {
            "http" => 80,
            "https" => 443,
            _ => return None,
        };
        // The authority ends at the first '/', '?', '#' or '\' (browsers treat a backslash as
        // a slash in http URLs).
        let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
        let authority = &rest[..end];
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, hp)| hp);
        let (host, port) = if let Some(bracketed) = host_port.strip_prefix('[') {
            let (inside, after) = bracketed.split_once(']')?;
            let port = match after {
                "" => None,
                _ => Some(after.strip_prefix(':')?),
            };
            (format!("[{}]", inside.to_ascii_lowercase()), port)
        } else {
            match host_port.rsplit_once(':') {
                Some((host, port)) => (host.to_ascii_lowercase(), Some(port)),
                None => (host_port.to_ascii_lowercase(), None),
            }
        };
        if host.is_empty() || host.chars().any(char::is_whitespace) {
            return None;
        }
        let port = match port {
            None | Some("") => default_port,
            Some(digits) => digits.parse().ok()?,
        };
        Some(Origin { scheme, host, port })
    }

    /// Whether the host is this machine (a local server such as Ollama).
    pub fn is_loopback(&self) -> bool {
        matches!(self.host.as_str(), "localhost" | "[::1]") || self.host.starts_with("127.")
    }
}

/// `scheme://host:port`, always with the port, so two spellings of one origin print alike.
impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}:{}", self.scheme, self.host, self.port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(url: &str, expect: Option<&str>) {
        assert_eq!(
            Origin::parse(url).map(|o| o.to_string()).as_deref(),
            expect,
            "{url:?}"
        );
    }

    #[test]
    fn origins() {
        check(
            "https://api.openai.com/v1",
            Some("https://api.openai.com:443"),
        );
        check(
            "HTTPS://API.OpenAI.com:443/v1/",
            Some("https://api.openai.com:443"),
        );
        check("http://localhost:11434/v1", Some("http://localhost:11434"));
        check("http://127.0.0.1/v1", Some("http://127.0.0.1:80"));
        check("http://[::1]:8000/v1", Some("http://[::1]:8000"));
        check("http://[::1]/v1", Some("http://[::1]:80"));
        check("http://example.com?x=1", Some("http://example.com:80"));
        check(
            "https://api.openai.com.evil.example/v1",
            Some("https://api.openai.com.evil.example:443"),
        );
        check(
            "https://evil.example/api.openai.com",
            Some("https://evil.example:443"),
        );
        check(
            "https://api.openai.com@evil.example/v1",
            Some("https://evil.example:443"),
        );
        check(
            "https://api.openai.com:443@evil.example/v1",
            Some("https://evil.example:443"),
        );
        check(
            "https://evil.example\\@api.openai.com/v1",
            Some("https://evil.example:443"),
        );
        check("ftp://example.com", None);
        check("example.com/v1", None);
        check("http:///v1", None);
        check("http://host:99999/v1", None);
        check("http://host:abc/v1", None);
        check("http://[::1/v1", None);
    }

    #[test]
    fn loopback_hosts() {
        for url in ["http://localhost:1", "http://127.0.0.1:2", "http://[::1]:3"] {
            assert!(Origin::parse(url).unwrap().is_loopback(), "{url}");
        }
        assert!(
            !Origin::parse("http://localhost.evil.example")
                .unwrap()
                .is_loopback()
        );
    }
}
