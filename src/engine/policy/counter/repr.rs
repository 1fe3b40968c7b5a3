//! The lengths of a parsed JSON value as two languages print it, for the counters that count
//! characters of printed values: Python's `repr()` (LangChain's tool calls, in code points) and
//! JavaScript's `JSON.stringify` (Gemini CLI's parts, in UTF-16 units). Only the lengths are
//! needed, so key order (which `serde_json` does not keep) does not matter.

use serde_json::Value;

/// Code points of `repr(value)` of the Python value `json.loads` gives.
pub fn python_len(value: &Value) -> usize {
    match value {
        Value::Null => "None".len(),
        Value::Bool(true) => "True".len(),
        Value::Bool(false) => "False".len(),
        Value::Number(n) => match n.as_f64() {
            Some(_) if n.is_i64() || n.is_u64() => n.to_string().len(),
            Some(f) => python_float(f).len(),
            None => n.to_string().len(),
        },
        Value::String(s) => python_str_len(s),
        Value::Array(items) => {
            2 + items.iter().map(python_len).sum::<usize>() + 2 * items.len().saturating_sub(1)
        }
        Value::Object(map) => {
            2 + map
                .iter()
                .map(|(k, v)| python_str_len(k) + 2 + python_len(v))
                .sum::<usize>()
                + 2 * map.len().saturating_sub(1)
        }
    }
}

/// Code points of `repr(text)`: quotes, escapes and the characters Python will not print.
pub fn python_str_len(text: &str) -> usize {
    let both = text.contains('\'') && text.contains('"');
    2 + text
        .chars()
        .map(|c| match c {
            '\\' | '\n' | '\r' | '\t' => 2,
            '\'' if both => 2,
            c if !python_printable(c) => match u32::from(c) {
                0..=0xff => 4,
                0x100..=0xffff => 6,
                _ => 10,
            },
            _ => 1,
        })
        .sum::<usize>()
}

/// Python's `str.isprintable` for one character: false for control and format characters,
/// separators other than the space, private use and noncharacters.
fn python_printable(c: char) -> bool {
    let u = u32::from(c);
    !matches!(u,
        0..=0x1f | 0x7f..=0xa0 | 0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x890..=0x891
        | 0x8e2 | 0x1680 | 0x180e | 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x2064
        | 0x2066..=0x206f | 0x3000 | 0xd800..=0xf8ff | 0xfdd0..=0xfdef | 0xfeff
        | 0xfff9..=0xfffb | 0x110bd | 0x110cd | 0x13430..=0x1343f | 0x1bca0..=0x1bca3
        | 0x1d173..=0x1d17a | 0xe0001 | 0xe0020..=0xe007f | 0xf0000..=0x10ffff)
        && u & 0xfffe != 0xfffe
}

/// Python's `repr` of a float: the shortest digits, fixed between 1e-4 and 1e16, else
/// `d.ddde±XX`.
fn python_float(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let (digits, exp) = shortest(f);
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let fixed = fixed(&digits, exp);
        let fixed = if fixed.contains('.') {
            fixed
        } else {
            fixed + ".0"
        };
        return format!("{sign}{fixed}");
    }
    let esign = if exp < 0 { '-' } else { '+' };
    format!("{sign}{}e{esign}{:02}", mantissa(&digits), exp.abs())
}

/// UTF-16 units of `JSON.stringify(value)` of the JavaScript value `JSON.parse` gives.
pub fn js_len(value: &Value) -> usize {
    match value {
        Value::Null => "null".len(),
        Value::Bool(true) => "true".len(),
        Value::Bool(false) => "false".len(),
        Value::Number(n) => js_number(n.as_f64().unwrap_or(0.0)).len(),
        Value::String(s) => js_str_len(s),
        Value::Array(items) => {
            2 + items.iter().map(js_len).sum::<usize>() + items.len().saturating_sub(1)
        }
        Value::Object(map) => {
            2 + map
                .iter()
                .map(|(k, v)| js_str_len(k) + 1 + js_len(v))
                .sum::<usize>()
                + map.len().saturating_sub(1)
        }
    }
}

