//! Buffers: memory objects a run creates for pointer parameters (docs/launch.md,
//! "Buffers"), the way a GPU host program allocates device buffers and
//! passes them to a kernel.
//!
//! A buffer has an element type (`i8` … `i64`, any `iN`, `f32`, `f64`), a length
//! in elements and initial contents: zeros, values written in the run input, or
//! the raw little-endian bytes of a file (read by the front end: this crate does
//! no IO, docs/design/style.md §1). It becomes one object of 𝕄 of kind
//! [`ObjectKind::Input`] (§4.9.1), and the parameter of the same name (or
//! position) gets a pointer to its first byte in every lane. After the run its
//! contents are read back element by element ([`dump_values`]) or as raw bytes
//! ([`raw_bytes`]).
//!
//! Command-line forms (`--buffer`): `NAME=TYPE[LEN]` (zero-filled),
//! `NAME=TYPE:FILE` (the file's bytes; the length is the file's size over the
//! element size), `NAME=TYPE[LEN]:FILE` (the same, the length checked). JSON
//! forms under `"buffers"`: the same text, or an object
//! `{"type": "f32", "len": 4, "values": [1, 2], "file": "in.bin"}` (every field
//! but `type` optional; `values` fill the first elements, the rest is zero).

use crate::config::Scalar;
pub use crate::config::{BufferInit, BufferSpec, ElemType};
use num_bigint::{BigInt, Sign};
use pllvm_semantics::memory::{Byte, Memory, ObjectKind};
use pllvm_semantics::value::Pointer;
use serde::Deserialize;

/// The most elements one buffer may have (2^32): far above a GPU kernel's
/// buffers, and the memory limit (`--memory-limit`) bounds the bytes anyway.
pub const MAX_ELEMENTS: u64 = 1 << 32;

impl ElemType {
    /// Parses `i32`, `f32`, `float`, `f64`, `double`.
    pub fn parse(text: &str) -> Result<ElemType, String> {
        let t = text.trim();
        match t {
            "f32" | "float" => return Ok(ElemType::F32),
            "f64" | "double" => return Ok(ElemType::F64),
            _ => {}
        }
        match t.strip_prefix('i').map(str::parse::<u32>) {
            Some(Ok(w)) if (1..=128).contains(&w) => Ok(ElemType::Int(w)),
            _ => Err(format!(
                "'{t}' is not a buffer element type (i1 to i128, f32, f64)"
            )),
        }
    }

    /// Bytes per element.
    pub fn size(self) -> u64 {
        match self {
            ElemType::Int(w) => u64::from(w.div_ceil(8)),
            ElemType::F32 => 4,
            ElemType::F64 => 8,
        }
    }

    /// The alignment the buffer is allocated with (its element size, at most 16,
    /// rounded up to a power of two).
    pub fn align(self) -> u64 {
        self.size().next_power_of_two().min(16)
    }
}

impl std::fmt::Display for ElemType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ElemType::Int(w) => write!(f, "i{w}"),
            ElemType::F32 => write!(f, "f32"),
            ElemType::F64 => write!(f, "f64"),
        }
    }
}

/// The JSON object form of a buffer.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BufferObject {
    #[serde(rename = "type")]
    elem: String,
    len: Option<u64>,
    values: Option<Vec<Scalar>>,
    file: Option<String>,
}

/// A buffer as JSON writes it: the command-line text or an object.
#[derive(Deserialize)]
#[serde(untagged)]
enum BufferJson {
    Text(String),
    Object(BufferObject),
}

impl<'de> Deserialize<'de> for BufferSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let spec = match BufferJson::deserialize(d)? {
            BufferJson::Text(t) => BufferSpec::parse(&t),
            BufferJson::Object(o) => BufferSpec::from_object(o),
        };
        spec.map_err(serde::de::Error::custom)
    }
}

