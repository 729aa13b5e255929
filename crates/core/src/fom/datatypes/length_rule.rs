//! RPR's length rules: the element count of an RPRlengthlessArray field that more data
//! follows, given by a note on the field as an expression over earlier fields of its record
//! (`RPRlengthlessArrayLength=NumberOfAppearanceRecords`,
//! `RPRlengthlessArrayLength=Order*Order+2*Order+1` in the RPR FOM 2.0). Without the rule a
//! decoder cannot tell where the array ends.

use std::fmt;

/// The note text that introduces a rule.
pub const LENGTH_RULE_PREFIX: &str = "RPRlengthlessArrayLength=";

/// Longer expressions than this are refused: real ones are a few terms.
const MAX_RULE_CHARS: usize = 256;

/// Nesting of parentheses a rule may use.
const MAX_RULE_DEPTH: usize = 16;

/// A parsed length rule, with the text it was read from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LengthRule {
    text: String,
    expression: Expression,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Expression {
    Number(u64),
    Field(String),
    Add(Box<Expression>, Box<Expression>),
    Subtract(Box<Expression>, Box<Expression>),
    Multiply(Box<Expression>, Box<Expression>),
}

impl LengthRule {
    /// Parse the expression after [`LENGTH_RULE_PREFIX`]: field names, unsigned integers,
    /// `+`, `-`, `*` and parentheses.
    pub fn parse(text: &str) -> Result<LengthRule, String> {
        let text = text.trim();
        if text.len() > MAX_RULE_CHARS {
            return Err(format!("longer than {MAX_RULE_CHARS} characters"));
        }
        let tokens = tokens(text)?;
        let mut parser = Parser { tokens, next: 0 };
        let expression = parser.sum(0)?;
        if let Some(token) = parser.tokens.get(parser.next) {
            return Err(format!("unexpected {token} in {text:?}"));
        }
        Ok(LengthRule {
            text: text.to_owned(),
            expression,
        })
    }

    /// The expression as the note wrote it, after [`LENGTH_RULE_PREFIX`].
    pub fn expression(&self) -> &str {
        &self.text
    }

    /// The fields the rule reads, in the order they appear.
    pub fn fields(&self) -> Vec<&str> {
        let mut names = Vec::new();
        self.expression.fields(&mut names);
        names
    }

    /// The count the rule gives, reading each field's value with `field`.
    pub fn eval(&self, field: &dyn Fn(&str) -> Option<u64>) -> Result<u64, String> {
        self.expression.eval(field)
    }
}

impl fmt::Display for LengthRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{LENGTH_RULE_PREFIX}{}", self.text)
    }
}

impl Expression {
    fn fields<'a>(&'a self, names: &mut Vec<&'a str>) {
        match self {
            Expression::Number(_) => {}
            Expression::Field(name) => names.push(name),
            Expression::Add(a, b) | Expression::Subtract(a, b) | Expression::Multiply(a, b) => {
                a.fields(names);
                b.fields(names);
            }
        }
    }

    fn eval(&self, field: &dyn Fn(&str) -> Option<u64>) -> Result<u64, String> {
        let overflow = || "the count overflows".to_owned();
        match self {
            Expression::Number(n) => Ok(*n),
            Expression::Field(name) => {
                field(name).ok_or_else(|| format!("field {name} has no count in it"))
            }
            Expression::Add(a, b) => a
                .eval(field)?
                .checked_add(b.eval(field)?)
                .ok_or_else(overflow),
            Expression::Multiply(a, b) => a
                .eval(field)?
                .checked_mul(b.eval(field)?)
                .ok_or_else(overflow),
            Expression::Subtract(a, b) => a
                .eval(field)?
                .checked_sub(b.eval(field)?)
                .ok_or_else(|| "the count is negative".to_owned()),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Number(u64),
    Name(String),
    Symbol(char),
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Number(n) => write!(f, "{n}"),
            Token::Name(name) => write!(f, "{name}"),
            Token::Symbol(c) => write!(f, "'{c}'"),
        }
    }
}

fn tokens(text: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if matches!(c, '+' | '-' | '*' | '(' | ')') {
            out.push(Token::Symbol(c));
            continue;
        }
        if !(c.is_alphanumeric() || c == '_') {
            return Err(format!("unexpected character {c:?} in {text:?}"));
        }
        let mut end = start + c.len_utf8();
        while let Some(&(at, next)) = chars.peek() {
            if !(next.is_alphanumeric() || next == '_') {
                break;
            }
            end = at + next.len_utf8();
            chars.next();
        }
        let word = &text[start..end];
        out.push(if c.is_ascii_digit() {
            Token::Number(
                word.parse()
                    .map_err(|_| format!("{word:?} is not an unsigned integer"))?,
            )
        } else {
            Token::Name(word.to_owned())
        });
    }
    Ok(out)
}

