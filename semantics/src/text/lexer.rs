//! Tokens of the P-LLVM text format: LLVM IR's lexical syntax (LangRef "Identifiers",
//! "Simple Constants") plus the `:=` of the thesis sugar (Fig. 4.13b).
//!
//! The lexer turns the whole source into a vector of [`Token`]s in one linear pass.
//! A token is a kind and a byte [`Span`]; names and literals are read back from the
//! source text on demand, so lexing allocates nothing per token. Comments (`;` to
//! the end of the line) and white space are dropped: the format is free-form, like
//! LLVM's.

use crate::diag::Span;
use crate::text::error::ParseError;
use std::borrow::Cow;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// `%name`, `%7`, `%"quoted name"`.
    Local,
    /// `@name`, `@"quoted"`.
    Global,
    /// `!name` or `!7` (metadata name or node reference).
    Meta,
    /// `!` directly followed by `{`, `"` or `(`.
    Exclaim,
    /// `#7`, an attribute group reference.
    AttrRef,
    /// `$name`, a comdat.
    Comdat,
    /// `name:`, `7:` or `"quoted":`, a block label (the span includes the colon).
    Label,
    /// A bare word: keywords, opcodes, types such as `i32`.
    Word,
    /// A decimal integer literal, possibly negative.
    Int,
    /// A decimal floating-point literal (`1.5`, `1.0e+00`).
    Float,
    /// `0x` followed by hex digits: a `double` bit pattern.
    Hex,
    /// `0xK`, `0xL`, `0xM`, `0xH`, `0xR` literals of types outside the subset.
    HexOther,
    /// `"..."`.
    Str,
    /// `c"..."`.
    CStr,
    /// `=`.
    Eq,
    /// `:=`.
    ColonEq,
    /// `,`.
    Comma,
    /// `(`.
    LParen,
    /// `)`.
    RParen,
    /// `[`.
    LBracket,
    /// `]`.
    RBracket,
    /// `{`.
    LBrace,
    /// `}`.
    RBrace,
    /// `<`.
    Lt,
    /// `>`.
    Gt,
    /// `*`.
    Star,
    /// `...`.
    Ellipsis,
    /// `|`, `^`, `:` and other single characters LLVM uses outside the subset.
    Other,
    /// End of the current item (never stored; returned when peeking past the end).
    Eof,
}

/// One token: its kind, where it is, and whether a name was written in quotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    /// What it is.
    pub kind: Tok,
    /// Where it is.
    pub span: Span,
    /// For names and labels: written as `%"..."` / `"...":`.
    pub quoted: bool,
}

/// Whether `b` may appear in an unquoted LLVM name (`[-a-zA-Z$._0-9]`).
pub(crate) fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'$' | b'.' | b'_')
}

