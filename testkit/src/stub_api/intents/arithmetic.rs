//! Arithmetic in a prompt (`(12 + 30) / 7`), as the sequence of operations a calculator tool
//! would be called with.

/// An operand of one operation: a number from the prompt, or the result of an earlier operation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Operand {
    Number(f64),
    Step(usize),
}

/// One binary operation (`+`, `-`, `*` or `/`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Operation {
    pub(super) op: char,
    pub(super) a: Operand,
    pub(super) b: Operand,
}

/// An expression found in a prompt: where it starts, its text, and its operations, innermost
/// first (the last one gives the value).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Expression {
    pub(super) at: usize,
    pub(super) text: String,
    pub(super) steps: Vec<Operation>,
}

/// The first expression with at least one operation in `text`.
pub(super) fn find(text: &str) -> Option<Expression> {
    let allowed = |c: char| c.is_ascii_digit() || " .+-*/×÷()".contains(c);
    let mut start = 0;
    while start < text.len() {
        let rest = &text[start..];
        let before = text[..start].chars().next_back();
        let first = rest.chars().next()?;
        let starts_word = before.is_none_or(|b| !b.is_alphanumeric() && b != '_');
        if starts_word && (first.is_ascii_digit() || first == '(') {
            let len = rest.find(|c: char| !allowed(c)).unwrap_or(rest.len());
            let span = rest[..len].trim_end().trim_end_matches('.');
            if let Some(steps) = parse(span) {
                return Some(Expression {
                    at: start,
                    text: span.to_owned(),
                    steps,
                });
            }
        }
        start += first.len_utf8();
    }
    None
}

fn parse(span: &str) -> Option<Vec<Operation>> {
    let tokens = tokenize(span)?;
    let mut parser = Parser {
        tokens,
        at: 0,
        steps: Vec::new(),
    };
    parser.sum()?;
    (parser.at == parser.tokens.len() && !parser.steps.is_empty()).then_some(parser.steps)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Token {
    Number(f64),
    Op(char),
    Open,
    Close,
}

fn tokenize(span: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut chars = span.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            ' ' => {}
            '(' => tokens.push(Token::Open),
            ')' => tokens.push(Token::Close),
            '+' | '-' | '*' | '/' => tokens.push(Token::Op(c)),
            '×' => tokens.push(Token::Op('*')),
            '÷' => tokens.push(Token::Op('/')),
            _ => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if !(d.is_ascii_digit() || d == '.') {
                        break;
                    }
                    end = j + 1;
                    chars.next();
                }
                tokens.push(Token::Number(span[i..end].parse().ok()?));
            }
        }
    }
    Some(tokens)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    steps: Vec<Operation>,
}

impl Parser {
    fn peek(&self) -> Option<Token> {
        self.tokens.get(self.at).copied()
    }

    fn sum(&mut self) -> Option<Operand> {
        self.chain(&['+', '-'], Self::product)
    }

    fn product(&mut self) -> Option<Operand> {
        self.chain(&['*', '/'], Self::atom)
    }

    /// `next (op next)*`, left-associative.
    fn chain(&mut self, ops: &[char], next: fn(&mut Self) -> Option<Operand>) -> Option<Operand> {
        let mut a = next(self)?;
        while let Some(Token::Op(op)) = self.peek() {
            if !ops.contains(&op) {
                break;
            }
            self.at += 1;
            let b = next(self)?;
            self.steps.push(Operation { op, a, b });
            a = Operand::Step(self.steps.len() - 1);
        }
        Some(a)
    }

    fn atom(&mut self) -> Option<Operand> {
        let token = self.peek()?;
        self.at += 1;
        match token {
            Token::Number(n) => Some(Operand::Number(n)),
            Token::Op('-') => match self.peek()? {
                Token::Number(n) => {
                    self.at += 1;
                    Some(Operand::Number(-n))
                }
                _ => None,
            },
            Token::Open => {
                let inner = self.sum()?;
                if self.peek()? != Token::Close {
                    return None;
                }
                self.at += 1;
                Some(inner)
            }
            _ => None,
        }
    }
}

/// The names a calculator tool for `op` may have.
pub(super) fn tool_names(op: char) -> &'static [&'static str] {
    match op {
        '+' => &["add", "sum", "plus"],
        '-' => &["subtract", "sub", "minus", "difference"],
        '*' => &["multiply", "mul", "times", "product"],
        _ => &["divide", "div", "quotient"],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Operand::{Number, Step};

    #[test]
    fn finds_the_expression_and_orders_its_operations() {
        let e = find("Use the calculator: what is (12 + 30) / 7?").unwrap();
        assert_eq!((e.at, e.text.as_str()), (28, "(12 + 30) / 7"));
        assert_eq!(
            e.steps,
            [
                Operation {
                    op: '+',
                    a: Number(12.0),
                    b: Number(30.0)
                },
                Operation {
                    op: '/',
                    a: Step(0),
                    b: Number(7.0)
                },
            ]
        );
        let e = find("What is 2 + 3 × 4 - 1.5.").unwrap();
        assert_eq!(e.text, "2 + 3 × 4 - 1.5");
        assert_eq!(
            e.steps,
            [
                Operation {
                    op: '*',
                    a: Number(3.0),
                    b: Number(4.0)
                },
                Operation {
                    op: '+',
                    a: Number(2.0),
                    b: Step(0)
                },
                Operation {
                    op: '-',
                    a: Step(1),
                    b: Number(1.5)
                },
            ]
        );
    }

    #[test]
    fn needs_an_operation_between_standalone_numbers() {
        assert_eq!(find("What is 451 °F in Celsius?"), None);
        assert_eq!(find("`fn add(a: i32, b: i32) -> i32 { a - b }`"), None);
        assert_eq!(find("version 2.1 - released"), None);
    }
}
