// The clock the updater waits on: the platform's timers by default. A test gives its own
// to advance time without waiting (test/fake-clock.js); so may a host whose timers are
// not globals.

/** Timers as the updater uses them: the time in milliseconds, and one-shot callbacks. */
export interface Timers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

declare function setTimeout(callback: () => void, ms: number): unknown;
declare function clearTimeout(handle: unknown): void;

/** The platform's `Date.now`, `setTimeout` and `clearTimeout`. */
export const platformTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle),
};
