//! lit's boolean feature expressions: `a && !b || (c)`, and `*` for "always".

/// Evaluates `expr` with `features` available; `Err` describes a syntax error.
pub fn eval(expr: &str, features: &[String]) -> Result<bool, String> {
    let toks = tokenize(expr)?;
    let mut p = P {
        toks: &toks,
        i: 0,
        features,
    };
    let v = p.or()?;
    if p.i != toks.len() {
        return Err(format!("unexpected '{}' in '{expr}'", toks[p.i]));
    }
    Ok(v)
}

fn tokenize(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if s[i..].starts_with("&&") || s[i..].starts_with("||") {
            out.push(s[i..i + 2].to_string());
            i += 2;
        } else if c == b'!' || c == b'(' || c == b')' {
            out.push((c as char).to_string());
            i += 1;
        } else {
            let st = i;
            while i < b.len() && !b[i].is_ascii_whitespace() && !b"!()&|".contains(&b[i]) {
                i += 1;
            }
            if st == i {
                return Err(format!("bad character in '{s}'"));
            }
            out.push(s[st..i].to_string());
        }
    }
    if out.is_empty() {
        return Err("empty expression".into());
    }
    Ok(out)
}

struct P<'a> {
    toks: &'a [String],
    i: usize,
    features: &'a [String],
}

impl P<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.i).map(String::as_str)
    }
    fn or(&mut self) -> Result<bool, String> {
        let mut v = self.and()?;
        while self.peek() == Some("||") {
            self.i += 1;
            v |= self.and()?;
        }
        Ok(v)
    }
    fn and(&mut self) -> Result<bool, String> {
        let mut v = self.not()?;
        while self.peek() == Some("&&") {
            self.i += 1;
            v &= self.not()?;
        }
        Ok(v)
    }
    fn not(&mut self) -> Result<bool, String> {
        match self.peek().map(str::to_string).as_deref() {
            Some("!") => {
                self.i += 1;
                Ok(!self.not()?)
            }
            Some("(") => {
                self.i += 1;
                let v = self.or()?;
                if self.peek() != Some(")") {
                    return Err("missing ')'".into());
                }
                self.i += 1;
                Ok(v)
            }
            Some(t) if t != ")" && t != "&&" && t != "||" => {
                self.i += 1;
                Ok(t == "*" || self.features.iter().any(|f| f == t))
            }
            _ => Err("expected a feature name".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluates() {
        let f = vec!["linux".to_string(), "nart".to_string()];
        assert!(eval("linux && !windows", &f).unwrap());
        assert!(!eval("windows || (mac && linux)", &f).unwrap());
        assert!(eval("*", &f).unwrap());
        assert!(eval("a &&", &f).is_err());
    }
}
