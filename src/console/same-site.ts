import type { Context } from 'hono';

// Whether a form post came from another site. Browsers say so in `Sec-Fetch-Site` (every current one sends it); an
// older one is judged by `Origin`, which must name this host. A request with neither (curl, a test) is no browser's
// cross-site post. The session cookie's SameSite=Strict protects the signed-in forms; sign-in has no cookie yet, so
// without this a page elsewhere could sign a visitor's browser into the attacker's account.

const SAME_SITE = new Set(['same-origin', 'none']);

export function crossSite(c: Context): boolean {
  const fetchSite = c.req.header('sec-fetch-site');
  if (fetchSite !== undefined) return !SAME_SITE.has(fetchSite.toLowerCase());
  const origin = c.req.header('origin');
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== (c.req.header('host') ?? new URL(c.req.url).host);
  } catch {
    return true; // "null" (a sandboxed frame, a file) or garbage: not this site
  }
}