/// Lexes all of `src`. The first malformed token is an error.
///
/// Longer than ~150 lines on purpose: one arm per
/// byte that starts a token class, each a few lines; the loop carries the one
/// cursor they all move.
pub(crate) fn lex(src: &str) -> Result<Vec<Token>, ParseError> {
    let bytes = src.as_bytes();
    let mut out = Vec::with_capacity(src.len() / 4 + 1);
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let mut quoted = false;
        let kind = match c {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'%' | b'@' | b'$' => {
                let kind = match c {
                    b'%' => Tok::Local,
                    b'@' => Tok::Global,
                    _ => Tok::Comdat,
                };
                i += 1;
                if bytes.get(i) == Some(&b'"') {
                    i = string_end(src, i)?;
                    quoted = true;
                } else {
                    let name_start = i;
                    while i < bytes.len() && is_name_byte(bytes[i]) {
                        i += 1;
                    }
                    if i == name_start {
                        return Err(ParseError::new(
                            Span::new(start, i),
                            format!("expected a name after '{}'", c as char),
                        ));
                    }
                }
                kind
            }
            b'!' => {
                i += 1;
                match bytes.get(i) {
                    Some(b'{' | b'"' | b'(') => Tok::Exclaim,
                    Some(&b) if is_name_byte(b) || b == b'\\' => {
                        while i < bytes.len() && (is_name_byte(bytes[i]) || bytes[i] == b'\\') {
                            i += 1;
                        }
                        Tok::Meta
                    }
                    _ => Tok::Other,
                }
            }
            b'#' => {
                i += 1;
                let digits = i;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                if i == digits {
                    return Err(ParseError::new(
                        Span::new(start, i),
                        "expected an attribute group number after '#'",
                    ));
                }
                Tok::AttrRef
            }
            b'"' => {
                i = string_end(src, i)?;
                if bytes.get(i) == Some(&b':') && bytes.get(i + 1) != Some(&b'=') {
                    i += 1;
                    quoted = true;
                    Tok::Label
                } else {
                    Tok::Str
                }
            }
            b'c' if bytes.get(i + 1) == Some(&b'"') => {
                i = string_end(src, i + 1)?;
                Tok::CStr
            }
            b'.' if bytes.get(i + 1) == Some(&b'.') && bytes.get(i + 2) == Some(&b'.') => {
                i += 3;
                Tok::Ellipsis
            }
            b'=' => {
                i += 1;
                Tok::Eq
            }
            b':' if bytes.get(i + 1) == Some(&b'=') => {
                i += 2;
                Tok::ColonEq
            }
            b',' => single(&mut i, Tok::Comma),
            b'(' => single(&mut i, Tok::LParen),
            b')' => single(&mut i, Tok::RParen),
            b'[' => single(&mut i, Tok::LBracket),
            b']' => single(&mut i, Tok::RBracket),
            b'{' => single(&mut i, Tok::LBrace),
            b'}' => single(&mut i, Tok::RBrace),
            b'<' => single(&mut i, Tok::Lt),
            b'>' => single(&mut i, Tok::Gt),
            b'*' => single(&mut i, Tok::Star),
            b':' | b'|' | b'^' => single(&mut i, Tok::Other),
            b'+' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                i = number_end(bytes, i).0;
                lex_number_kind(bytes, start, i)
            }
            _ if is_name_byte(c) => {
                let mut j = i;
                while j < bytes.len() && is_name_byte(bytes[j]) {
                    j += 1;
                }
                if bytes.get(j) == Some(&b':') && bytes.get(j + 1) != Some(&b'=') {
                    i = j + 1;
                    Tok::Label
                } else if c == b'0' && matches!(bytes.get(i + 1), Some(b'x')) {
                    i += 2;
                    let other = matches!(bytes.get(i), Some(b'K' | b'L' | b'M' | b'H' | b'R'));
                    if other {
                        i += 1;
                    }
                    let digits = i;
                    while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                        i += 1;
                    }
                    if i == digits {
                        return Err(ParseError::new(
                            Span::new(start, i),
                            "expected hex digits after '0x'",
                        ));
                    }
                    if other { Tok::HexOther } else { Tok::Hex }
                } else if c.is_ascii_digit()
                    || (c == b'-' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
                {
                    i = number_end(bytes, i).0;
                    lex_number_kind(bytes, start, i)
                } else {
                    i = j;
                    Tok::Word
                }
            }
            _ => {
                let ch = src[i..].chars().next().unwrap_or('?');
                return Err(ParseError::new(
                    Span::new(i, i + ch.len_utf8()),
                    format!("unexpected character '{}'", ch.escape_default()),
                ));
            }
        };
        out.push(Token {
            kind,
            span: Span::new(start, i),
            quoted,
        });
    }
    Ok(out)
}

fn single(i: &mut usize, kind: Tok) -> Tok {
    *i += 1;
    kind
}

/// The end of a `"..."` string starting at `start` (which holds the `"`).
fn string_end(src: &str, start: usize) -> Result<usize, ParseError> {
    match src.as_bytes()[start + 1..].iter().position(|&b| b == b'"') {
        Some(n) => Ok(start + 1 + n + 1),
        None => Err(ParseError::new(
            Span::new(start, src.len()),
            "unterminated string",
        )),
    }
}

