//! Where the links `rally serve` prints point. On this computer only (`127.0.0.1`) they are
//! the listening address; listening on every interface (`0.0.0.0`, `::`), an address nobody
//! can type in a browser, they use the machine's own network addresses (the first for the
//! links, the others said beside them); behind a reverse proxy, the public URL the operator
//! gives (`--base-url`), path prefix included.
//!
//! The pages need none of this: they ask for everything relative to their own address, so
//! the WebSocket goes wherever the page came from (through the proxy and its prefix too).

use std::net::{IpAddr, SocketAddr};

/// `--base-url`: an `http://` or `https://` URL without a query or fragment, as the links'
/// base (a trailing `/` dropped); or why not.
pub fn base_url(text: &str) -> Result<String, String> {
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
        .ok_or_else(|| format!("`{text}` is not an http:// or https:// URL"))?;
    let host = rest.split('/').next().unwrap_or("");
    if host.is_empty() {
        return Err(format!("`{text}` names no host"));
    }
    if let Some(c) = text
        .chars()
        .find(|&c| c.is_whitespace() || c.is_control() || matches!(c, '?' | '#' | '"' | '<' | '>'))
    {
        return Err(format!(
            "`{text}` cannot hold {c:?}: give the URL the players open, without a query or fragment"
        ));
    }
    Ok(text.trim_end_matches('/').to_string())
}

/// The bases of the printed links: `--base-url`'s, else one per address this server can be
/// reached at (`listening` on every interface: the machine's own addresses, loopback last).
pub fn bases(listening: SocketAddr, base_url: Option<&str>) -> Vec<String> {
    if let Some(url) = base_url {
        return vec![url.to_string()];
    }
    let ip = listening.ip();
    if !ip.is_unspecified() {
        return vec![format!("http://{listening}")];
    }
    let mut found: Vec<IpAddr> = interfaces()
        .into_iter()
        .filter(|a| !a.is_loopback() && !a.is_unspecified())
        // `0.0.0.0` is IPv4 only; `::` takes both where the system allows it.
        .filter(|a| ip.is_ipv6() || a.is_ipv4())
        // An IPv6 link-local address needs a zone in a URL: the other addresses do better.
        .filter(|a| !matches!(a, IpAddr::V6(v6) if (v6.segments()[0] & 0xffc0) == 0xfe80))
        .collect();
    found.sort_by_key(|a| (a.is_ipv6(), *a));
    found.dedup();
    let loopback = match ip {
        IpAddr::V4(_) => IpAddr::from([127, 0, 0, 1]),
        IpAddr::V6(_) => IpAddr::from(std::net::Ipv6Addr::LOCALHOST),
    };
    found.push(loopback);
    found
        .into_iter()
        .map(|a| format!("http://{}", SocketAddr::new(a, listening.port())))
        .collect()
}

/// The machine's interface addresses (none if the system will not say).
fn interfaces() -> Vec<IpAddr> {
    match if_addrs::get_if_addrs() {
        Ok(list) => list.into_iter().map(|i| i.ip()).collect(),
        Err(e) => {
            tracing::warn!("cannot list this computer's network addresses: {e}");
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_http_urls_without_query_or_fragment() {
        assert_eq!(
            base_url("https://play.example.org/rally/").as_deref(),
            Ok("https://play.example.org/rally")
        );
        assert_eq!(
            base_url("http://10.0.0.5:8080").as_deref(),
            Ok("http://10.0.0.5:8080")
        );
        for (bad, why) in [
            ("play.example.org", "not an http"),
            ("ftp://x", "not an http"),
            ("https://", "no host"),
            ("https:///rally", "no host"),
            ("https://x/a?b=1", "'?'"),
            ("https://x/#t", "'#'"),
            ("https://x/a b", "' '"),
            ("https://x/\"><script>", "'\"'"),
        ] {
            let e = base_url(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn links_name_an_address_a_browser_can_open() {
        let at = |s: &str| s.parse::<SocketAddr>().unwrap();
        assert_eq!(bases(at("127.0.0.1:8080"), None), ["http://127.0.0.1:8080"]);
        assert_eq!(bases(at("10.1.2.3:80"), None), ["http://10.1.2.3:80"]);
        assert_eq!(
            bases(at("0.0.0.0:8080"), Some("https://x.org/r")),
            ["https://x.org/r"]
        );
        let every = bases(at("0.0.0.0:8080"), None);
        assert_eq!(
            every.last().map(String::as_str),
            Some("http://127.0.0.1:8080"),
            "loopback last"
        );
        assert!(every.iter().all(|b| !b.contains("0.0.0.0")), "{every:?}");
        let v6 = bases(at("[::]:8080"), None);
        assert_eq!(v6.last().map(String::as_str), Some("http://[::1]:8080"));
    }
}
