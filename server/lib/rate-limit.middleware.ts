/**
 * Per-address rate limits for the anonymous endpoints (docs/security.md): a token bucket per caller address and
 * limit, refilled continuously; an empty bucket answers 429 TOO_MANY_REQUESTS with Retry-After before the route
 * touches the database. Kept in this process's memory on purpose: a flood must cost no database write, and no
 * other instance needs the count (with N instances behind a balancer an address gets at most N times the rate).
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context';
import { clientIp } from './client-ip';
import { HttpError } from './errors';

export interface BucketLimit {
  /** Name in the key space (`api`, `oauth`). */
  name: string;
  /** Requests allowed at once (the burst). */
  capacity: number;
  /** Sustained requests per second. */
  perSecond: number;
}

/** Public device pages and order polling: a pay page load is 4 calls, polling one every 1.5 s. */
export const API_LIMIT: BucketLimit = { name: 'api', capacity: 60, perSecond: 2 };
/** WeChat sign-in start and return: each writes or claims a row. */
export const OAUTH_LIMIT: BucketLimit = { name: 'oauth', capacity: 10, perSecond: 1 / 6 };

/** Most addresses tracked at once; the least recently seen are forgotten first (a full bucket is the default). */
const MAX_KEYS = 50_000;

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly clock: () => number = () => performance.now()) {}

  /** Takes one token for `key`; returns 0 when allowed, else the seconds until one is back. */
  take(limit: BucketLimit, key: string): number {
    const now = this.clock();
    const id = `${limit.name}:${key}`;
    const b = this.buckets.get(id) ?? { tokens: limit.capacity, at: now };
    this.buckets.delete(id);
    b.tokens = Math.min(limit.capacity, b.tokens + ((now - b.at) / 1000) * limit.perSecond);
    b.at = now;
    let wait = 0;
    if (b.tokens >= 1) b.tokens -= 1;
    else wait = Math.max(1, Math.ceil((1 - b.tokens) / limit.perSecond));
    this.buckets.set(id, b); // re-inserted: the Map's order is least recently seen first
    if (this.buckets.size > MAX_KEYS) this.buckets.delete(this.buckets.keys().next().value!);
    return wait;
  }
}

/**
 * Callers not counted: this machine itself (127.0.0.1, ::1: its own tools, tests, a reverse proxy on the same host
 * that was not declared with TRUST_PROXY, which would otherwise throttle every user as one) and in-process calls
 * with no socket ('local'). Every other address, the rest of 127.0.0.0/8 included, is counted.
 */
const UNCOUNTED = new Set(['local', '127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** The middleware for one limit. */
export function rateLimit(limit: BucketLimit, using: RateLimiter): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const ip = clientIp(c);
    const wait = UNCOUNTED.has(ip) ? 0 : using.take(limit, ip);
    if (wait > 0) {
      throw new HttpError(
        429,
        'TOO_MANY_REQUESTS',
        `请求过于频繁，请 ${wait} 秒后再试`,
        { retry_after_seconds: wait },
        { 'Retry-After': String(wait) },
      );
    }
    await next();
  };
}