impl BufferSpec {
    /// Parses `TYPE[LEN]`, `TYPE:FILE` or `TYPE[LEN]:FILE` (the part of `--buffer`
    /// after `NAME=`).
    pub fn parse(text: &str) -> Result<BufferSpec, String> {
        let t = text.trim();
        let (shape, file) = match t.split_once(':') {
            Some((shape, file)) if !file.trim().is_empty() => (shape, Some(file.trim())),
            Some(_) => return Err(format!("'{t}': the file name after ':' is missing")),
            None => (t, None),
        };
        let (elem, len) = match shape.split_once('[') {
            Some((elem, rest)) => {
                let digits = rest
                    .strip_suffix(']')
                    .ok_or_else(|| format!("'{t}': expected TYPE[LEN], as in i32[4096]"))?;
                let len = digits
                    .trim()
                    .parse::<u64>()
                    .map_err(|_| format!("'{t}': '{digits}' is not a number of elements"))?;
                (ElemType::parse(elem)?, Some(len))
            }
            None => (ElemType::parse(shape)?, None),
        };
        let init = match file {
            Some(f) => BufferInit::File(f.to_string()),
            None if len.is_none() => {
                return Err(format!(
                    "'{t}': give a length (TYPE[LEN], zero-filled) or a file (TYPE:FILE)"
                ));
            }
            None => BufferInit::Zero,
        };
        BufferSpec { elem, len, init }.checked()
    }

    fn from_object(o: BufferObject) -> Result<BufferSpec, String> {
        let elem = ElemType::parse(&o.elem)?;
        let init = match (o.values, o.file) {
            (Some(_), Some(_)) => {
                return Err("a buffer takes \"values\" or \"file\", not both".into());
            }
            (Some(v), None) => BufferInit::Values(v),
            (None, Some(f)) => BufferInit::File(f),
            (None, None) if o.len.is_some() => BufferInit::Zero,
            (None, None) => return Err("a buffer needs \"len\", \"values\" or \"file\"".into()),
        };
        BufferSpec {
            elem,
            len: o.len,
            init,
        }
        .checked()
    }

    /// Checks the length against [`MAX_ELEMENTS`] and the given values.
    fn checked(self) -> Result<BufferSpec, String> {
        if let Some(len) = self.len
            && len > MAX_ELEMENTS
        {
            return Err(format!(
                "{len} elements are more than a buffer holds (at most {MAX_ELEMENTS})"
            ));
        }
        if let (Some(len), BufferInit::Values(v)) = (self.len, &self.init)
            && v.len() as u64 > len
        {
            return Err(format!("{} values do not fit {len} elements", v.len()));
        }
        Ok(self)
    }

    /// The file the contents come from, if it has not been read yet.
    pub fn file(&self) -> Option<&str> {
        match &self.init {
            BufferInit::File(f) => Some(f),
            _ => None,
        }
    }

    /// Replaces a file by its bytes (read by the front end).
    pub fn resolve_file(&mut self, bytes: Vec<u8>) {
        if matches!(self.init, BufferInit::File(_)) {
            self.init = BufferInit::Bytes(bytes);
        }
    }

    /// The number of elements.
    pub fn elements(&self) -> Result<u64, String> {
        let size = self.elem.size();
        let from_contents = match &self.init {
            BufferInit::Zero => None,
            BufferInit::Values(v) => Some(v.len() as u64),
            BufferInit::File(f) => {
                return Err(format!("the file {f} has not been read"));
            }
            BufferInit::Bytes(b) => {
                if !(b.len() as u64).is_multiple_of(size) {
                    return Err(format!(
                        "{} bytes are not a whole number of {} elements ({size} bytes each)",
                        b.len(),
                        self.elem
                    ));
                }
                let n = b.len() as u64 / size;
                if let Some(len) = self.len
                    && len != n
                {
                    return Err(format!(
                        "the file holds {n} {} elements, not {len}",
                        self.elem
                    ));
                }
                Some(n)
            }
        };
        Ok(self.len.or(from_contents).unwrap_or(0))
    }

    /// Allocates the buffer in `mem` as the input object `name` and writes its
    /// initial contents; returns the pointer to its first byte.
    pub fn allocate(&self, name: &str, mem: &mut Memory) -> Result<Pointer, String> {
        let n = self.elements()?;
        let size = n
            .checked_mul(self.elem.size())
            .ok_or_else(|| format!("{n} elements are too many bytes"))?;
        let kind = ObjectKind::Input {
            name: name.to_string(),
        };
        // An empty buffer still gets an object (one byte) so the pointer is valid.
        let ptr = mem
            .allocate(kind, size.max(1), self.elem.align())
            .map_err(|e| e.to_string())?;
        mem.fill_bytes(ptr, size, Byte::Data(0))
            .map_err(|e| e.to_string())?;
        match &self.init {
            BufferInit::Zero | BufferInit::File(_) => {}
            BufferInit::Bytes(b) => {
                let bytes: Vec<Byte> = b.iter().map(|&d| Byte::Data(d)).collect();
                mem.write_bytes(ptr, &bytes).map_err(|e| e.to_string())?;
            }
            BufferInit::Values(values) => {
                let mut bytes = Vec::with_capacity(values.len() * self.elem.size() as usize);
                for (k, s) in values.iter().enumerate() {
                    encode(self.elem, s, &mut bytes).map_err(|e| format!("element {k}: {e}"))?;
                }
                mem.write_bytes(ptr, &bytes).map_err(|e| e.to_string())?;
            }
        }
        Ok(ptr)
    }
}

