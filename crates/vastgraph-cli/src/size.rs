//! Byte sizes as users write them: `1GiB`, `512M`, `2g`, `1.5GB`, `1048576`.
//! Binary and decimal suffixes are both read as powers of 1024, as `--memory` budgets usually
//! mean (a user writing 1G for a 1 GiB box would be surprised by 1e9).

pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("'{text}' is not a size (examples: 512MiB, 2G, 1073741824)"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        other => {
            return Err(format!(
                "unknown size unit '{other}' in '{text}' (use K, M, G or T, optionally with iB)"
            ))
        }
    };
    let too_large = || format!("size '{text}' is 2^64 bytes or more");
    // A whole number is read exactly: through f64, 2^64 - 1 would round up to 2^64.
    if let Ok(whole) = num.parse::<u64>() {
        return match whole.checked_mul(mult) {
            Some(0) => Err(format!("size '{text}' must be at least one byte")),
            Some(bytes) => Ok(bytes),
            None => Err(too_large()),
        };
    }
    // A fraction of a unit rounds down to whole bytes; a fraction of a byte is a typing error.
    if mult == 1 {
        return Err(format!(
            "size '{text}' is not a whole number of bytes (or give a unit: K, M, G or T)"
        ));
    }
    let bytes = value * mult as f64;
    if !bytes.is_finite() || bytes < 1.0 {
        return Err(format!("size '{text}' must be at least one byte"));
    }
    // `as u64` would saturate: a size of 2^64 bytes or more is a typing error, not a budget.
    if bytes >= u64::MAX as f64 {
        return Err(too_large());
    }
    Ok(bytes as u64)
}

/// Total physical memory, from /proc/meminfo.
pub fn total_ram_bytes() -> Option<u64> {
    vastgraph_engine::memory::meminfo_bytes("MemTotal:")
}

/// The budget used when `--memory` is not given: half of RAM, so the page cache keeps the other half.
pub fn default_budget() -> u64 {
    total_ram_bytes().map(|r| r / 2).unwrap_or(4 << 30)
}

pub use vastgraph_engine::memory::human_bytes as human;

/// "1.23 bytes an arc", or "no arcs" for a store without any: no figure to divide by.
pub fn bytes_an_arc(bytes: u64, arcs: u64) -> String {
    match arcs {
        0 => "no arcs".to_string(),
        _ => format!("{:.2} bytes an arc", bytes as f64 / arcs as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(parse_size("1GiB").unwrap(), 1 << 30);
        assert_eq!(parse_size("512M").unwrap(), 512 << 20);
        assert_eq!(parse_size("1.5g").unwrap(), 3 << 29);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("16777215TiB").is_ok());
        assert_eq!(
            parse_size("99999999999999999999999TiB"),
            Err("size '99999999999999999999999TiB' is 2^64 bytes or more".to_string())
        );
        assert_eq!(parse_size("18446744073709551615").unwrap(), u64::MAX);
        assert!(parse_size("18446744073709551616").is_err());
        assert!(parse_size("16777216TiB").is_err());
        assert_eq!(parse_size("0.5K").unwrap(), 512);
        assert!(parse_size("1.9")
            .unwrap_err()
            .contains("not a whole number of bytes"));
        assert!(parse_size("623260.5B").is_err());
        assert_eq!(human(3 << 29), "1.5 GiB");
    }
}
