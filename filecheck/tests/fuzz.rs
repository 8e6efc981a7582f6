//! Seeded random fuzzing of the library: random and mutated check files, inputs and options must
//! never panic, and every outcome must carry an LLVM exit status (0, 1 or 2).

use nart_filecheck::{run, Request};

/// A small xorshift generator, so the test needs no dependency and is reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

const DIRECTIVES: &[&str] = &[
    "CHECK:",
    "CHECK-NEXT:",
    "CHECK-SAME:",
    "CHECK-NOT:",
    "CHECK-DAG:",
    "CHECK-LABEL:",
    "CHECK-EMPTY:",
    "CHECK-COUNT-2:",
    "CHECK-COUNT-0:",
    "CHECK_NEXT:",
    "CHECK-NOT-DAG:",
    "COM:",
    "CHECK{LITERAL}:",
    "FOO:",
    "CHECK",
];
const PIECES: &[&str] = &[
    "a",
    "b",
    "foo",
    " ",
    "\t",
    "{{",
    "}}",
    "[[",
    "]]",
    "{{[0-9]+}}",
    "{{a|b}}",
    "{{.*}}",
    "[[X:[a-z]+]]",
    "[[X]]",
    "[[#N:]]",
    "[[#N+1]]",
    "[[#%x,H:]]",
    "[[#H*2]]",
    "[[#add(N,1)]]",
    "[[@LINE]]",
    "[[#@LINE-1]]",
    "[[$G:.]]",
    "[[$G]]",
    "(",
    ")",
    "\\",
    "*",
    "?",
    "+",
    "|",
    "^",
    "$",
    "[",
    "]",
    "{",
    "}",
    ":",
    "#",
    "%",
    ",",
    "==",
    "{{\\1}}",
    "[[:alpha:]]",
    "\u{e9}",
    "\n",
];
const INPUT: &[&str] = &[
    "a", "b", "foo", "1", "42", "ff", " ", "\n", "\t", "\r\n", "x", "\u{e9}", "[", "{",
];

fn random_text(rng: &mut Rng, alphabet: &[&str], n: usize) -> String {
    (0..n).map(|_| rng.pick(alphabet)).collect()
}

fn random_check(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..rng.below(6) {
        s.push_str(rng.pick(&["", "// ", "; "]));
        s.push_str(rng.pick(DIRECTIVES));
        s.push(' ');
        let n = rng.below(5);
        s.push_str(&random_text(rng, PIECES, n));
        s.push('\n');
    }
    s
}

fn mutate(rng: &mut Rng, s: &str) -> Vec<u8> {
    let mut b = s.as_bytes().to_vec();
    for _ in 0..rng.below(4) {
        if b.is_empty() {
            break;
        }
        let i = rng.below(b.len());
        match rng.below(3) {
            0 => b[i] = rng.next() as u8,
            1 => {
                b.remove(i);
            }
            _ => b.insert(i, b"[]{}#:$@\\\n"[rng.below(10)]),
        }
    }
    b
}

#[test]
fn random_check_files_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let iterations = 20_000;
    for _ in 0..iterations {
        let check = random_check(&mut rng);
        let check = if rng.below(3) == 0 {
            mutate(&mut rng, &check)
        } else {
            check.into_bytes()
        };
        let n = rng.below(30);
        let input = random_text(&mut rng, INPUT, n);
        let input = if rng.below(4) == 0 {
            mutate(&mut rng, &input)
        } else {
            input.into_bytes()
        };
        let mut req = Request {
            match_full_lines: rng.below(5) == 0,
            strict_whitespace: rng.below(5) == 0,
            enable_var_scope: rng.below(3) == 0,
            allow_empty: rng.below(3) == 0,
            verbose: rng.below(6) == 0,
            ..Request::default()
        };
        if rng.below(6) == 0 {
            req.implicit_check_not
                .push(random_text(&mut rng, PIECES, 2));
        }
        if rng.below(6) == 0 {
            req.defines.push(
                rng.pick(&["X=a", "#N=3", "#%x,H=ff", "$G=b", "1=2", "#N=M+1", "X Y=1"])
                    .to_string(),
            );
        }
        if rng.below(8) == 0 {
            req.check_prefixes = vec![rng.pick(&["FOO", "CHECK", "A-B", "x.y", ""]).to_string()];
        }
        let out = run(
            &req,
            "fuzz.check",
            Ok(check.clone()),
            "fuzz.input",
            || Ok(input.clone()),
            "filecheck",
        );
        assert!(
            (0..=2).contains(&out.status),
            "bad status {} for check {:?} input {:?}",
            out.status,
            String::from_utf8_lossy(&check),
            String::from_utf8_lossy(&input)
        );
    }
    eprintln!("fuzzed {iterations} random check files without a panic");
}