/// Appends the little-endian bytes of `s` as an element of type `elem`
/// (`undef` / `⊤`: uninitialized bytes).
fn encode(elem: ElemType, s: &Scalar, out: &mut Vec<Byte>) -> Result<(), String> {
    if s.is_undef() {
        out.extend(std::iter::repeat_n(Byte::Uninit, elem.size() as usize));
        return Ok(());
    }
    let bits: u128 = match elem {
        ElemType::Int(w) => {
            let big: BigInt = s.integer()?;
            let low = -(BigInt::from(1u8) << (w - 1));
            let high = (BigInt::from(1u8) << w) - 1u8;
            if big < low || big > high {
                return Err(format!("{big} does not fit i{w}"));
            }
            let modulus = BigInt::from(1u8) << w;
            let wrapped = ((big % &modulus) + &modulus) % &modulus;
            let (sign, digits) = wrapped.to_u64_digits();
            debug_assert!(sign != Sign::Minus);
            digits
                .iter()
                .rev()
                .fold(0u128, |acc, &d| (acc << 64) | u128::from(d))
        }
        ElemType::F32 | ElemType::F64 => {
            let f = s.float()?;
            if elem == ElemType::F32 {
                u128::from((f as f32).to_bits())
            } else {
                u128::from(f.to_bits())
            }
        }
    };
    let bytes = bits.to_le_bytes();
    out.extend(bytes[..elem.size() as usize].iter().map(|&d| Byte::Data(d)));
    Ok(())
}

/// One element read back: its value, or `None` when a byte of it is ⊤.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Element {
    /// An integer, as its signed value.
    Int(i128),
    /// A float (`f32` widened exactly to `f64`).
    Float(f64),
    /// Some byte is ⊤ (never written, or written with ⊤).
    Undef,
}

impl std::fmt::Display for Element {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Element::Int(i) => write!(f, "{i}"),
            Element::Float(x) => write!(f, "{x:?}"),
            Element::Undef => write!(f, "⊤"),
        }
    }
}

impl Element {
    /// The element as JSON: a number, `"nan"` / `"inf"` / `"-inf"` for floats JSON
    /// cannot write, `"⊤"` for an undefined element.
    pub fn to_json(self) -> serde_json::Value {
        match self {
            Element::Int(i) => match i64::try_from(i) {
                Ok(i) => i.into(),
                Err(_) => i.to_string().into(),
            },
            Element::Float(x) if x.is_finite() => x.into(),
            Element::Float(x) if x.is_nan() => "nan".into(),
            Element::Float(x) if x > 0.0 => "inf".into(),
            Element::Float(_) => "-inf".into(),
            Element::Undef => "⊤".into(),
        }
    }
}

/// The bytes of the object `ptr` points to (from `ptr` to its end).
fn object_bytes(mem: &Memory, ptr: Pointer) -> Result<Vec<Byte>, String> {
    let id = ptr.object.ok_or("a null buffer")?;
    let object = mem.object(id).ok_or("no such object")?;
    let len = object.size().saturating_sub(ptr.offset);
    mem.read_bytes(ptr, len).map_err(|e| e.to_string())
}

/// The first `count` elements of type `elem` at `ptr`.
pub fn dump_values(
    mem: &Memory,
    ptr: Pointer,
    elem: ElemType,
    count: u64,
) -> Result<Vec<Element>, String> {
    let bytes = object_bytes(mem, ptr)?;
    let size = elem.size() as usize;
    Ok(bytes
        .chunks_exact(size)
        .take(count as usize)
        .map(|chunk| {
            let Some(data) = chunk.iter().map(|b| b.bits()).collect::<Option<Vec<u8>>>() else {
                return Element::Undef;
            };
            let mut raw = [0u8; 16];
            raw[..size].copy_from_slice(&data);
            let bits = u128::from_le_bytes(raw);
            match elem {
                ElemType::Int(w) => {
                    let shift = 128 - w;
                    Element::Int(((bits << shift) as i128) >> shift)
                }
                ElemType::F32 => Element::Float(f64::from(f32::from_bits(bits as u32))),
                ElemType::F64 => Element::Float(f64::from_bits(bits as u64)),
            }
        })
        .collect())
}

