//! ISBN parsing and conversion between ISBN-10 and ISBN-13.

use std::fmt;
use std::str::FromStr;
use thiserror::Error;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum IsbnError {
    #[error("ISBN must have 10 or 13 digits, got {0}")]
    Length(usize),
    #[error("invalid character {0:?} in ISBN")]
    Character(char),
    #[error("check digit mismatch")]
    CheckDigit,
}

/// A validated ISBN, always stored in 13-digit form.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Isbn(String);

fn isbn13_check_digit(first12: &[u32]) -> u32 {
    let sum: u32 = first12
        .iter()
        .enumerate()
        .map(|(i, d)| if i % 2 == 0 { *d } else { d * 3 })
        .sum();
    (10 - sum % 10) % 10
}

fn isbn10_is_valid(digits: &[u32]) -> bool {
    let sum: u32 = digits.iter().enumerate().map(|(i, d)| (10 - i as u32) * d).sum();
    sum % 11 == 0
}

impl Isbn {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Publisher-facing prefix: the "978"/"979" EAN prefix plus registration group.
    pub fn prefix(&self) -> &str {
        &self.0[..4]
    }
}

impl FromStr for Isbn {
    type Err = IsbnError;

    /// Accepts ISBN-10 or ISBN-13 with optional hyphens or spaces, validates
    /// the check digit and normalises to ISBN-13.
    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        let mut digits = Vec::with_capacity(13);
        let cleaned: Vec<char> = raw.chars().filter(|c| *c != '-' && *c != ' ').collect();
        for (i, c) in cleaned.iter().enumerate() {
            match c.to_digit(10) {
                Some(d) => digits.push(d),
                None if (*c == 'X' || *c == 'x') && i == 9 && cleaned.len() == 10 => digits.push(10),
                None => return Err(IsbnError::Character(*c)),
            }
        }
        match digits.len() {
            13 => {
                if isbn13_check_digit(&digits[..12]) != digits[12] {
                    return Err(IsbnError::CheckDigit);
                }
                Ok(Isbn(digits.iter().map(|d| char::from_digit(*d, 10).unwrap()).collect()))
            }
            10 => {
                if !isbn10_is_valid(&digits) {
                    return Err(IsbnError::CheckDigit);
                }
                let mut thirteen = vec![9, 7, 8];
                thirteen.extend_from_slice(&digits[..9]);
                let check = isbn13_check_digit(&thirteen);
                thirteen.push(check);
                Ok(Isbn(thirteen.iter().map(|d| char::from_digit(*d, 10).unwrap()).collect()))
            }
            n => Err(IsbnError::Length(n)),
        }
    }
}

impl fmt::Display for Isbn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.0;
        write!(f, "{}-{}-{}-{}-{}", &s[..3], &s[3..4], &s[4..8], &s[8..12], &s[12..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_isbn10_to_13() {
        let isbn: Isbn = "0-306-40615-2".parse().unwrap();
        assert_eq!(isbn.as_str(), "9780306406157");
    }

    #[test]
    fn rejects_bad_check_digit() {
        assert_eq!("9780306406158".parse::<Isbn>(), Err(IsbnError::CheckDigit));
    }
}
