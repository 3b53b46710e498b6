import React, { FormEvent, useEffect, useMemo, useReducer, useRef, useState } from "react";
import { api, ApiClientError } from "../utils/apiClient";
import { formatPrice } from "../utils/format";
import { CartLine, estimateTotals } from "./CartSummary";

// ---------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------

type Step = "address" | "delivery" | "payment" | "review";

const STEPS: Step[] = ["address", "delivery", "payment", "review"];

interface AddressFields {
  name: string;
  line1: string;
  line2: string;
  city: string;
  postcode: string;
  country: string;
}

interface DeliveryOption {
  id: "standard" | "express" | "click_collect";
  label: string;
  priceMinor: number;
  eta: string;
}

interface PaymentFields {
  cardholder: string;
  cardNumber: string;
  expiry: string;
  cvc: string;
}

interface CheckoutState {
  step: Step;
  address: AddressFields;
  delivery: DeliveryOption["id"];
  payment: PaymentFields;
  errors: Partial<Record<string, string>>;
  submitting: boolean;
  serverError: string | null;
}

type Action =
  | { type: "setAddress"; field: keyof AddressFields; value: string }
  | { type: "setPayment"; field: keyof PaymentFields; value: string }
  | { type: "setDelivery"; value: DeliveryOption["id"] }
  | { type: "goto"; step: Step }
  | { type: "errors"; errors: Partial<Record<string, string>> }
  | { type: "submitting"; value: boolean }
  | { type: "serverError"; message: string | null };

const DELIVERY_OPTIONS: DeliveryOption[] = [
  { id: "standard", label: "Standard (Royal Mail)", priceMinor: 399, eta: "3–5 working days" },
  { id: "express", label: "Express courier", priceMinor: 899, eta: "Next working day" },
  { id: "click_collect", label: "Collect from shop", priceMinor: 0, eta: "Ready in 2 hours" },
];

const initialState: CheckoutState = {
  step: "address",
  address: { name: "", line1: "", line2: "", city: "", postcode: "", country: "GB" },
  delivery: "standard",
  payment: { cardholder: "", cardNumber: "", expiry: "", cvc: "" },
  errors: {},
  submitting: false,
  serverError: null,
};

function reducer(state: CheckoutState, action: Action): CheckoutState {
  switch (action.type) {
    case "setAddress":
      return { ...state, address: { ...state.address, [action.field]: action.value } };
    case "setPayment":
      return { ...state, payment: { ...state.payment, [action.field]: action.value } };
    case "setDelivery":
      return { ...state, delivery: action.value };
    case "goto":
      return { ...state, step: action.step, errors: {} };
    case "errors":
      return { ...state, errors: action.errors };
    case "submitting":
      return { ...state, submitting: action.value };
    case "serverError":
      return { ...state, serverError: action.message };
    default:
      return state;
  }
}

// ---------------------------------------------------------------------------
// Client-side validation (mirrors the API rules; the server still re-checks)
// ---------------------------------------------------------------------------

const UK_POSTCODE = /^[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}$/i;

export function validateAddressStep(address: AddressFields): Partial<Record<string, string>> {
  const errors: Partial<Record<string, string>> = {};
  if (!address.name.trim()) errors.name = "Please enter the recipient's name";
  if (!address.line1.trim()) errors.line1 = "Please enter the first line of the address";
  if (!address.city.trim()) errors.city = "Please enter a town or city";
  if (address.country === "GB" && !UK_POSTCODE.test(address.postcode)) {
    errors.postcode = "That doesn't look like a UK postcode";
  }
  return errors;
}

