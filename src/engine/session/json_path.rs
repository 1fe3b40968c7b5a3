//! Typed reading of a JSON value with the path of a field at fault, as
//! `session.messages[3].role`.
//!
//! The value is written out compactly and read back typed by serde_json, whose error gives the
//! byte where it stopped; [`path_at`] walks the text up to that byte and says which keys and
//! indices lead there. This replaces `serde_path_to_error`, which wraps every wire type's
//! deserializer in its own tracking copy: 86 KB of the page's wasm for the same paths.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// A field of the wrong shape: its path (`.` for the whole value) and serde's reason.
#[derive(Debug, PartialEq)]
pub(super) struct PathError {
    pub(super) path: String,
    pub(super) message: String,
}

/// Reads `value` as `T`; on failure, names the path at fault.
pub(super) fn deserialize<T: DeserializeOwned>(value: &Value) -> Result<T, PathError> {
    let text = value.to_string();
    serde_json::from_str(&text).map_err(|e| {
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
        // Compact output is one line, and serde_json's column is the bytes it had consumed.
        let path = path_at(&text, e.column());
        PathError { path, message }
    })
}

enum Frame {
    /// An object: the key last read, and whether its value has begun.
    Object { key: Option<String>, in_value: bool },
    /// An array: the index of the element being read, and whether it has begun.
    Array { index: usize, in_value: bool },
}

/// The path of the value that holds byte `offset` of the JSON `text`: each object key and array
/// index on the way down to where reading stopped. The whole value is `.`.
pub(super) fn path_at(text: &str, offset: usize) -> String {
    let bytes = text.as_bytes();
    let end = offset.min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < end {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i = start;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let is_key = matches!(
                    stack.last(),
                    Some(Frame::Object {
                        in_value: false,
                        ..
                    })
                );
                if is_key {
                    let raw = &text[start..i.min(text.len())];
                    let key = serde_json::from_str::<String>(&format!("\"{raw}\""))
                        .unwrap_or_else(|_| raw.to_owned());
                    if let Some(Frame::Object { key: k, .. }) = stack.last_mut() {
                        *k = Some(key);
                    }
                } else {
                    begin_value(&mut stack);
                }
            }
            b':' => {
                if let Some(Frame::Object { in_value, .. }) = stack.last_mut() {
                    *in_value = true;
                }
            }
            b',' => match stack.last_mut() {
                Some(Frame::Object { key, in_value }) => {
                    *key = None;
                    *in_value = false;
                }
                Some(Frame::Array { index, in_value }) => {
                    *index += 1;
                    *in_value = false;
                }
                None => {}
            },
            b'{' => {
                begin_value(&mut stack);
                stack.push(Frame::Object {
                    key: None,
                    in_value: false,
                });
            }
            b'[' => {
                begin_value(&mut stack);
                stack.push(Frame::Array {
                    index: 0,
                    in_value: false,
                });
            }
            b'}' | b']' => {
                stack.pop();
            }
            b' ' | b'\n' | b'\r' | b'\t' => {}
            _ => begin_value(&mut stack),
        }
        i += 1;
    }
    let mut path = String::new();
    for frame in &stack {
        match frame {
            Frame::Object {
                key: Some(key),
                in_value: true,
            } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Array {
                index,
                in_value: true,
            } => path.push_str(&format!("[{index}]")),
            _ => break,
        }
    }
    if path.is_empty() {
        ".".to_owned()
    } else {
        path
    }
}

/// A value starts inside the innermost array (an object's value starts at its colon).
fn begin_value(stack: &mut [Frame]) {
    if let Some(Frame::Array { in_value, .. }) = stack.last_mut() {
        *in_value = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[allow(dead_code)] // Read only for their errors.
    #[derive(Debug, Deserialize)]
    struct Message {
        role: String,
        content: String,
    }

    #[allow(dead_code)]
    #[derive(Debug, Deserialize)]
    struct File {
        name: String,
        messages: Vec<Message>,
        #[serde(default)]
        tags: Vec<u32>,
    }

    fn error_of(value: Value) -> PathError {
        deserialize::<File>(&value).unwrap_err()
    }

    #[test]
    fn a_wrong_type_is_named_by_its_keys_and_indices() {
        let e = error_of(json!({
            "name": "x",
            "messages": [{"role": "user", "content": "a"}, {"role": 5, "content": "b"}]
        }));
        assert_eq!(e.path, "messages[1].role");
        assert_eq!(e.message, "invalid type: integer `5`, expected a string");
        let e = error_of(json!({"name": "x", "messages": [], "tags": [1, "two"]}));
        assert_eq!(e.path, "tags[1]");
        let e = error_of(json!({"name": ["x"], "messages": []}));
        assert_eq!(e.path, "name");
    }

    #[test]
    fn a_missing_field_is_named_by_the_object_that_lacks_it() {
        let e = error_of(json!({"name": "x", "messages": [{"role": "user"}]}));
        assert_eq!(e.path, "messages[0]");
        assert_eq!(e.message, "missing field `content`");
        let e = error_of(json!({"messages": []}));
        assert_eq!(e.path, ".");
        assert_eq!(e.message, "missing field `name`");
    }

    #[test]
    fn keys_with_escapes_and_strings_with_brackets_do_not_mislead_the_walk() {
        let e = error_of(json!({
            "name": "a \"quoted\" [name], {with} braces: yes",
            "messages": [{"role": "user", "content": "x\\\"]}"}, {"role": "user", "content": 7}]
        }));
        assert_eq!(e.path, "messages[1].content");
        let text = r#"{"we\"ird": {"k\u00e9y": [1, 2, {"z": tru"#;
        assert_eq!(path_at(text, text.len()), "we\"ird.k\u{e9}y[2].z");
    }

    #[test]
    fn a_good_value_reads_as_its_type() {
        let file: File = deserialize(&json!({
            "name": "n", "messages": [{"role": "user", "content": "hi"}], "tags": [3]
        }))
        .unwrap();
        assert_eq!(file.messages[0].content, "hi");
        assert_eq!(file.tags, [3]);
    }
}
