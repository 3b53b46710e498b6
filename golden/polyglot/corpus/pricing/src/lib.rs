//! Pricing engine for Pagebound.
//!
//! The orders API sends a basket (ISBN + quantity) and an optional coupon
//! code; this crate returns unit prices, the discount and VAT. All money is
//! handled as integer minor units via [`money::Money`].

pub mod isbn;
pub mod money;
pub mod pricing;

pub use isbn::{Isbn, IsbnError};
pub use money::{Currency, Money, MoneyError};
pub use pricing::{Basket, BasketLine, Coupon, PriceBook, PricingError, Quote};