/** Luhn checksum for card numbers; catches most typos before we hit the PSP. */
export function luhnValid(cardNumber: string): boolean {
  const digits = cardNumber.replace(/\D/g, "");
  if (digits.length < 12 || digits.length > 19) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = Number(digits[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Expiry in MM/YY form, not in the past. */
export function expiryValid(expiry: string, now = new Date()): boolean {
  const match = /^(0[1-9]|1[0-2])\/(\d{2})$/.exec(expiry.trim());
  if (!match) return false;
  const month = Number(match[1]);
  const year = 2000 + Number(match[2]);
  const endOfMonth = new Date(year, month, 0, 23, 59, 59);
  return endOfMonth >= now;
}

export function validatePaymentStep(payment: PaymentFields): Partial<Record<string, string>> {
  const errors: Partial<Record<string, string>> = {};
  if (!payment.cardholder.trim()) errors.cardholder = "Name on card is required";
  if (!luhnValid(payment.cardNumber)) errors.cardNumber = "Card number is not valid";
  if (!expiryValid(payment.expiry)) errors.expiry = "Use MM/YY and a date in the future";
  if (!/^\d{3,4}$/.test(payment.cvc)) errors.cvc = "3 or 4 digits";
  return errors;
}

/**
 * Maps field names in a 422 response from the orders API ("address.postcode",
 * "lines[0].quantity") onto our form fields so errors appear inline.
 */
function mapServerFieldErrors(fields: Record<string, string>): Partial<Record<string, string>> {
  const mapped: Partial<Record<string, string>> = {};
  for (const [key, message] of Object.entries(fields)) {
    const field = key.startsWith("address.") ? key.slice("address.".length) : key;
    mapped[field] = message;
  }
  return mapped;
}

function newIdempotencyKey(): string {
  return crypto.randomUUID();
}

// ---------------------------------------------------------------------------
// Component
// ---------------------------------------------------------------------------

interface CheckoutFormProps {
  lines: CartLine[];
  currency: string;
  discountMinor: number;
  tokenizeCard: (payment: PaymentFields) => Promise<string>;
  onPlaced: (orderId: string) => void;
}

function Field(props: {
  label: string;
  name: string;
  value: string;
  error?: string;
  onChange: (value: string) => void;
  autoComplete?: string;
  inputMode?: "text" | "numeric";
}) {
  const id = `checkout-${props.name}`;
  return (
    <div className={props.error ? "field field--error" : "field"}>
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        value={props.value}
        autoComplete={props.autoComplete}
        inputMode={props.inputMode}
        aria-invalid={Boolean(props.error)}
        aria-describedby={props.error ? `${id}-error` : undefined}
        onChange={(e) => props.onChange(e.target.value)}
      />
      {props.error && (
        <p id={`${id}-error`} className="field__error">
          {props.error}
        </p>
      )}
    </div>
  );
}

/**
 * Four-step checkout: address → delivery → payment → review. The card is
 * tokenised in the browser so raw card numbers never reach our API, and a
 * single idempotency key is reused for every submit attempt of this checkout
 * so a double click or retry can't create two orders.
 */
export function CheckoutForm({ lines, currency, discountMinor, tokenizeCard, onPlaced }: CheckoutFormProps) {
  const [state, dispatch] = useReducer(reducer, initialState);
  const idempotencyKey = useRef(newIdempotencyKey());
  const [paymentToken, setPaymentToken] = useState<string | null>(null);
  const firstErrorRef = useRef<HTMLDivElement>(null);

  const delivery = DELIVERY_OPTIONS.find((d) => d.id === state.delivery)!;
  const totals = useMemo(() => {
    const base = estimateTotals(lines, discountMinor);
    const shipping = state.delivery === "standard" ? base.shipping : delivery.priceMinor;
    return { ...base, shipping, total: base.subtotal - base.discount + shipping };
  }, [lines, discountMinor, state.delivery, delivery.priceMinor]);

  useEffect(() => {
    if (Object.keys(state.errors).length > 0) {
      firstErrorRef.current?.scrollIntoView({ behavior: "smooth", block: "center" });
    }
  }, [state.errors]);

  async function next(event: FormEvent) {
    event.preventDefault();
    if (state.step === "address") {
      const errors = validateAddressStep(state.address);
      if (Object.keys(errors).length) return dispatch({ type: "errors", errors });
      dispatch({ type: "goto", step: "delivery" });
    } else if (state.step === "delivery") {
      dispatch({ type: "goto", step: "payment" });
    } else if (state.step === "payment") {
      const errors = validatePaymentStep(state.payment);
      if (Object.keys(errors).length) return dispatch({ type: "errors", errors });
      dispatch({ type: "submitting", value: true });
      try {
        setPaymentToken(await tokenizeCard(state.payment));
        dispatch({ type: "goto", step: "review" });
      } catch {
        dispatch({ type: "errors", errors: { cardNumber: "Your card was declined by the bank" } });
      } finally {
        dispatch({ type: "submitting", value: false });
      }
    } else {
      await placeOrder();
    }
  }

  async function placeOrder() {
    dispatch({ type: "submitting", value: true });
    dispatch({ type: "serverError", message: null });
    try {
      const order = await api.placeOrder(
        {
          lines: lines.map((l) => ({ isbn: l.isbn, quantity: l.quantity })),
          address: state.address,
          currency,
          delivery: state.delivery,
          paymentToken,
        },
        idempotencyKey.current,
      );
      onPlaced(order.id);
    } catch (err) {
      if (err instanceof ApiClientError && err.status === 422) {
        dispatch({ type: "errors", errors: mapServerFieldErrors(err.fields) });
        dispatch({ type: "goto", step: "address" });
      } else {
        dispatch({ type: "serverError", message: "Something went wrong placing your order. You have not been charged." });
      }
    } finally {
      dispatch({ type: "submitting", value: false });
    }
  }

  const stepIndex = STEPS.indexOf(state.step);
  const setAddress = (field: keyof AddressFields) => (value: string) => dispatch({ type: "setAddress", field, value });
  const setPayment = (field: keyof PaymentFields) => (value: string) => dispatch({ type: "setPayment", field, value });

  return (
    <form className="checkout" onSubmit={next} noValidate>
      <ol className="checkout__steps">
        {STEPS.map((s, i) => (
          <li key={s} className={i === stepIndex ? "current" : i < stepIndex ? "done" : ""}>
            {s}
          </li>
        ))}
      </ol>

      {state.serverError && <div role="alert">{state.serverError}</div>}

      <div ref={firstErrorRef}>
        {state.step === "address" && (
          <fieldset>
            <legend>Delivery address</legend>
            <Field label="Full name" name="name" value={state.address.name} error={state.errors.name} onChange={setAddress("name")} autoComplete="name" />
            <Field label="Address line 1" name="line1" value={state.address.line1} error={state.errors.line1} onChange={setAddress("line1")} autoComplete="address-line1" />
            <Field label="Address line 2" name="line2" value={state.address.line2} onChange={setAddress("line2")} autoComplete="address-line2" />
            <Field label="Town or city" name="city" value={state.address.city} error={state.errors.city} onChange={setAddress("city")} autoComplete="address-level2" />
            <Field label="Postcode" name="postcode" value={state.address.postcode} error={state.errors.postcode} onChange={setAddress("postcode")} autoComplete="postal-code" />
          </fieldset>
        )}

        {state.step === "delivery" && (
          <fieldset>
            <legend>Delivery method</legend>
            {DELIVERY_OPTIONS.map((option) => (
              <label key={option.id} className="radio">
                <input
                  type="radio"
                  name="delivery"
                  checked={state.delivery === option.id}
                  onChange={() => dispatch({ type: "setDelivery", value: option.id })}
                />
                {option.label} — {option.priceMinor === 0 ? "Free" : formatPrice(option.priceMinor, currency)} ({option.eta})
              </label>
            ))}
          </fieldset>
        )}

        {state.step === "payment" && (
          <fieldset>
            <legend>Payment</legend>
            <Field label="Name on card" name="cardholder" value={state.payment.cardholder} error={state.errors.cardholder} onChange={setPayment("cardholder")} autoComplete="cc-name" />
            <Field label="Card number" name="cardNumber" value={state.payment.cardNumber} error={state.errors.cardNumber} onChange={setPayment("cardNumber")} autoComplete="cc-number" inputMode="numeric" />
            <Field label="Expiry (MM/YY)" name="expiry" value={state.payment.expiry} error={state.errors.expiry} onChange={setPayment("expiry")} autoComplete="cc-exp" />
            <Field label="Security code" name="cvc" value={state.payment.cvc} error={state.errors.cvc} onChange={setPayment("cvc")} autoComplete="cc-csc" inputMode="numeric" />
          </fieldset>
        )}

        {state.step === "review" && (
          <section className="checkout__review">
            <h2>Review your order</h2>
            <p>
              Delivering to {state.address.name}, {state.address.line1}, {state.address.city} {state.address.postcode}
            </p>
            <p>{delivery.label}</p>
            <dl>
              <dt>Items</dt>
              <dd>{formatPrice(totals.subtotal, currency)}</dd>
              <dt>Discount</dt>
              <dd>−{formatPrice(totals.discount, currency)}</dd>
              <dt>Delivery</dt>
              <dd>{formatPrice(totals.shipping, currency)}</dd>
              <dt>Total to pay</dt>
              <dd>{formatPrice(totals.total, currency)}</dd>
            </dl>
          </section>
        )}
      </div>

      <div className="checkout__actions">
        {stepIndex > 0 && (
          <button type="button" onClick={() => dispatch({ type: "goto", step: STEPS[stepIndex - 1] })} disabled={state.submitting}>
            Back
          </button>
        )}
        <button type="submit" disabled={state.submitting}>
          {state.step === "review" ? (state.submitting ? "Placing order…" : "Place order") : "Continue"}
        </button>
      </div>
    </form>
  );
}

export default CheckoutForm;
