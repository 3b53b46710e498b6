import { useEffect, useRef, useState } from "react";

/**
 * Returns `value` only after it has stopped changing for `delayMs`.
 * Used by the search box so we don't hit the catalog API on every keystroke.
 */
export function useDebounce(value, delayMs = 250) {
  const [debounced, setDebounced] = useState(value);

  useEffect(() => {
    const handle = setTimeout(() => setDebounced(value), delayMs);
    return () => clearTimeout(handle);
  }, [value, delayMs]);

  return debounced;
}

/**
 * Wraps a callback so that only the last call within `delayMs` fires.
 * The latest callback is kept in a ref so callers don't need to memoise it.
 */
export function useDebouncedCallback(callback, delayMs = 250) {
  const callbackRef = useRef(callback);
  const timerRef = useRef(null);

  useEffect(() => {
    callbackRef.current = callback;
  }, [callback]);

  useEffect(() => () => clearTimeout(timerRef.current), []);

  return (...args) => {
    clearTimeout(timerRef.current);
    timerRef.current = setTimeout(() => callbackRef.current(...args), delayMs);
  };
}
