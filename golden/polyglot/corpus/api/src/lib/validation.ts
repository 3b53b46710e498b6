import { ValidationError } from "./errors";
import type { ShippingAddress } from "../models/order";

const ISBN13 = /^97[89]\d{10}$/;
const UK_POSTCODE = /^[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Checks an ISBN-13, including its check digit (alternating weights 1 and 3,
 * sum must be a multiple of 10). Hyphens and spaces are ignored.
 */
export function isValidIsbn13(raw: string): boolean {
  const isbn = raw.replace(/[-\s]/g, "");
  if (!ISBN13.test(isbn)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) {
    sum += Number(isbn[i]) * (i % 2 === 0 ? 1 : 3);
  }
  const check = (10 - (sum % 10)) % 10;
  return check === Number(isbn[12]);
}

export function isValidEmail(email: string): boolean {
  return EMAIL.test(email.trim());
}

/**
 * Validates a shipping address and throws a ValidationError listing every
 * bad field at once, so the checkout form can highlight them all.
 */
export function validateAddress(address: Partial<ShippingAddress>): ShippingAddress {
  const errors: Record<string, string> = {};
  if (!address.name?.trim()) errors.name = "required";
  if (!address.line1?.trim()) errors.line1 = "required";
  if (!address.city?.trim()) errors.city = "required";
  if (!address.country || address.country.length !== 2) {
    errors.country = "must be an ISO 3166 alpha-2 code";
  }
  if (!address.postcode) {
    errors.postcode = "required";
  } else if (address.country === "GB" && !UK_POSTCODE.test(address.postcode)) {
    errors.postcode = "not a valid UK postcode";
  }
  if (Object.keys(errors).length > 0) {
    throw new ValidationError(errors);
  }
  return address as ShippingAddress;
}

export function validateQuantity(quantity: unknown, max = 20): number {
  if (typeof quantity !== "number" || !Number.isInteger(quantity) || quantity < 1 || quantity > max) {
    throw new ValidationError({ quantity: `must be an integer between 1 and ${max}` });
  }
  return quantity;
}
