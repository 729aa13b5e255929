//! Name patterns: `*` matches any run of characters (none included), `?` any one; the rest
//! matches itself. Linear in the name: the last `*` is the only place to backtrack to.

/// Whether `name` matches `pattern`.
pub fn matches(pattern: &str, name: &str) -> bool {
    let (pattern, name): (Vec<char>, Vec<char>) =
        (pattern.chars().collect(), name.chars().collect());
    let (mut p, mut n) = (0, 0);
    // Where the last `*` was, and the name position it is now taken to cover up to.
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == '?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                // Let the last star cover one more character and try again after it.
                Some((star_p, star_n)) => {
                    star = Some((star_p, star_n + 1));
                    p = star_p + 1;
                    n = star_n + 1;
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_and_question_marks() {
        let cases = [
            ("*", "", true),
            ("*", "anything", true),
            ("tank-*", "tank-", true),
            ("tank-*", "tank-12", true),
            ("tank-*", "xtank-12", false),
            ("*-blue", "tank-blue", true),
            ("*-blue", "tank-red", false),
            ("a*b*c", "aXXbYYc", true),
            ("a*b*c", "aXXbYY", false),
            ("r?", "r1", true),
            ("r?", "r12", false),
            ("Exercise", "Exercise", true),
            ("Exercise", "exercise", false),
            ("**", "x", true),
        ];
        for (pattern, name, expected) in cases {
            assert_eq!(matches(pattern, name), expected, "{pattern:?} on {name:?}");
        }
    }
}