/// Recursive descent: sum := product (('+' | '-') product)*; product := atom ('*' atom)*;
/// atom := number | name | '(' sum ')'.
struct Parser {
    tokens: Vec<Token>,
    next: usize,
}

impl Parser {
    fn take(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.next).cloned();
        self.next += usize::from(token.is_some());
        token
    }

    fn peek_symbol(&self, symbols: &[char]) -> Option<char> {
        match self.tokens.get(self.next) {
            Some(Token::Symbol(c)) if symbols.contains(c) => Some(*c),
            _ => None,
        }
    }

    fn sum(&mut self, depth: usize) -> Result<Expression, String> {
        let mut left = self.product(depth)?;
        while let Some(op) = self.peek_symbol(&['+', '-']) {
            self.next += 1;
            let right = Box::new(self.product(depth)?);
            left = match op {
                '+' => Expression::Add(Box::new(left), right),
                _ => Expression::Subtract(Box::new(left), right),
            };
        }
        Ok(left)
    }

    fn product(&mut self, depth: usize) -> Result<Expression, String> {
        let mut left = self.atom(depth)?;
        while self.peek_symbol(&['*']).is_some() {
            self.next += 1;
            left = Expression::Multiply(Box::new(left), Box::new(self.atom(depth)?));
        }
        Ok(left)
    }

    fn atom(&mut self, depth: usize) -> Result<Expression, String> {
        match self.take() {
            Some(Token::Number(n)) => Ok(Expression::Number(n)),
            Some(Token::Name(name)) => Ok(Expression::Field(name)),
            Some(Token::Symbol('(')) if depth < MAX_RULE_DEPTH => {
                let inner = self.sum(depth + 1)?;
                match self.take() {
                    Some(Token::Symbol(')')) => Ok(inner),
                    _ => Err("a '(' is not closed".to_owned()),
                }
            }
            Some(Token::Symbol('(')) => Err(format!("nested deeper than {MAX_RULE_DEPTH}")),
            Some(other) => Err(format!("unexpected {other}")),
            None => Err("the expression ends early".to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LengthRule;

    fn eval(text: &str, fields: &[(&str, u64)]) -> Result<u64, String> {
        let rule = LengthRule::parse(text)?;
        rule.eval(&|name| fields.iter().find(|(n, _)| *n == name).map(|(_, v)| *v))
    }

    #[test]
    fn the_rpr_fom_rules_evaluate_over_earlier_fields() {
        assert_eq!(
            eval(
                "NumberOfAppearanceRecords",
                &[("NumberOfAppearanceRecords", 3)]
            ),
            Ok(3)
        );
        // The spherical harmonic coefficients of order N: N² + 2N + 1.
        assert_eq!(eval("Order*Order+2*Order+1", &[("Order", 2)]), Ok(9));
        assert_eq!(eval("Order*Order+2*Order+1", &[("Order", 0)]), Ok(1));
        assert_eq!(eval("(A + 1) * 2 - B", &[("A", 4), ("B", 3)]), Ok(7));
        let rule = LengthRule::parse(" Order*Order+2*Order+1 ").expect("parses");
        assert_eq!(rule.fields(), ["Order", "Order", "Order"]);
        assert_eq!(
            rule.to_string(),
            "RPRlengthlessArrayLength=Order*Order+2*Order+1"
        );
    }

    #[test]
    fn bad_rules_and_bad_counts_say_what_is_wrong() {
        assert!(LengthRule::parse("").unwrap_err().contains("ends early"));
        assert!(LengthRule::parse("A +").unwrap_err().contains("ends early"));
        assert!(LengthRule::parse("A / 2").unwrap_err().contains("'/'"));
        assert!(LengthRule::parse("(A + 1")
            .unwrap_err()
            .contains("not closed"));
        assert!(LengthRule::parse("A B")
            .unwrap_err()
            .contains("unexpected B"));
        assert!(LengthRule::parse(&"(".repeat(40))
            .unwrap_err()
            .contains("deeper"));
        assert!(LengthRule::parse(&"A+".repeat(200))
            .unwrap_err()
            .contains("256"));
        assert_eq!(
            eval("A - 2", &[("A", 1)]),
            Err("the count is negative".into())
        );
        assert_eq!(
            eval("A * A", &[("A", u64::MAX)]),
            Err("the count overflows".into())
        );
        assert_eq!(
            eval("Missing", &[]),
            Err("field Missing has no count in it".into())
        );
    }
}