/// The end of a decimal number `[-+]?[0-9]+([.][0-9]*)?([eE][-+]?[0-9]+)?` at `i`,
/// and whether it has a fraction or exponent.
fn number_end(bytes: &[u8], mut i: usize) -> (usize, bool) {
    let mut is_float = false;
    if matches!(bytes.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    if bytes.get(i) == Some(&b'.') {
        is_float = true;
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(bytes.get(j), Some(b'-' | b'+')) {
            j += 1;
        }
        if bytes.get(j).is_some_and(u8::is_ascii_digit) {
            is_float = true;
            i = j;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    (i, is_float)
}

fn lex_number_kind(bytes: &[u8], start: usize, end: usize) -> Tok {
    let text = &bytes[start..end];
    if text.iter().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        Tok::Float
    } else {
        Tok::Int
    }
}

/// The text of `token` in `src`.
pub(crate) fn text<'s>(src: &'s str, token: &Token) -> &'s str {
    src.get(token.span.lo as usize..token.span.hi as usize)
        .unwrap_or("")
}

/// The name a `%`, `@`, `$`, `!` token or a label stands for, with quotes and
/// `\XX` escapes resolved.
pub(crate) fn name<'s>(src: &'s str, token: &Token) -> Cow<'s, str> {
    let t = text(src, token);
    let t = match token.kind {
        Tok::Label => t.strip_suffix(':').unwrap_or(t),
        Tok::Local | Tok::Global | Tok::Comdat | Tok::Meta => t.get(1..).unwrap_or(""),
        _ => t,
    };
    if token.quoted {
        let inner = t
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .unwrap_or(t);
        unescape(inner)
    } else {
        Cow::Borrowed(t)
    }
}

/// Resolves LLVM's `\XX` (two hex digits) and `\\` escapes.
pub(crate) fn unescape(s: &str) -> Cow<'_, str> {
    if !s.contains('\\') {
        return Cow::Borrowed(s);
    }
    Cow::Owned(String::from_utf8_lossy(&unescape_bytes(s)).into_owned())
}

/// The bytes of a string body with `\XX` and `\\` escapes resolved.
pub(crate) fn unescape_bytes(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            if b.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
            let hex = |k: usize| b.get(k).and_then(|c| (*c as char).to_digit(16));
            if let (Some(h), Some(l)) = (hex(i + 1), hex(i + 2)) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(src: &str, expect: &[(Tok, &str)]) {
        let toks = lex(src).unwrap_or_default();
        let got: Vec<(Tok, &str)> = toks.iter().map(|t| (t.kind, text(src, t))).collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn tokens() {
        check(
            "%x := add i32 -1, 2.5e+00 ; comment\nentry: 5: \"a b\": %\"q\" @g !tbaa !5 #0",
            &[
                (Tok::Local, "%x"),
                (Tok::ColonEq, ":="),
                (Tok::Word, "add"),
                (Tok::Word, "i32"),
                (Tok::Int, "-1"),
                (Tok::Comma, ","),
                (Tok::Float, "2.5e+00"),
                (Tok::Label, "entry:"),
                (Tok::Label, "5:"),
                (Tok::Label, "\"a b\":"),
                (Tok::Local, "%\"q\""),
                (Tok::Global, "@g"),
                (Tok::Meta, "!tbaa"),
                (Tok::Meta, "!5"),
                (Tok::AttrRef, "#0"),
            ],
        );
        check(
            "0x3FF0000000000000 0xK1 c\"hi\\00\" ... !{",
            &[
                (Tok::Hex, "0x3FF0000000000000"),
                (Tok::HexOther, "0xK1"),
                (Tok::CStr, "c\"hi\\00\""),
                (Tok::Ellipsis, "..."),
                (Tok::Exclaim, "!"),
                (Tok::LBrace, "{"),
            ],
        );
    }

    #[test]
    fn errors_have_spans() {
        let e = lex("%x = add i32 %a, \u{e9}").err();
        assert_eq!(
            e.map(|e| (e.span, e.message)),
            Some((Span::new(17, 19), "unexpected character '\\u{e9}'".into()))
        );
        let e = lex("@g = c\"abc").err();
        assert_eq!(e.map(|e| e.span), Some(Span::new(6, 10)));
    }

    #[test]
    fn names() {
        let src = "%\"a\\22b\" @x.y";
        let toks = lex(src).unwrap_or_default();
        assert_eq!(name(src, &toks[0]), "a\"b");
        assert_eq!(name(src, &toks[1]), "x.y");
    }
}