/// The bytes of the object `ptr` points to, ⊤ bytes as 0 (what a native run
/// would have there, see `freeze`), for `--dump NAME=FILE`.
pub fn raw_bytes(mem: &Memory, ptr: Pointer, len: u64) -> Result<Vec<u8>, String> {
    let bytes = object_bytes(mem, ptr)?;
    Ok(bytes
        .iter()
        .take(len as usize)
        .map(|b| b.bits().unwrap_or(0))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(spec: &str, expect: &str) {
        let got = match BufferSpec::parse(spec) {
            Ok(b) => format!("{} {:?} {:?}", b.elem, b.len, b.init),
            Err(e) => format!("error: {e}"),
        };
        assert_eq!(got, expect, "{spec}");
    }

    #[test]
    fn command_line_forms() {
        check("i32[4096]", "i32 Some(4096) Zero");
        check("f32:in.bin", "f32 None File(\"in.bin\")");
        check("f64[2]:x.bin", "f64 Some(2) File(\"x.bin\")");
        check(
            "i32",
            "error: 'i32': give a length (TYPE[LEN], zero-filled) or a file (TYPE:FILE)",
        );
        check(
            "q7[3]",
            "error: 'q7' is not a buffer element type (i1 to i128, f32, f64)",
        );
        check("i32[x]", "error: 'i32[x]': 'x' is not a number of elements");
        check(
            "i32[4",
            "error: 'i32[4': expected TYPE[LEN], as in i32[4096]",
        );
        check("f32:", "error: 'f32:': the file name after ':' is missing");
        check(
            "i8[99999999999]",
            "error: 99999999999 elements are more than a buffer holds (at most 4294967296)",
        );
    }

    #[test]
    fn values_round_trip_through_memory() {
        let spec = BufferSpec {
            elem: ElemType::Int(16),
            len: Some(4),
            init: BufferInit::Values(vec![
                Scalar::Int(-1),
                Scalar::Int(65535),
                Scalar::Text("undef".into()),
            ]),
        };
        let mut mem = Memory::new(1 << 20);
        let p = spec.allocate("b", &mut mem).unwrap();
        let got: Vec<String> = dump_values(&mem, p, spec.elem, 4)
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(got, ["-1", "-1", "⊤", "0"]);
        assert_eq!(
            raw_bytes(&mem, p, 8).unwrap(),
            [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]
        );
        let floats = BufferSpec {
            elem: ElemType::F32,
            len: None,
            init: BufferInit::Bytes(1.5f32.to_le_bytes().to_vec()),
        };
        let q = floats.allocate("f", &mut mem).unwrap();
        assert_eq!(
            dump_values(&mem, q, ElemType::F32, 1).unwrap(),
            [Element::Float(1.5)]
        );
        let odd = BufferSpec {
            elem: ElemType::F32,
            len: None,
            init: BufferInit::Bytes(vec![1, 2, 3]),
        };
        assert!(odd.allocate("o", &mut mem).is_err());
        let too_big = BufferSpec {
            elem: ElemType::Int(8),
            len: Some(1),
            init: BufferInit::Values(vec![Scalar::Int(300)]),
        };
        assert_eq!(
            too_big.allocate("t", &mut mem).unwrap_err(),
            "element 0: 300 does not fit i8"
        );
    }

    #[test]
    fn json_forms() {
        let parse = |t: &str| serde_json::from_str::<BufferSpec>(t).map_err(|e| e.to_string());
        assert_eq!(
            parse(r#""i32[3]""#),
            Ok(BufferSpec::parse("i32[3]").unwrap())
        );
        let v = parse(r#"{"type": "f32", "values": [1, 2.5]}"#).unwrap();
        assert_eq!(v.elements(), Ok(2));
        assert!(parse(r#"{"type": "f32"}"#).is_err());
        assert!(parse(r#"{"type": "f32", "len": 1, "values": [1, 2]}"#).is_err());
        assert!(parse(r#"{"type": "f32", "bogus": 1}"#).is_err());
    }
}
