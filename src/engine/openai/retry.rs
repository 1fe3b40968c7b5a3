//! Retry timing as pure arithmetic: the backoff before each retry (the caller draws the
//! jitter) and the server's `Retry-After` header read as a wait.

/// How long to wait before retry number `attempt` (0 for the first retry). A server-supplied
/// wait wins (capped at two minutes); otherwise the delay doubles from one second up to 30 s,
/// with "equal jitter": half fixed, half scaled by `jitter_unit` in [0, 1], which the caller
/// draws so that this stays pure.
pub fn backoff_delay_ms(attempt: u32, retry_after_ms: Option<u64>, jitter_unit: f64) -> u64 {
    const BASE_MS: u64 = 1_000;
    const CAP_MS: u64 = 30_000;
    const MAX_SERVER_WAIT_MS: u64 = 120_000;
    if let Some(wait) = retry_after_ms {
        return wait.min(MAX_SERVER_WAIT_MS);
    }
    let exponential = BASE_MS.saturating_mul(1u64 << attempt.min(20)).min(CAP_MS);
    let jitter = if jitter_unit.is_finite() {
        jitter_unit.clamp(0.0, 1.0)
    } else {
        0.5
    };
    let half = exponential / 2;
    half + (half as f64 * jitter).round() as u64
}

/// Parses a `Retry-After` value: delta-seconds (fractions tolerated) or an HTTP-date.
pub fn parse_retry_after(value: &str, now_ms: u64) -> Option<u64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64);
    }
    let date = httpdate::parse_http_date(value).ok()?;
    let at_ms = date.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis() as u64;
    Some(at_ms.saturating_sub(now_ms))
}

/// The wait a failed response asks for: `retry-after-ms` (milliseconds, sent by OpenAI and
/// Azure) wins over `retry-after` (seconds or an HTTP-date), as the more precise of the two.
pub fn server_wait_ms(
    retry_after_ms: Option<&str>,
    retry_after: Option<&str>,
    now_ms: u64,
) -> Option<u64> {
    retry_after_ms
        .and_then(|value| value.trim().parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
        .map(|ms| ms.round() as u64)
        .or_else(|| retry_after.and_then(|value| parse_retry_after(value, now_ms)))
}
