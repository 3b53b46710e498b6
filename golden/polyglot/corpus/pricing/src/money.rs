//! Integer money type. Never use floats for prices.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, Sub};
use thiserror::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Currency {
    GBP,
    EUR,
    USD,
}

impl Currency {
    pub fn symbol(self) -> &'static str {
        match self {
            Currency::GBP => "£",
            Currency::EUR => "€",
            Currency::USD => "$",
        }
    }
}

#[derive(Debug, Error, PartialEq)]
pub enum MoneyError {
    #[error("cannot combine {0:?} with {1:?}")]
    CurrencyMismatch(Currency, Currency),
    #[error("could not parse amount {0:?}")]
    Parse(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Money {
    pub minor: i64,
    pub currency: Currency,
}

impl Money {
    pub const fn new(minor: i64, currency: Currency) -> Self {
        Money { minor, currency }
    }

    pub const fn zero(currency: Currency) -> Self {
        Money { minor: 0, currency }
    }

    pub fn checked_add(self, other: Money) -> Result<Money, MoneyError> {
        if self.currency != other.currency {
            return Err(MoneyError::CurrencyMismatch(self.currency, other.currency));
        }
        Ok(Money::new(self.minor + other.minor, self.currency))
    }

    /// Multiply by a quantity, e.g. unit price times copies.
    pub fn times(self, quantity: u32) -> Money {
        Money::new(self.minor * i64::from(quantity), self.currency)
    }

    /// Take a percentage (in basis points, 1% = 100) rounding half away from zero.
    pub fn percent_bp(self, basis_points: i64) -> Money {
        let scaled = self.minor * basis_points;
        let rounded = if scaled >= 0 { (scaled + 5_000) / 10_000 } else { (scaled - 5_000) / 10_000 };
        Money::new(rounded, self.currency)
    }

    /// Parse a human price such as "£12.99", "12.5" or "€7" into minor units.
    pub fn parse(text: &str, currency: Currency) -> Result<Money, MoneyError> {
        let trimmed = text.trim().trim_start_matches(currency.symbol()).replace(',', "");
        let (whole, frac) = match trimmed.split_once('.') {
            Some((w, f)) => (w, f),
            None => (trimmed.as_str(), ""),
        };
        if whole.is_empty() || frac.len() > 2 || !whole.chars().all(|c| c.is_ascii_digit()) || !frac.chars().all(|c| c.is_ascii_digit()) {
            return Err(MoneyError::Parse(text.to_string()));
        }
        let whole: i64 = whole.parse().map_err(|_| MoneyError::Parse(text.to_string()))?;
        let frac: i64 = format!("{:0<2}", frac).parse().map_err(|_| MoneyError::Parse(text.to_string()))?;
        Ok(Money::new(whole * 100 + frac, currency))
    }
}

impl Add for Money {
    type Output = Money;

    fn add(self, rhs: Money) -> Money {
        self.checked_add(rhs).expect("currency mismatch in Money::add")
    }
}

impl Sub for Money {
    type Output = Money;

    fn sub(self, rhs: Money) -> Money {
        assert_eq!(self.currency, rhs.currency, "currency mismatch in Money::sub");
        Money::new(self.minor - rhs.minor, self.currency)
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.minor < 0 { "-" } else { "" };
        let abs = self.minor.abs();
        write!(f, "{}{}{}.{:02}", sign, self.currency.symbol(), abs / 100, abs % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_symbols_and_decimals() {
        assert_eq!(Money::parse("£12.99", Currency::GBP), Ok(Money::new(1299, Currency::GBP)));
        assert_eq!(Money::parse("12.5", Currency::GBP), Ok(Money::new(1250, Currency::GBP)));
        assert!(Money::parse("12.999", Currency::GBP).is_err());
    }

    #[test]
    fn percent_rounds_half_up() {
        assert_eq!(Money::new(999, Currency::GBP).percent_bp(1_000).minor, 100);
    }
}
