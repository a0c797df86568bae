// The arithmetic of the update loop: backoff with full jitter, the polling interval
// from `max-age`, and `Retry-After`.

/** When the client asks the server again. Times in milliseconds; `wait` in seconds. */
export interface UpdatePolicy {
  /**
   * Seconds a blocking poll asks the server to hold it (`Prefer: wait=N`), 0 to 300; 0 sends no `Prefer`.
   * Default 25, the server's `--max-wait` default: with the server's jitter it stays under the most
   * impatient proxy in common use (Google's load balancer, 30 s), so a quiet poll ends in 304, not 504.
   */
  wait: number;
  /** The shortest interval between polls that are not held, whatever `max-age` says. Default 60,000. */
  minimumInterval: number;
  /** The first retry after a failure waits up to this (full jitter), doubling per failure in a row... Default 1,000. */
  initialBackoff: number;
  /** ...up to this. Default 300,000. */
  maximumBackoff: number;
  /** How long a request that is not held may take (a held one: `wait` plus its jitter plus this). Default 30,000. */
  requestTimeout: number;
}

/** The policy with every field given, the wait within 0 to 300 seconds. */
export function fullPolicy(p: Partial<UpdatePolicy> = {}): UpdatePolicy {
  return {
    wait: Math.min(Math.max(Math.floor(p.wait ?? 25), 0), 300),
    minimumInterval: p.minimumInterval ?? 60000,
    initialBackoff: p.initialBackoff ?? 1000,
    maximumBackoff: p.maximumBackoff ?? 300000,
    requestTimeout: p.requestTimeout ?? 30000,
  };
}

/**
 * Whether a 502 or 504 to a held poll out for `elapsed` ms is a proxy in front that gave up
 * before the server answered (its timeout under the wait): asked again, not counted as a
 * failure that backs off. One sooner than half the wait (at most 10 s) is a failure.
 */
export function proxyGaveUp(policy: UpdatePolicy, status: number, held: boolean, elapsed: number): boolean {
  return held && (status === 502 || status === 504) && elapsed >= Math.min((policy.wait * 1000) / 2, 10000);
}

/** Exponential backoff with full jitter: anywhere from 0 to `initialBackoff * 2^(failures-1)`, capped. */
export function backoff(policy: UpdatePolicy, failures: number): number {
  const ceiling = Math.min(policy.initialBackoff * 2 ** Math.min(Math.max(failures - 1, 0), 30), policy.maximumBackoff);
  return ceiling * Math.random();
}

/** `max-age` (at least the minimum interval) plus up to a tenth of it at random. */
export function intervalFor(policy: UpdatePolicy, cacheControl: string | null): number {
  const maxAge = parameter(cacheControl, "max-age");
  const seconds = maxAge !== undefined && maxAge !== null && /^[0-9]+$/.test(maxAge) ? Number(maxAge) : null;
  const base = Math.max(seconds === null ? policy.minimumInterval : seconds * 1000, policy.minimumInterval);
  return base + base * 0.1 * Math.random();
}

/** The value of the first `name[=value]` item of a comma-separated header; null when it has no value, undefined when absent. */
function parameter(header: string | null, name: string): string | null | undefined {
  if (header === null) return undefined;
  for (const item of header.split(",")) {
    const token = item.split(";")[0];
    const eq = token.indexOf("=");
    const key = (eq < 0 ? token : token.slice(0, eq)).trim().toLowerCase();
    if (key !== name) continue;
    if (eq < 0) return null;
    let value = token.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    return value;
  }
  return undefined;
}

export function hasParameter(header: string | null, name: string): boolean {
  return parameter(header, name) !== undefined;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * `Retry-After` in seconds: delta-seconds or an HTTP date (IMF-fixdate, RFC 850 or asctime);
 * undefined when absent or unreadable; at most a day, so a typo cannot silence a client longer.
 */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (text.length === 0) return undefined;
  if (/^[0-9]+$/.test(text)) return Math.min(Number(text.slice(0, 6)), 86400);
  const m = /^[A-Za-z]{3}, (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(text)
    ?? /^[A-Za-z]+, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/.exec(text);
  const a = /^[A-Za-z]{3} ([A-Za-z]{3}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/.exec(text);
  let date: number;
  if (m !== null) {
    const month = MONTHS.indexOf(m[2]);
    if (month < 0) return undefined;
    let year = Number(m[3]);
    if (m[3].length === 2) year += year < 70 ? 2000 : 1900;
    date = Date.UTC(year, month, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  } else if (a !== null) {
    const month = MONTHS.indexOf(a[1]);
    if (month < 0) return undefined;
    date = Date.UTC(Number(a[6]), month, Number(a[2]), Number(a[3]), Number(a[4]), Number(a[5]));
  } else {
    return undefined;
  }
  return Math.min(Math.max(Math.floor((date - now) / 1000), 0), 86400);
}