/// UTF-16 units of `JSON.stringify(text)`.
pub fn js_str_len(text: &str) -> usize {
    2 + text
        .chars()
        .map(|c| match c {
            '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
            c if u32::from(c) < 0x20 => 6,
            c => c.len_utf16(),
        })
        .sum::<usize>()
}

/// JavaScript's `Number.prototype.toString` of a finite number (JSON gives no other).
fn js_number(f: f64) -> String {
    if f == 0.0 || !f.is_finite() {
        return "0".into();
    }
    let (digits, exp) = shortest(f);
    let sign = if f < 0.0 { "-" } else { "" };
    // JavaScript's n: the value is 0.d1d2… × 10^n.
    let n = exp + 1;
    let k = digits.len() as i32;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if -6 < n && n <= 21 {
        fixed(&digits, exp)
    } else {
        let esign = if n - 1 < 0 { '-' } else { '+' };
        format!("{}e{esign}{}", mantissa(&digits), (n - 1).abs())
    };
    format!("{sign}{body}")
}

/// The shortest round-trip digits of `|f|` and the decimal exponent of the first digit.
fn shortest(f: f64) -> (String, i32) {
    let text = format!("{:e}", f.abs());
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    (mantissa.replace('.', ""), exp.parse().unwrap_or(0))
}

/// `digits` with its first digit at 10^`exp`, written without an exponent.
fn fixed(digits: &str, exp: i32) -> String {
    if exp < 0 {
        return format!("0.{}{digits}", "0".repeat((-exp - 1) as usize));
    }
    let whole = exp as usize + 1;
    if digits.len() <= whole {
        format!("{digits}{}", "0".repeat(whole - digits.len()))
    } else {
        format!("{}.{}", &digits[..whole], &digits[whole..])
    }
}

/// `d.ddd` from the digits.
fn mantissa(digits: &str) -> String {
    if digits.len() == 1 {
        digits.to_owned()
    } else {
        format!("{}.{}", &digits[..1], &digits[1..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_reprs_of_numbers_strings_and_containers() {
        assert_eq!(python_float(1.0), "1.0");
        assert_eq!(python_float(0.0001), "0.0001");
        assert_eq!(python_float(0.00001), "1e-05");
        assert_eq!(python_float(1e16), "1e+16");
        assert_eq!(python_float(123456.75), "123456.75");
        assert_eq!(python_float(-2.5e-7), "-2.5e-07");
        assert_eq!(python_str_len("it's"), 6);
        assert_eq!(python_str_len("it's \"x\""), 11);
        assert_eq!(python_str_len("a\nb"), 6);
        assert_eq!(python_str_len("नमस्ते"), 8);
        assert_eq!(python_str_len("\u{7}"), 6);
        let v: Value = serde_json::from_str(r#"{"a": [1, 2.0, null, true], "b": {}}"#).unwrap();
        assert_eq!(python_len(&v), "{'a': [1, 2.0, None, True], 'b': {}}".len());
    }

    #[test]
    fn javascript_stringify_lengths() {
        assert_eq!(js_number(1.0), "1");
        assert_eq!(js_number(1e21), "1e+21");
        assert_eq!(js_number(1e20), "100000000000000000000");
        assert_eq!(js_number(0.000001), "0.000001");
        assert_eq!(js_number(1e-7), "1e-7");
        assert_eq!(js_number(-12.5), "-12.5");
        assert_eq!(js_str_len("a\"b"), 6);
        assert_eq!(js_str_len("\u{1}"), 8);
        assert_eq!(js_str_len("😀"), 4);
        let v: Value = serde_json::from_str(r#"{"a": [1, 2.0, null, true], "b": {}}"#).unwrap();
        assert_eq!(js_len(&v), r#"{"a":[1,2,null,true],"b":{}}"#.len());
    }
}
