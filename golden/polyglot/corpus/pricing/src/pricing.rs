//! Basket pricing: list prices, promotions, coupons and VAT.
//!
//! Order of operations matters and mirrors what finance signed off:
//! 1. look up the list price for each line,
//! 2. apply automatic promotions (multi-buy, publisher sales),
//! 3. apply at most one coupon to the discounted subtotal,
//! 4. compute VAT per line on what the customer actually pays.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::isbn::Isbn;
use crate::money::{Currency, Money};

#[derive(Debug, Error, PartialEq)]
pub enum PricingError {
    #[error("unknown ISBN {0}")]
    UnknownIsbn(String),
    #[error("no price for {0} in {1:?}")]
    NoPriceInCurrency(String, Currency),
    #[error("coupon {0} is not valid: {1}")]
    CouponRejected(String, &'static str),
    #[error("quantity must be between 1 and 20")]
    Quantity,
}

/// VAT treatment of a product. Printed books and e-books are zero-rated in
/// the UK; gift cards are outside scope; stationery and tote bags pay 20%.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum VatClass {
    ZeroRated,
    Standard,
    OutOfScope,
}

impl VatClass {
    /// Rate in basis points.
    pub fn rate_bp(self) -> i64 {
        match self {
            VatClass::ZeroRated | VatClass::OutOfScope => 0,
            VatClass::Standard => 2_000,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CatalogEntry {
    pub isbn: Isbn,
    pub title: String,
    pub publisher: String,
    pub vat: VatClass,
    pub prices: HashMap<Currency, Money>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct BasketLine {
    pub isbn: String,
    pub quantity: u32,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Basket {
    pub currency: Currency,
    pub lines: Vec<BasketLine>,
    pub coupon: Option<String>,
}

/// Automatic promotions that apply without a code.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Promotion {
    /// Buy `buy` qualifying books, get the cheapest `free` of them free ("3 for 2").
    MultiBuy { tag: String, buy: u32, free: u32 },
    /// Percentage off everything from a publisher.
    PublisherSale { publisher: String, percent_bp: i64 },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum CouponKind {
    Percent { percent_bp: i64 },
    Fixed { amount: Money },
    FreeShipping,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Coupon {
    pub code: String,
    pub kind: CouponKind,
    pub min_spend: Option<Money>,
    pub expires_at: Option<DateTime<Utc>>,
    pub max_uses: Option<u32>,
    pub used: u32,
}

impl Coupon {
    /// Check whether this coupon may be used on a basket with the given
    /// (already promoted) subtotal at time `now`.
    pub fn check(&self, subtotal: Money, now: DateTime<Utc>) -> Result<(), PricingError> {
        if let Some(expiry) = self.expires_at {
            if now > expiry {
                return Err(PricingError::CouponRejected(self.code.clone(), "expired"));
            }
        }
        if let Some(max) = self.max_uses {
            if self.used >= max {
                return Err(PricingError::CouponRejected(self.code.clone(), "fully redeemed"));
            }
        }
        if let Some(min) = self.min_spend {
            if min.currency != subtotal.currency {
                return Err(PricingError::CouponRejected(self.code.clone(), "wrong currency"));
            }
            if subtotal.minor < min.minor {
                return Err(PricingError::CouponRejected(self.code.clone(), "minimum spend not reached"));
            }
        }
        Ok(())
    }

    /// Discount this coupon gives on `subtotal`. Never more than the subtotal.
    pub fn discount(&self, subtotal: Money) -> Money {
        let raw = match &self.kind {
            CouponKind::Percent { percent_bp } => subtotal.percent_bp(*percent_bp),
            CouponKind::Fixed { amount } if amount.currency == subtotal.currency => *amount,
            CouponKind::Fixed { .. } => Money::zero(subtotal.currency),
            CouponKind::FreeShipping => Money::zero(subtotal.currency),
        };
        if raw.minor > subtotal.minor { subtotal } else { raw }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct QuoteLine {
    pub isbn: String,
    pub title: String,
    pub quantity: u32,
    pub unit_price: Money,
    pub promo_discount: Money,
    pub vat: Money,
}

#[derive(Debug, Clone, Serialize)]
pub struct Quote {
    pub lines: Vec<QuoteLine>,
    pub subtotal: Money,
    pub promotions: Money,
    pub coupon_discount: Money,
    pub free_shipping: bool,
    pub vat: Money,
    pub total: Money,
}

/// In-memory price list, promotions and coupons, refreshed from the catalogue.
#[derive(Debug, Default)]
pub struct PriceBook {
    entries: HashMap<Isbn, CatalogEntry>,
    tags: HashMap<Isbn, Vec<String>>,
    promotions: Vec<Promotion>,
    coupons: HashMap<String, Coupon>,
}

impl PriceBook {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert(&mut self, entry: CatalogEntry, tags: Vec<String>) {
        self.tags.insert(entry.isbn.clone(), tags);
        self.entries.insert(entry.isbn.clone(), entry);
    }

    pub fn add_promotion(&mut self, promo: Promotion) {
        self.promotions.push(promo);
    }

    pub fn add_coupon(&mut self, coupon: Coupon) {
        self.coupons.insert(coupon.code.to_uppercase(), coupon);
    }

    fn entry(&self, raw_isbn: &str) -> Result<&CatalogEntry, PricingError> {
        let isbn: Isbn = raw_isbn.parse().map_err(|_| PricingError::UnknownIsbn(raw_isbn.to_string()))?;
        self.entries.get(&isbn).ok_or_else(|| PricingError::UnknownIsbn(raw_isbn.to_string()))
    }

    /// Look up the list price of one book in the basket currency.
    pub fn unit_price(&self, raw_isbn: &str, currency: Currency) -> Result<Money, PricingError> {
        let entry = self.entry(raw_isbn)?;
        entry
            .prices
            .get(&currency)
            .copied()
            .ok_or_else(|| PricingError::NoPriceInCurrency(raw_isbn.to_string(), currency))
    }

    /// Apply multi-buy and publisher promotions, returning a discount per line index.
    fn promotion_discounts(&self, lines: &[(CatalogEntry, u32, Money)]) -> Vec<Money> {
        let currency = lines.first().map(|l| l.2.currency).unwrap_or(Currency::GBP);
        let mut discounts = vec![Money::zero(currency); lines.len()];
        for promo in &self.promotions {
            match promo {
                Promotion::PublisherSale { publisher, percent_bp } => {
                    for (i, (entry, qty, unit)) in lines.iter().enumerate() {
                        if &entry.publisher == publisher {
                            discounts[i] = discounts[i] + unit.times(*qty).percent_bp(*percent_bp);
                        }
                    }
                }
                Promotion::MultiBuy { tag, buy, free } => {
                    // Expand qualifying copies into individual unit prices, cheapest first.
                    let mut copies: Vec<(usize, Money)> = Vec::new();
                    for (i, (entry, qty, unit)) in lines.iter().enumerate() {
                        let tagged = self.tags.get(&entry.isbn).map_or(false, |t| t.contains(tag));
                        if tagged {
                            copies.extend(std::iter::repeat((i, *unit)).take(*qty as usize));
                        }
                    }
                    copies.sort_by_key(|(_, price)| price.minor);
                    let free_copies = (copies.len() as u32 / buy) * free;
                    for (i, price) in copies.into_iter().take(free_copies as usize) {
                        discounts[i] = discounts[i] + price;
                    }
                }
            }
        }
        discounts
    }

    /// Price a basket end to end. This is what `POST /quote` calls.
    pub fn quote(&self, basket: &Basket, now: DateTime<Utc>) -> Result<Quote, PricingError> {
        let currency = basket.currency;
        let mut priced = Vec::with_capacity(basket.lines.len());
        for line in &basket.lines {
            if line.quantity == 0 || line.quantity > 20 {
                return Err(PricingError::Quantity);
            }
            let entry = self.entry(&line.isbn)?.clone();
            let unit = self.unit_price(&line.isbn, currency)?;
            priced.push((entry, line.quantity, unit));
        }

        let promo = self.promotion_discounts(&priced);
        let subtotal = priced.iter().fold(Money::zero(currency), |acc, (_, q, u)| acc + u.times(*q));
        let promotions = promo.iter().fold(Money::zero(currency), |acc, d| acc + *d);
        let after_promos = subtotal - promotions;

        let (coupon_discount, free_shipping) = match &basket.coupon {
            None => (Money::zero(currency), false),
            Some(code) => {
                let coupon = self
                    .coupons
                    .get(&code.to_uppercase())
                    .ok_or_else(|| PricingError::CouponRejected(code.clone(), "unknown code"))?;
                coupon.check(after_promos, now)?;
                (coupon.discount(after_promos), matches!(coupon.kind, CouponKind::FreeShipping))
            }
        };

        let lines = allocate_and_tax(&priced, &promo, coupon_discount, after_promos);
        let vat = lines.iter().fold(Money::zero(currency), |acc, l| acc + l.vat);
        let total = after_promos - coupon_discount;
        Ok(Quote { lines, subtotal, promotions, coupon_discount, free_shipping, vat, total })
    }
}

/// Spread the coupon discount across lines in proportion to their value and
/// work out the VAT contained in each line's final (VAT-inclusive) price.
fn allocate_and_tax(
    priced: &[(CatalogEntry, u32, Money)],
    promo: &[Money],
    coupon_discount: Money,
    after_promos: Money,
) -> Vec<QuoteLine> {
    let mut remaining = coupon_discount.minor;
    let count = priced.len();
    priced
        .iter()
        .enumerate()
        .map(|(i, (entry, qty, unit))| {
            let line_net = unit.times(*qty) - promo[i];
            let share = if i + 1 == count || after_promos.minor == 0 {
                remaining
            } else {
                coupon_discount.minor * line_net.minor / after_promos.minor
            };
            remaining -= share;
            let paid = line_net.minor - share;
            // VAT-inclusive price: vat = paid * rate / (1 + rate)
            let rate = entry.vat.rate_bp();
            let vat_minor = if rate == 0 { 0 } else { (paid * rate + (10_000 + rate) / 2) / (10_000 + rate) };
            QuoteLine {
                isbn: entry.isbn.as_str().to_string(),
                title: entry.title.clone(),
                quantity: *qty,
                unit_price: *unit,
                promo_discount: promo[i],
                vat: Money::new(vat_minor, unit.currency),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book(isbn: &str, publisher: &str, pence: i64) -> CatalogEntry {
        let mut prices = HashMap::new();
        prices.insert(Currency::GBP, Money::new(pence, Currency::GBP));
        CatalogEntry {
            isbn: isbn.parse().unwrap(),
            title: format!("Book {isbn}"),
            publisher: publisher.to_string(),
            vat: VatClass::ZeroRated,
            prices,
        }
    }

    #[test]
    fn three_for_two_makes_cheapest_free() {
        let mut pb = PriceBook::new();
        pb.insert(book("9780306406157", "Faber", 1000), vec!["3for2".into()]);
        pb.insert(book("9781861972712", "Faber", 800), vec!["3for2".into()]);
        pb.add_promotion(Promotion::MultiBuy { tag: "3for2".into(), buy: 3, free: 1 });
        let basket = Basket {
            currency: Currency::GBP,
            lines: vec![
                BasketLine { isbn: "9780306406157".into(), quantity: 2 },
                BasketLine { isbn: "9781861972712".into(), quantity: 1 },
            ],
            coupon: None,
        };
        let quote = pb.quote(&basket, Utc::now()).unwrap();
        assert_eq!(quote.promotions.minor, 800);
        assert_eq!(quote.total.minor, 2000);
    }
}
