//! fio's reserved keywords and its arithmetic on option values: `$pagesize`, `$mb_memory` and
//! `$ncpus` are replaced by the host's values, and a value that then holds `+ - * /` is worked
//! out as fio 3.33 has `bc` work it out (whole numbers, division truncated: `size=8*$mb_memory`
//! is 8 × the MiB of memory, in bytes). A value in parentheses, `bs=(2*4096)`, is worked out the
//! same way (fio builds with arithmetic take it for any number).
//! Hand-written: thirty lines of precedence climbing, where a crate would bring a general
//! expression language fio does not have.

/// The host's values of fio's keywords.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keywords {
    /// `$pagesize`: the page size, bytes.
    pub pagesize: u64,
    /// `$mb_memory`: physical memory, MiB (whole).
    pub mb_memory: u64,
    /// `$ncpus`: CPUs online.
    pub ncpus: u64,
}

impl Keywords {
    /// This host's values, as fio takes them (sysconf's page size, physical pages and CPUs
    /// online).
    pub fn host() -> Self {
        // SAFETY: sysconf reads a system constant; it has no memory effects.
        let conf = |name| unsafe { libc::sysconf(name) }.max(0) as u64;
        let pagesize = conf(libc::_SC_PAGESIZE).max(1);
        Keywords {
            pagesize,
            mb_memory: conf(libc::_SC_PHYS_PAGES) * pagesize / (1024 * 1024),
            ncpus: conf(libc::_SC_NPROCESSORS_ONLN).max(1),
        }
    }

    fn words(&self) -> [(&'static str, u64); 3] {
        [
            ("$pagesize", self.pagesize),
            ("$mb_memory", self.mb_memory),
            ("$ncpus", self.ncpus),
        ]
    }
}

/// `value` with fio's keywords replaced, and worked out when a keyword was replaced and it then
/// holds arithmetic. Err names what could not be worked out (fio's `bc` would fail on it too,
/// e.g. a size suffix inside the sum).
pub fn expand(value: &str, kw: &Keywords) -> Result<String, String> {
    let mut out = value.to_string();
    let mut replaced = false;
    for (word, n) in kw.words() {
        if out.contains(word) {
            out = out.replace(word, &n.to_string());
            replaced = true;
        }
    }
    if replaced && out.contains(['+', '-', '*', '/']) {
        return eval(&out).map(|n| n.to_string());
    }
    Ok(out)
}

/// What an arithmetic value may hold.
pub const ACCEPTED: &str =
    "whole numbers with + - * / % ^ and parentheses, no size suffixes inside, e.g. (2*4096)";

/// The deepest nesting of parentheses worked out (a deeper one is refused, never a stack
/// overflow).
const MAX_DEPTH: usize = 64;

/// Works out `expr`: whole numbers, `+ - * / % ^`, unary minus and parentheses, with `bc`'s
/// precedence (`^` binds tightest, right to left; unary minus tighter still) and its integer
/// division. Err on anything else, on division by zero and on overflow.
pub fn eval(expr: &str) -> Result<i128, String> {
    let tokens: Vec<char> = expr.chars().collect();
    let mut p = Parser { t: &tokens, i: 0 };
    let v = p.sum(0)?;
    match p.peek() {
        None => Ok(v),
        Some(c) => Err(format!("unexpected '{c}' in '{expr}'")),
    }
}

struct Parser<'a> {
    t: &'a [char],
    i: usize,
}

