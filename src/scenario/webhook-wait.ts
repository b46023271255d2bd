import { match } from './match.js';
import type { Delivery, Inbox } from './receiver.js';
import { StepFailed } from './results.js';

export interface WebhookWant {
  type: string;
  id: string | undefined;
  data: unknown;
  count: number | undefined;
  withinSeconds: number;
}

export /** A 3DS code is never printed, even by a test tool: it is a live credential in production. */
function redactOtp(data: unknown): unknown {
  if (data === null || typeof data !== 'object' || !('otp' in data)) return data;
  return { ...data, otp: '[redacted]' };
}

/**
 * Waits (wall clock, `withinSeconds`) for deliveries of `type` whose id and data match, among those no earlier wait
 * claimed, and claims them. With `count`, exactly that many must arrive; a short settle catches extras. A claimed
 * delivery that is wrong (signature, headers) fails the step.
 */
export async function awaitDeliveries(inbox: Inbox, want: WebhookWant): Promise<Delivery[]> {
  const { type, id, data, count } = want;
  const deadline = Date.now() + want.withinSeconds * 1000;
  const matching = () =>
    inbox.deliveries.flatMap((d, i) =>
      !inbox.claimed.has(i) &&
      d.type === type &&
      (id === undefined || d.envelope.id === id) &&
      (data === undefined || match(data, d.envelope.data).length === 0)
        ? [i]
        : [],
    );
  let found = matching();
  const enough = () => (count === undefined ? found.length >= 1 : count > 0 && found.length >= count);
  while (!enough() && Date.now() < deadline) {
    await inbox.waitForDelivery(Math.max(1, deadline - Date.now()));
    found = matching();
  }
  if (count !== undefined && count > 0 && found.length >= count) {
    await new Promise((r) => setTimeout(r, 50));
    found = matching();
  }
  const ok = count === undefined ? found.length >= 1 : found.length === count;
  if (!ok) {
    const sameType = inbox.deliveries.filter((d, i) => !inbox.claimed.has(i) && d.type === type);
    throw new StepFailed({
      message: `expected ${count ?? 'at least 1'} ${type} webhook(s)${data === undefined ? '' : ' with matching data'}, received ${found.length}`,
      diff: sameType.length > 0 && data !== undefined ? match(data, sameType[0].envelope.data, '$.data') : undefined,
      actual: inbox.deliveries
        .filter((_, i) => !inbox.claimed.has(i))
        .map((d) => ({ type: d.type, data: redactOtp(d.envelope.data) })),
    });
  }
  const claimed = found.slice(0, count ?? 1).map((i) => {
    inbox.claimed.add(i);
    return inbox.deliveries[i];
  });
  const bad = claimed.find((d) => d.problem);
  if (bad)
    throw new StepFailed({
      message: `webhook delivery is wrong: ${bad.problem}`,
      actual: { ...bad.envelope, data: redactOtp(bad.envelope.data) },
    });
  return claimed;
}