impl Parser<'_> {
    /// The next token, past blanks (a blank separates tokens; it never joins digits).
    fn peek(&mut self) -> Option<char> {
        while self.t.get(self.i).is_some_and(|c| c.is_whitespace()) {
            self.i += 1;
        }
        self.t.get(self.i).copied()
    }

    fn sum(&mut self, depth: usize) -> Result<i128, String> {
        let mut v = self.product(depth)?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            self.i += 1;
            let r = self.product(depth)?;
            v = if op == '+' {
                v.checked_add(r)
            } else {
                v.checked_sub(r)
            }
            .ok_or("the sum overflows")?;
        }
        Ok(v)
    }

    fn product(&mut self, depth: usize) -> Result<i128, String> {
        let mut v = self.power(depth)?;
        while let Some(op @ ('*' | '/' | '%')) = self.peek() {
            self.i += 1;
            let r = self.power(depth)?;
            v = match op {
                '*' => v.checked_mul(r).ok_or("the product overflows")?,
                _ if r == 0 => return Err("division by zero".into()),
                '/' => v.checked_div(r).ok_or("the quotient overflows")?,
                _ => v.checked_rem(r).ok_or("the remainder overflows")?,
            };
        }
        Ok(v)
    }

    fn power(&mut self, depth: usize) -> Result<i128, String> {
        let base = self.unary(depth)?;
        if self.peek() != Some('^') {
            return Ok(base);
        }
        self.i += 1;
        let exp = self.power(depth + 1)?;
        let exp = u32::try_from(exp).map_err(|_| "a negative or huge exponent".to_string())?;
        base.checked_pow(exp)
            .ok_or_else(|| "the power overflows".into())
    }

    fn unary(&mut self, depth: usize) -> Result<i128, String> {
        if depth > MAX_DEPTH {
            return Err("too deeply nested".into());
        }
        match self.peek() {
            Some('-') => {
                self.i += 1;
                let v = self.unary(depth + 1)?;
                v.checked_neg()
                    .ok_or_else(|| "the negation overflows".into())
            }
            Some('(') => {
                self.i += 1;
                let v = self.sum(depth + 1)?;
                if self.peek() != Some(')') {
                    return Err("a '(' without its ')'".into());
                }
                self.i += 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.i;
                while self.t.get(self.i).is_some_and(|c| c.is_ascii_digit()) {
                    self.i += 1;
                }
                let digits: String = self.t[start..self.i].iter().collect();
                digits
                    .parse()
                    .map_err(|_| format!("the number {digits} is too large"))
            }
            Some(c) => Err(format!("unexpected '{c}'")),
            None => Err("a value is missing".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KW: Keywords = Keywords {
        pagesize: 4096,
        mb_memory: 24105,
        ncpus: 2,
    };

    #[test]
    fn keywords_are_replaced_and_worked_out_as_bc_would() {
        // fio 3.33 with bc on a 24105-MiB host parses size=2*$mb_memory as 48210.
        assert_eq!(expand("2*$mb_memory", &KW).unwrap(), "48210");
        assert_eq!(expand("$pagesize", &KW).unwrap(), "4096");
        assert_eq!(expand("10*1000*$mb_memory", &KW).unwrap(), "241050000");
        assert_eq!(expand("$ncpus", &KW).unwrap(), "2");
        assert_eq!(expand("$pagesize/3", &KW).unwrap(), "1365", "bc truncates");
        // Without a keyword nothing is worked out (fio leaves it to the option's parser).
        assert_eq!(expand("4k-16k", &KW).unwrap(), "4k-16k");
        // A size suffix inside a sum: bc cannot read it, nor can we.
        assert!(expand("2*$pagesize+4k", &KW).is_err());
    }

    #[test]
    fn precedence_and_errors() {
        assert_eq!(eval("2+3*4").unwrap(), 14);
        assert_eq!(eval("(2+3)*4").unwrap(), 20);
        assert_eq!(eval("2^3^2").unwrap(), 512, "right to left");
        assert_eq!(eval("-2^2").unwrap(), 4, "bc: unary minus binds tighter");
        assert_eq!(eval("10%3*1024").unwrap(), 1024);
        assert_eq!(eval(" 7 / 2 ").unwrap(), 3);
        assert!(eval("1 0").is_err(), "a blank separates numbers, as in bc");
        assert_eq!(eval("-7/2").unwrap(), -3);
        for bad in [
            "",
            "1/0",
            "5%0",
            "(1",
            "1)",
            "2^-1",
            "1+",
            "a",
            "2^200",
            "9".repeat(60).as_str(),
        ] {
            assert!(eval(bad).is_err(), "{bad}");
        }
        let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(eval(&deep).is_err(), "refused, not a stack overflow");
        let deep_unary = format!("{}1", "-".repeat(10_000));
        assert!(eval(&deep_unary).is_err());
        let deep_pow = format!("{}2", "2^".repeat(10_000));
        assert!(eval(&deep_pow).is_err());
    }

    #[test]
    fn the_host_has_sensible_values() {
        let h = Keywords::host();
        assert!(h.pagesize >= 4096 && h.pagesize.is_power_of_two());
        assert!(h.mb_memory > 0 && h.ncpus > 0);
    }
}
